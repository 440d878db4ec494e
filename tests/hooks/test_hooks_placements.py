"""A memory placed *not relevant here* never arrives as a lesson through the real hook, on the
core-free path (hook_rows) and on the core's (a project with rules); elsewhere it still does."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hookrun_helper import claude, gemini, git_repo, run_hook

from kenning import gitinfo
from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core import rules
from kenning.core.remember import RememberRequest
from kenning.core.scopes import add_group
from kenning.core.service import Core
from kenning.model import Kind, Origin, Placing, Trigger, TriggerTool

SESSION = "91ace000-0000-4000-8000-000000000001"


@pytest.fixture
def shop(repo: Path, kenning_home: Path) -> Iterator[Core]:
    core = Core.open(Settings(home=kenning_home), FixedClock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC)))
    try:
        yield core
    finally:
        core.close()


def bash(cwd: Path, command: str, session: str = SESSION) -> dict[str, object]:
    return claude(cwd, "PreToolUse", session, tool_name="Bash", tool_input={"command": command, "description": "x"})


def global_lesson(core: Core, repo: Path) -> str:
    result = core.remember(core.place(repo), RememberRequest(
        text="Run the dry run before publishing the package to the registry.", kind=Kind.LESSON,
        when=Trigger(TriggerTool.SHELL, r"^npm publish"), origin=Origin.PERSON, global_=True))  # fmt: skip
    assert result.memory is not None
    return result.memory.ref


def test_not_here_on_the_hooks_own_path(shop: Core, repo: Path, tmp_path: Path) -> None:
    ref = global_lesson(shop, repo)
    other = git_repo(tmp_path / "billing")
    gitinfo.clear_cache()
    shop.place(other)  # registered, as a first session there would
    shop.place_memory(ref, Placing.NOT_HERE, shop.place(repo).project)
    assert run_hook("claude-code", "PreToolUse", bash(repo, "npm publish")).stdout == ""
    # Another project still gets it (a Gemini CLI session there).
    there = gemini(other, "BeforeTool", SESSION + "-g", tool_name="run_shell_command",
                   tool_input={"command": "npm publish --dry-run=false"})  # fmt: skip
    assert ref in run_hook("gemini", "BeforeTool", there).held
    # Undone: it arrives here again (a new session: each lesson once per session).
    shop.unplace_memory(ref, Placing.NOT_HERE, shop.place(repo).project)
    assert ref in run_hook("claude-code", "PreToolUse", bash(repo, "npm publish", SESSION + "-b")).held


def test_not_here_for_the_group_on_the_hooks_path(shop: Core, repo: Path) -> None:
    ref = global_lesson(shop, repo)
    add_group(shop.store, shop.workspace, "all", repo.parent, shop.now())
    gitinfo.clear_cache()
    assert shop.place(repo).group == "group:all"
    shop.place_memory(ref, Placing.NOT_HERE, "group:all")
    assert run_hook("claude-code", "PreToolUse", bash(repo, "npm publish")).stdout == ""


def test_not_here_where_rules_send_lessons_through_the_core(shop: Core, repo: Path, kenning_home: Path) -> None:
    ref = global_lesson(shop, repo)
    rules.add_ready(shop, "unused", n=60)  # a rule that decides what is given out: the core path
    shop.place_memory(ref, Placing.NOT_HERE, shop.place(repo).project)
    assert run_hook("claude-code", "PreToolUse", bash(repo, "npm publish")).stdout == ""
    shop.unplace_memory(ref, Placing.NOT_HERE, shop.place(repo).project)
    run = run_hook("claude-code", "PreToolUse", bash(repo, "npm publish"))
    assert ref in run.held
    with sqlite3.connect(kenning_home / "kenning.db") as conn:
        rows = conn.execute("SELECT session, channel, ref, tool FROM memory_deliveries").fetchall()
    assert rows == [(f"claude-code:{SESSION}", "lesson", ref, "claude-code")]
