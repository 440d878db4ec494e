"""A real git repository driven through the real git command (shared by tests/git)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


class Repo:
    """A real git repository driven through the real git command."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tick = 0

    def git(self, *args: str, cwd: Path | None = None, date: str | None = None) -> str:
        env = dict(os.environ)
        if date:
            env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
        done = subprocess.run(
            ["git", *args], cwd=cwd or self.root, env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
        return done.stdout.strip()

    def write(self, rel: str, text: str, cwd: Path | None = None) -> Path:
        path = (cwd or self.root) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def commit(self, message: str, cwd: Path | None = None, date: str | None = None, **files: str) -> str:
        for rel, text in files.items():
            self.write(rel.replace("__", "/"), text, cwd)
        self.git("add", "-A", cwd=cwd)
        self.git("commit", "-q", "--allow-empty", "-m", message, cwd=cwd, date=date)
        return self.git("rev-parse", "HEAD", cwd=cwd)
