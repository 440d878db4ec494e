"""The start brief: scope, open, others, rules, the recall line; under 1,500 characters and
never a memory."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from kenning import gitinfo
from kenning.context import brief
from kenning.core import parked, rules, work
from kenning.core.remember import RememberRequest
from kenning.core.service import Core
from kenning.model import Kind, Origin


def _git(root: Path, *args: str) -> None:
    env = dict(os.environ, GIT_AUTHOR_NAME="A", GIT_AUTHOR_EMAIL="a@example.com", GIT_COMMITTER_NAME="A",
               GIT_COMMITTER_EMAIL="a@example.com", GIT_CONFIG_NOSYSTEM="1")  # fmt: skip
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    (tmp_path / "gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    root = tmp_path / "shop"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _git(root, "commit", "-q", "--allow-empty", "-m", "init")
    gitinfo.clear_cache()
    return root


def test_goal_only_when_written_down(core: Core, repo: Path) -> None:
    _git(repo, "checkout", "-q", "-b", "feat/add-login-throttle")
    gitinfo.clear_cache()
    place = core.place(repo)
    text = brief.build(core, place)
    assert "Goal" not in text and "throttle" not in text.split("branch")[-1].replace("feat/add-login-throttle", "")
    work.set_goal(core, place, "Rate-limit login attempts per account.")
    assert "Goal: Rate-limit login attempts per account." in brief.build(core, place)


def test_no_memories_and_the_recall_line(core: Core, repo: Path) -> None:
    place = core.place(repo)
    core.remember(place, RememberRequest(text="We deploy with the blue-green script because downtime costs money.",
                                         kind=Kind.DECISION, origin=Origin.PERSON))  # fmt: skip
    text = brief.build(core, place)
    assert "blue-green" not in text and "m:" not in text
    assert text.splitlines()[-1].startswith("Once you know the task, call `recall`")
    assert "recall" not in brief.build(core, place, holdout=True)


def test_open_items_tasks_and_parked_branches_on_main(core: Core, repo: Path) -> None:
    _git(repo, "worktree", "add", "-q", "-b", "feat/cart", str(repo.parent / "shop-cart"))
    (repo.parent / "shop-cart" / "cart.py").write_text("x = 1\n")
    gitinfo.clear_cache()
    place = core.place(repo)
    parked.refresh(core, repo)
    work.add_open_item(core, place, "Decide the session timeout")
    work.add_task(core, place, "Fix flaky checkout test")
    text = brief.build(core, place)
    assert "Open: #1 Decide the session timeout" in text
    assert "#1 Fix flaky checkout test" in text
    assert "uncommitted work on feat/cart (1 files)" in text


def test_up_to_five_rules_and_the_limit(core: Core, repo: Path) -> None:
    place = core.place(repo)
    for i in range(8):
        rules.add_sentence(core, f"Rule number {i}: keep functions short and name them by what they return.", project=place.project)
    rules.add_ready(core, "unused")
    for i in range(40):
        work.add_open_item(core, place, f"Open item {i} " + "with a long explanation " * 8)
    text = brief.build(core, place)
    assert len(text) <= brief.LIMIT
    assert text.count("- Rule number") <= 5
    assert "Leave out" not in text  # ready rules decide what is given out; they are not told
    assert text.splitlines()[-1].startswith("Once you know the task")


def test_outside_a_repository(core: Core, tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    text = brief.build(core, core.place(folder))
    assert text.startswith("kenning · Project personal · no branch")
