"""Real git repositories in temp folders for the git-awareness tests."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from gitrepo_helper import Repo

from kenning import gitinfo
from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.service import Core
from kenning.store.sqlite.stores import open_sqlite


@pytest.fixture(autouse=True)
def git_identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    # A fixed identity and no user config, so the machine's git settings cannot leak in.
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Ada Tester")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "ada@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Ada Tester")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "ada@example.com")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig-global"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    (tmp_path / "gitconfig-global").write_text("[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n")
    gitinfo.clear_cache()
    yield
    gitinfo.clear_cache()


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "-c", "init.defaultBranch=main", "init", "-q", str(root)], check=True)
    return Repo(root)


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))


@pytest.fixture
def core(tmp_path: Path, clock: FixedClock) -> Iterator[Core]:
    settings = Settings(home=tmp_path / "home")
    service = Core(open_sqlite(settings.db_path), clock, settings)
    yield service
    service.close()
