"""Project identity of a working folder, from real repositories."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo_helper import Repo

from kenning import gitinfo
from kenning.gitinfo import normalize_remote, project_for

SAME = [
    "git@github.com:Acme/Widget.git",
    "git@github.com:acme/widget",
    "ssh://git@github.com/acme/widget.git",
    "ssh://git@github.com:22/Acme/Widget.git",
    "git+ssh://git@GitHub.com/acme/widget",
    "https://github.com/acme/widget.git",
    "https://github.com/Acme/Widget/",
    "https://user:ghp_token123@github.com/acme/widget.git",
    "http://oauth2@github.com/acme/widget",
    "git://github.com/acme/widget.git",
]


@pytest.mark.parametrize("url", SAME)
def test_every_remote_form_normalises_to_host_owner_repo(url: str) -> None:
    assert normalize_remote(url) == "github.com/acme/widget"


def test_credentials_never_survive_normalising() -> None:
    key = normalize_remote("https://bob:s3cr3t@gitlab.example.org:8443/Group/Sub/Repo.git")
    assert key == "gitlab.example.org/group/sub/repo"
    assert "s3cr3t" not in key and "bob" not in key


@pytest.mark.parametrize("url", ["", "/srv/git/widget.git", "./widget", "../a:b", "file:///srv/widget.git", "C:\\repos\\w"])
def test_local_paths_are_not_remote_keys(url: str) -> None:
    assert normalize_remote(url) == ""


def test_repo_with_origin_uses_the_normalised_remote(repo: Repo) -> None:
    repo.git("remote", "add", "upstream", "https://github.com/other/fork.git")
    repo.git("remote", "add", "origin", "git@github.com:Acme/Widget.git")
    info = project_for(repo.root)
    assert info.key == "github.com/acme/widget"
    assert info.name == "widget"
    assert info.kind == "project"
    assert info.root == repo.root.resolve()


def test_without_origin_the_first_remote_counts(repo: Repo) -> None:
    repo.git("remote", "add", "zeta", "https://gitlab.com/team/zeta-app.git")
    repo.git("remote", "add", "alpha", "https://gitlab.com/team/alpha-app.git")
    assert project_for(repo.root).key == "gitlab.com/team/zeta-app"


def test_insteadof_rewrites_apply_like_git(repo: Repo) -> None:
    repo.git("config", "url.git@github.com:.insteadOf", "gh:")
    repo.git("remote", "add", "origin", "gh:acme/widget")
    assert project_for(repo.root).key == "github.com/acme/widget"


def test_https_and_ssh_clones_are_the_same_project(tmp_path: Path, repo: Repo) -> None:
    repo.git("remote", "add", "origin", "https://tok:x@github.com/acme/widget.git")
    other = Repo(tmp_path / "other")
    other.root.mkdir()
    other.git("init", "-q")
    other.git("remote", "add", "origin", "git@github.com:acme/widget.git")
    assert project_for(repo.root).key == project_for(other.root).key


def test_no_remote_keys_by_the_real_root_path(repo: Repo, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(repo.root)
    sub = repo.root / "src" / "pkg"
    sub.mkdir(parents=True)
    info = project_for(link / "src" / "pkg")
    assert info.key == f"path:{repo.root.resolve()}"
    assert info.name == "proj"
    assert project_for(sub) == info


def test_a_folder_that_is_no_repository_is_personal(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    info = project_for(plain)
    assert (info.key, info.kind, info.root, info.branch) == ("personal", "personal", None, "")


def test_a_path_that_does_not_exist_is_personal(tmp_path: Path) -> None:
    assert project_for(tmp_path / "no" / "such" / "place").key == "personal"


def test_a_broken_dotgit_file_is_personal(tmp_path: Path) -> None:
    odd = tmp_path / "odd"
    odd.mkdir()
    (odd / ".git").write_text("gitdir: /nowhere/at/all\n")
    assert project_for(odd).kind == "personal"


def test_a_file_path_reports_its_folder_project(repo: Repo) -> None:
    path = repo.write("a.txt", "x\n")
    assert project_for(path).key == project_for(repo.root).key


def test_results_are_cached_per_process(repo: Repo) -> None:
    first = project_for(repo.root)
    repo.git("remote", "add", "origin", "https://github.com/acme/widget.git")
    assert project_for(repo.root) == first
    gitinfo.clear_cache()
    assert project_for(repo.root).key == "github.com/acme/widget"
