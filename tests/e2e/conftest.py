"""Fixtures for the end-to-end tests: real agent CLIs, temp homes and repos (see e2e_support)."""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_support import Claude, Workspace, make_git_repo, require_cli


@pytest.fixture(scope="session")
def claude_cli() -> Path:
    return require_cli("claude")


@pytest.fixture(scope="session")
def codex_cli() -> Path:
    return require_cli("codex")


@pytest.fixture(scope="session")
def gemini_cli() -> Path:
    return require_cli("gemini")


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "tmp").mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Dev\n\temail = dev@example.com\n"
                                      "[init]\n\tdefaultBranch = main\n")
    repo = make_git_repo(tmp_path / "src" / "shop", branch="fix/login-tz")
    return Workspace(root=tmp_path, home=home, repo=repo, kenning_home=tmp_path / "kenning-data")


@pytest.fixture
def claude(claude_cli: Path, workspace: Workspace) -> Claude:
    return Claude(claude_cli, workspace)
