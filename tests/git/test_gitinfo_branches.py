"""Branches, worktrees and odd states from real repositories."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo_helper import Repo

from kenning import githistory, gitinfo
from kenning.gitinfo import project_for


def test_repo_with_no_commits_reports_its_unborn_branch(repo: Repo) -> None:
    info = project_for(repo.root)
    assert info.branch == "main"
    assert gitinfo.worktrees(repo.root)[0].head == ""
    assert gitinfo.branches(repo.root) == []
    assert gitinfo.resolve(repo.root, "HEAD") == ""
    assert githistory.first_parent_history(repo.root, "main") == []
    assert gitinfo.default_branch(repo.root) == "main"
    assert gitinfo.dirty_worktrees(repo.root) == []


def test_branch_with_a_slash_is_spelled_as_git_spells_it(repo: Repo) -> None:
    repo.commit("init", a="1\n")
    repo.git("checkout", "-q", "-b", "feature/Login-Page")
    assert project_for(repo.root).branch == "feature/Login-Page"
    assert "feature/Login-Page" in gitinfo.branches(repo.root)


def test_detached_head_reads_as_HEAD(repo: Repo) -> None:
    first = repo.commit("one", a="1\n")
    repo.commit("two", a="2\n")
    repo.git("checkout", "-q", "--detach", first)
    assert project_for(repo.root).branch == "HEAD"
    tree = gitinfo.worktrees(repo.root)[0]
    assert (tree.branch, tree.head) == ("HEAD", first)


def test_linked_worktree_belongs_to_its_main_repository(repo: Repo, tmp_path: Path) -> None:
    repo.commit("init", a="1\n")
    repo.git("remote", "add", "origin", "git@github.com:acme/widget.git")
    side = tmp_path / "side-checkout"
    repo.git("worktree", "add", "-q", "-b", "fix/typo", str(side))
    main_info, side_info = project_for(repo.root), project_for(side / ".")
    assert side_info.key == main_info.key == "github.com/acme/widget"
    assert side_info.root == repo.root.resolve()
    assert side_info.worktree == side.resolve()
    assert (main_info.branch, side_info.branch) == ("main", "fix/typo")


def test_linked_worktree_without_remote_keys_by_the_main_root(repo: Repo, tmp_path: Path) -> None:
    repo.commit("init", a="1\n")
    side = tmp_path / "wt"
    repo.git("worktree", "add", "-q", "-b", "side", str(side))
    assert project_for(side).key == f"path:{repo.root.resolve()}"
    assert project_for(side).name == "proj"


def test_dirty_worktrees_lists_each_with_uncommitted_work(repo: Repo, tmp_path: Path) -> None:
    repo.commit("init", a="1\n", b="1\n")
    side = tmp_path / "wt"
    repo.git("worktree", "add", "-q", "-b", "feat/x", str(side))
    clean = tmp_path / "wt2"
    repo.git("worktree", "add", "-q", "-b", "clean", str(clean))
    repo.write("a", "changed\n", cwd=side)
    repo.write("new file.txt", "hello\n", cwd=side)
    repo.git("mv", "b", "c")
    states = {s.branch: s for s in gitinfo.dirty_worktrees(repo.root)}
    assert set(states) == {"main", "feat/x"}
    assert sorted(states["feat/x"].changes) == [" M a", "?? new file.txt"]
    assert states["main"].changes == ("R  c",)


def test_ignored_files_are_not_uncommitted_work(repo: Repo) -> None:
    repo.commit("init", **{".gitignore": "*.log\n"})
    repo.write("debug.log", "noise\n")
    assert gitinfo.uncommitted(repo.root) == ()


def test_default_branch_prefers_origin_head_then_main(repo: Repo) -> None:
    repo.commit("init", a="1\n")
    repo.git("branch", "develop")
    assert gitinfo.default_branch(repo.root) == "main"
    repo.git("update-ref", "refs/remotes/origin/develop", "HEAD")
    repo.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/develop")
    assert gitinfo.default_branch(repo.root) == "develop"


def test_master_is_found_when_there_is_no_main(tmp_path: Path) -> None:
    r = Repo(tmp_path / "m")
    r.root.mkdir()
    r.git("-c", "init.defaultBranch=master", "init", "-q")
    r.commit("init", a="1\n")
    assert gitinfo.default_branch(r.root) == "master"


def test_branch_landed_by_merge_fast_forward_rebase_or_removal(repo: Repo) -> None:
    repo.commit("init", a="1\n")
    for name in ("merged", "ff", "rebased", "open", "gone/away"):
        repo.git("checkout", "-q", "-b", name, "main")
        repo.commit(f"work on {name}", **{name.replace("/", "_"): f"{name}\n"})
    repo.git("checkout", "-q", "main")
    repo.commit("main moves", m="1\n")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge branch 'merged'", "merged")
    repo.git("cherry-pick", "rebased")  # the same patch with another id
    repo.git("branch", "-D", "gone/away")
    assert githistory.branch_landed(repo.root, "merged")
    assert githistory.branch_landed(repo.root, "rebased")
    assert githistory.branch_landed(repo.root, "gone/away")
    assert not githistory.branch_landed(repo.root, "open")
    assert not githistory.branch_landed(repo.root, "ff")
    repo.git("checkout", "-q", "-b", "ff2", "main")
    repo.commit("more", z="1\n")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--ff-only", "ff2")
    assert githistory.branch_landed(repo.root, "ff2")
    assert not githistory.branch_landed(repo.root, "main")
    assert not githistory.branch_landed(repo.root, "HEAD")


def test_history_and_revert_evidence(repo: Repo) -> None:
    repo.commit("init", a="1\n")
    repo.git("checkout", "-q", "-b", "feat")
    repo.commit("feature", f="1\n")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge branch 'feat'", "feat")
    merge = repo.git("rev-parse", "HEAD")
    repo.git("revert", "--no-edit", "-m", "1", merge)
    history = githistory.first_parent_history(repo.root, "main")
    assert [c.subject for c in history][:2] == ["Revert \"Merge branch 'feat'\"", "Merge branch 'feat'"]
    assert history[1].is_merge and history[1].sha == merge
    assert githistory.reverted_ids(history[0]) == [merge]
    assert githistory.reverted_ids(history[1]) == []


def test_git_dir_in_the_environment_does_not_mislead(repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = Repo(tmp_path / "other")
    other.root.mkdir()
    other.git("init", "-q")
    other.git("remote", "add", "origin", "https://github.com/x/other.git")
    repo.git("remote", "add", "origin", "https://github.com/x/mine.git")
    monkeypatch.setenv("GIT_DIR", str(other.root / ".git"))
    assert project_for(repo.root).key == "github.com/x/mine"


def test_main_history_comes_from_origin_when_local_main_is_behind(repo: Repo, tmp_path: Path) -> None:
    repo.commit("init", a="1\n")
    clone = Repo(tmp_path / "clone")
    repo.git("clone", "-q", str(repo.root), str(clone.root))
    repo.git("checkout", "-q", "-b", "feat")
    repo.commit("feature", f="1\n")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge branch 'feat'", "feat")  # merged "on the forge"
    clone.git("fetch", "-q", "origin")
    clone.git("branch", "feat", "origin/feat")
    assert githistory.main_ref(clone.root, "main") == "refs/remotes/origin/main"
    assert githistory.branch_landed(clone.root, "feat", "main")
    assert githistory.first_parent_history(clone.root, "main")[0].subject == "Merge branch 'feat'"
    clone.commit("local only", z="1\n")  # local main moved on: it is no longer behind
    assert githistory.main_ref(clone.root, "main") == "refs/heads/main"


def test_the_branch_is_read_fresh_while_identity_is_cached(repo: Repo) -> None:
    repo.commit("init", a="1\n")
    assert project_for(repo.root).branch == "main"
    repo.git("checkout", "-q", "-b", "later/branch")
    assert project_for(repo.root).branch == "later/branch"
