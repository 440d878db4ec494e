"""Session start, prompts and the end of a turn run without the core, on the folder's prepared
facts; a first start (no facts yet) computes them and is just as right; facts past their age
bound are never used; a store whose schema is behind, or locked past the hook's budget, is
handled without breaking the session."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hookrun_helper import claude, git, run_hook

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.context import brief, prepared
from kenning.core import rules, work
from kenning.core.scopes import add_group
from kenning.core.service import Core
from kenning.store.sqlite.db import connect, migrate
from kenning.store.sqlite.schema import all_sets

S = "9e0a0000-0000-4000-8000-000000000001"
CORE_MODULES = ("kenning.core.service", "kenning.model", "kenning.core.rules", "kenning.store.sqlite.schema",
                "kenning.context.card", "kenning.core.lessons", "kenning.core.scopes")  # fmt: skip

# Runs one hook in a fresh interpreter and prints the kenning modules it imported.
PROBE = """
import json, sys
from kenning.hooks import main
code, out = main.run(sys.argv[1:3], sys.stdin.buffer.read(), __import__("os").environ, close=True)
print(json.dumps({"out": out, "modules": sorted(m for m in sys.modules if m.startswith("kenning"))}))
"""


def probe(tool: str, event: str, payload: dict[str, object]) -> tuple[str, list[str]]:
    env = dict(os.environ, KENNING_NOW="2026-03-02T09:00:00Z", KENNING_HOLDOUT="off")
    done = subprocess.run([sys.executable, "-c", PROBE, tool, event], input=json.dumps(payload).encode(),
                          capture_output=True, env=env, timeout=60, check=True)  # fmt: skip
    data = json.loads(done.stdout)
    return str(data["out"]), list(data["modules"])


def facts_file(home: Path, repo: Path) -> Path:
    return Path(prepared.file_path(str(home), "local", str(repo)))


def test_start_prompt_and_stop_do_not_import_the_core(repo: Path, kenning_home: Path) -> None:
    first = run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", S))  # computes the facts
    assert "Project shop" in first.context
    out, modules = probe("claude-code", "SessionStart", claude(repo, "SessionStart", S + "-2"))
    assert "Project shop · branch main" in out
    assert not [m for m in (*CORE_MODULES, "kenning.gitinfo") if m in modules], modules  # git not even
    run_hook("claude-code", "UserPromptSubmit", claude(repo, "UserPromptSubmit", S + "-2"))
    for event, fields in (("UserPromptSubmit", {"prompt": "Now run the whole suite again."}),
                          ("Stop", {"last_assistant_message": "Done."})):  # fmt: skip
        out, modules = probe("claude-code", event, claude(repo, event, S + "-2", **fields))
        assert not [m for m in CORE_MODULES if m in modules], (event, modules)


def test_a_first_start_in_a_folder_does_not_import_the_core_either(repo: Path, kenning_home: Path) -> None:
    core = Core.open(Settings(home=kenning_home), FixedClock())
    try:
        add_group(core.store, core.workspace, "web", repo.parent, core.now())  # the project sits in it
    finally:
        core.close()
    assert not facts_file(kenning_home, repo).exists()
    out, modules = probe("claude-code", "SessionStart", claude(repo, "SessionStart", S))
    assert out.startswith('{"hookSpecificOutput"') and "Project shop · branch main" in out
    assert not [m for m in CORE_MODULES if m in modules], modules
    facts = json.loads(facts_file(kenning_home, repo).read_text())
    assert facts["group"] == "group:web" and facts["root"] == str(repo)


def test_a_first_start_computes_the_facts_and_says_the_same(repo: Path, kenning_home: Path) -> None:
    core = Core.open(Settings(home=kenning_home), FixedClock())
    try:
        place = core.place(repo)
        work.add_open_item(core, place, "Decide the session timeout")
        rules.add_sentence(core, "Never push straight to main.", project=place.project)
    finally:
        core.close()
    assert not facts_file(kenning_home, repo).exists()
    cold = run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", S)).context
    path = facts_file(kenning_home, repo)
    assert path.exists() and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    warm = run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", S, source="resume")).context
    assert cold == warm
    assert "Open: #1 Decide the session timeout" in warm and "- Never push straight to main." in warm


def test_the_hooks_brief_is_the_cores_brief(repo: Path, kenning_home: Path) -> None:
    git(repo, "worktree", "add", "-q", "-b", "feat/cart", str(repo.parent / "shop-cart"))
    (repo.parent / "shop-cart" / "cart.py").write_text("x = 1\n")
    core = Core.open(Settings(home=kenning_home), FixedClock())
    try:
        place = core.place(repo)
        work.set_goal(core, place, "Rate-limit login attempts", branch="main")
        work.add_task(core, place, "Fix flaky checkout test")
        for i in range(7):
            rules.add_sentence(core, f"Rule {i}: keep functions short.", project=place.project if i % 2 else "")
    finally:
        core.close()
    run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", "other-session"))
    hooked = run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", S)).context
    core = Core.open(Settings(home=kenning_home), FixedClock())
    try:
        place = core.place(repo)
        session = core.stores.hooks.session(core.workspace, f"claude-code:{S}")
        assert session is not None
        cored = brief.build(core, place, session, cwd=str(repo))
    finally:
        core.close()
    assert hooked == cored
    assert "uncommitted work on feat/cart (1 files)" in hooked and "Goal: Rate-limit login attempts" in hooked
    assert "Others: claude-code on main" in hooked


def test_facts_past_their_age_are_never_used(repo: Path, kenning_home: Path) -> None:
    run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", S))
    path = facts_file(kenning_home, repo)
    data = json.loads(path.read_text())
    # A file that says something else: used while young enough, never once it is too old.
    data["name"] = "prepared-shop"
    data["written"] = time.time() - 600
    path.write_text(json.dumps(data))
    assert "Project prepared-shop" in run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", S + "-a")).context
    data["written"] = time.time() - prepared.MAX_AGE - 60
    path.write_text(json.dumps(data))
    late = run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", S + "-b")).context
    assert "Project shop · branch main" in late and "prepared-shop" not in late
    assert json.loads(path.read_text())["name"] == "shop"  # recomputed and written again


def test_the_branch_is_read_live_not_prepared(repo: Path, kenning_home: Path) -> None:
    run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", S))
    git(repo, "checkout", "-q", "-b", "feat/login")
    again = run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", S + "-b")).context
    assert again.startswith("kenning · Project shop · branch feat/login")
    note = run_hook("claude-code", "UserPromptSubmit", claude(repo, "UserPromptSubmit", S, prompt="Go on with it now."))
    assert "The branch changed: this session is now on feat/login (was main)." in note.context


def test_a_store_whose_schema_is_behind_is_migrated(repo: Path, kenning_home: Path) -> None:
    run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", S))  # facts and a store
    (kenning_home / "kenning.db").unlink()
    for side in ("-wal", "-shm"):
        Path(f"{kenning_home / 'kenning.db'}{side}").unlink(missing_ok=True)
    conn = connect(kenning_home / "kenning.db")
    migrate(conn, all_sets(), stop_before={"hooks": "m001_hooks"})  # no hook tables yet
    conn.close()
    start = run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", S + "-b"))
    assert start.code == 0 and "Project shop" in start.context
    with sqlite3.connect(kenning_home / "kenning.db") as db:
        assert db.execute("SELECT count(*) FROM hook_sessions").fetchone() == (1,)


def test_a_store_locked_past_the_budget_fails_open_with_one_log_line(repo: Path, kenning_home: Path) -> None:
    run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", S))
    holder = sqlite3.connect(kenning_home / "kenning.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        run = run_hook("claude-code", "UserPromptSubmit", claude(repo, "UserPromptSubmit", S))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert run.code == 0 and run.stdout == ""
    errors = (kenning_home / "hook-errors.log").read_text().splitlines()
    assert len(errors) == 1 and "locked" in errors[0], errors


@pytest.mark.parametrize("rule_count", [7])
def test_rules_come_before_open_items_and_others_when_room_runs_out(repo: Path, kenning_home: Path,
                                                                     rule_count: int) -> None:  # fmt: skip
    core = Core.open(Settings(home=kenning_home), FixedClock())
    try:
        place = core.place(repo)
        rules.add_sentence(core, "Never push straight to main.", project=place.project)  # the oldest
        for i in range(rule_count - 2):
            rules.add_sentence(core, f"Project rule {i}: " + "name functions by what they return " * 3, project=place.project)
        rules.add_sentence(core, "All projects: write commit messages in the imperative.")
        for i in range(30):
            work.add_open_item(core, place, f"Open item {i} " + "with a long explanation " * 6)
    finally:
        core.close()
    for i in range(4):
        run_hook("claude-code", "UserPromptSubmit", claude(repo, "UserPromptSubmit", f"other-{i}",
                                                           prompt="Refactor the payment module " * 5))  # fmt: skip
    text = run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", S)).context
    assert len(text) <= brief.LIMIT
    lines = text.splitlines()
    assert lines[-1] == brief.RECALL_LINE  # never cut
    rule_lines = [ln for ln in lines if ln.startswith("- ")]
    assert len(rule_lines) == 5
    assert rule_lines[0] == "- Never push straight to main."  # this project's, longest-standing first
    assert "imperative" not in text  # the all-projects rule comes after this project's five
    assert f"Rules (5 of {rule_count}; all: kenning memory rules list):" in lines
    assert any(ln.startswith("Open: #1 Open item 0") for ln in lines)  # what is left goes to Open
