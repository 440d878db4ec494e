"""A real git repository and a core over the test's data folder, shared by the hook tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from hookrun_helper import git_repo

from kenning import gitinfo


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    (tmp_path / "gitconfig").write_text("[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n")
    gitinfo.clear_cache()
    return git_repo(tmp_path / "shop")
