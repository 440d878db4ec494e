"""Fixture sessions for the graph and context tests: a real git repo in a temp folder, the
Claude Code and Codex fixture transcripts written where those tools keep them (with the
repo as their cwd), and a real ``sync_all`` into a real SQLite file."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kenning import gitinfo
from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.capture_job import sync_all
from kenning.core.service import Core

DATA = Path(__file__).resolve().parent / "data"
CLAUDE_SESSION = "5b1f0c9e-2d7a-4c1e-9a43-7e2b8f1d0c11"
CODEX_SESSION = "0199c0de-5e1a-7b2c-9d3e-4f5a6b7c8d9e"


@dataclass
class Shop:
    root: Path
    home: Path
    core: Core
    clock: FixedClock
    settings: Settings

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", *args], cwd=self.root, capture_output=True, text=True, check=True)
        return done.stdout

    def sync(self) -> int:
        summary = sync_all(self.core, self.home, env={}, import_memory_files=False)
        assert not summary.errors, summary.errors
        return summary.turns_added


def install(home: Path, cwd: Path, which: tuple[str, ...] = ("claude", "codex")) -> None:
    if "claude" in which:
        folder = home / ".claude" / "projects" / str(cwd).replace("/", "-")
        folder.mkdir(parents=True, exist_ok=True)
        text = (DATA / "claude_export.jsonl").read_text().replace("{{CWD}}", str(cwd))
        (folder / f"{CLAUDE_SESSION}.jsonl").write_text(text)
    if "codex" in which:
        folder = home / ".codex" / "sessions" / "2026" / "03" / "03"
        folder.mkdir(parents=True, exist_ok=True)
        text = (DATA / "codex_search.jsonl").read_text().replace("{{CWD}}", str(cwd))
        (folder / f"rollout-2026-03-03T14-00-00-{CODEX_SESSION}.jsonl").write_text(text)


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Shop]:
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Ada Tester")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "ada@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Ada Tester")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "ada@example.com")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    (tmp_path / "gitconfig").write_text("[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n")
    gitinfo.clear_cache()
    root = tmp_path / "src" / "shop"
    root.mkdir(parents=True)
    settings = Settings(home=tmp_path / "kenning-data")
    clock = FixedClock(datetime(2026, 3, 4, 9, 0, tzinfo=UTC))
    core = Core.open(settings, clock)
    shop = Shop(root, tmp_path / "user-home", core, clock, settings)
    shop.git("init", "-q")
    (root / "orders").mkdir()
    (root / "orders" / "views.py").write_text("def export(request):\n    pass\n")
    shop.git("add", "-A")
    shop.git("commit", "-q", "-m", "first")
    shop.git("checkout", "-q", "-b", "fix/export")
    install(shop.home, root)
    try:
        yield shop
    finally:
        core.close()
        gitinfo.clear_cache()
