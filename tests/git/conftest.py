"""Real git repositories in temp folders for the git-awareness tests."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from gitrepo_helper import Repo

from kenning import gitinfo


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
