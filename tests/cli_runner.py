"""Running the real `kenning` command in a test, and a git folder to run it in."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

KENNING = [sys.executable, "-m", "kenning.cli"]


def run(args: list[str], cwd: Path, home: Path, ok: bool = True, user_home: Path | None = None
        ) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """`kenning ARGS` in ``cwd`` with data folder ``home``; asserts success unless ``ok=False``."""
    env = {**os.environ, "KENNING_HOME": str(home)}
    if user_home is not None:
        env["HOME"] = str(user_home)
    proc = subprocess.run([*KENNING, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


def make_shop_repo(parent: Path) -> Path:
    """A git repository whose remote makes its project key github.com/acme/shop."""
    path = parent / "shop"
    path.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=path, check=True)
    subprocess.run(["git", "remote", "add", "origin", "git@github.com:Acme/Shop.git"], cwd=path, check=True)
    return path
