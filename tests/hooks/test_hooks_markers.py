"""A tool call that matches no lesson never opens the store, the session's first edit and its
`recall` calls included: both facts go to marker files, which the end-of-turn hook reads."""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from pathlib import Path

from hookrun_helper import claude, codex, gemini, run_hook

from kenning import sessionmarks
from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.service import Core

S = "3a7c0000-0000-4000-8000-000000000001"


def _edit(repo: Path, session: str = S) -> dict[str, object]:
    return claude(repo, "PreToolUse", session, tool_name="Edit",
                  tool_input={"file_path": str(repo / "app.py"), "old_string": "a", "new_string": "b"})  # fmt: skip


def _recall(repo: Path, session: str = S) -> dict[str, object]:
    return claude(repo, "PreToolUse", session, tool_name="mcp__kenning__recall", tool_input={"query": "login"})


def test_first_edit_and_recall_calls_create_no_store(repo: Path, kenning_home: Path) -> None:
    for payload in (_edit(repo), _recall(repo), _edit(repo)):
        run = run_hook("claude-code", "PreToolUse", payload)
        assert run.code == 0 and run.stdout == ""
    assert not (kenning_home / "kenning.db").exists(), "a call that matches no lesson opened the store"
    home = str(kenning_home)
    for flag in (sessionmarks.CHANGED_FILES, sessionmarks.RECALLED):
        marker = Path(sessionmarks.path(home, "claude-code", S, flag))
        assert marker.exists()
        assert stat.S_IMODE(marker.stat().st_mode) == 0o600
    assert stat.S_IMODE(Path(sessionmarks.folder(home)).stat().st_mode) == 0o700


def test_an_existing_store_is_left_untouched(repo: Path, kenning_home: Path) -> None:
    Core.open(Settings(home=kenning_home), FixedClock()).close()
    db = kenning_home / "kenning.db"
    before = [(p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(kenning_home.glob("kenning.db*"))]
    run_hook("claude-code", "PreToolUse", _edit(repo))
    run_hook("claude-code", "PreToolUse", _recall(repo))
    after = [(p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(kenning_home.glob("kenning.db*"))]
    assert after == before
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM hook_sessions").fetchone() == (0,)


def test_the_end_of_turn_reads_the_markers_and_records_them(repo: Path, kenning_home: Path) -> None:
    run_hook("claude-code", "PreToolUse", _edit(repo))
    stop = run_hook("claude-code", "Stop", claude(repo, "Stop", S))
    assert stop.answer is not None and stop.answer["decision"] == "block"
    with sqlite3.connect(kenning_home / "kenning.db") as conn:
        row = conn.execute("SELECT changed_files, recalled FROM hook_sessions WHERE session = ?",
                           (f"claude-code:{S}",)).fetchone()  # fmt: skip
    assert row == (1, 0)
    other = S[:-1] + "2"
    run_hook("claude-code", "PreToolUse", _edit(repo, other))
    run_hook("claude-code", "PreToolUse", _recall(repo, other))
    assert run_hook("claude-code", "Stop", claude(repo, "Stop", other)).stdout == ""
    with sqlite3.connect(kenning_home / "kenning.db") as conn:
        row = conn.execute("SELECT changed_files, recalled FROM hook_sessions WHERE session = ?",
                           (f"claude-code:{other}",)).fetchone()  # fmt: skip
    assert row == (1, 1)


def test_codex_patch_and_gemini_write_are_edits(repo: Path, kenning_home: Path) -> None:
    patch = "*** Begin Patch\n*** Add File: notes.md\n+hello\n*** End Patch"
    run_hook("codex", "PreToolUse", codex(repo, "PreToolUse", S, tool_name="apply_patch", tool_input={"command": patch}))
    run_hook("gemini", "BeforeTool", gemini(repo, "BeforeTool", S, tool_name="write_file",
                                            tool_input={"file_path": str(repo / "x.md"), "content": "x"}))  # fmt: skip
    run_hook("gemini", "BeforeTool", gemini(repo, "BeforeTool", S, tool_name="mcp_kenning_recall",
                                            tool_input={"query": "x"}))  # fmt: skip
    home = str(kenning_home)
    assert sessionmarks.has(home, "codex", S, sessionmarks.CHANGED_FILES)
    assert not sessionmarks.has(home, "codex", S, sessionmarks.RECALLED)
    assert sessionmarks.has(home, "gemini", S, sessionmarks.CHANGED_FILES)
    assert sessionmarks.has(home, "gemini", S, sessionmarks.RECALLED)
    assert not (kenning_home / "kenning.db").exists()


def test_old_markers_are_pruned(kenning_home: Path) -> None:
    home = str(kenning_home)
    assert sessionmarks.mark(home, "claude-code", "old", sessionmarks.CHANGED_FILES)
    assert not sessionmarks.mark(home, "claude-code", "old", sessionmarks.CHANGED_FILES)
    assert sessionmarks.mark(home, "claude-code", "new", sessionmarks.RECALLED)
    old = Path(sessionmarks.path(home, "claude-code", "old", sessionmarks.CHANGED_FILES))
    os.utime(old, (time.time() - 40 * 86400, time.time() - 40 * 86400))
    assert sessionmarks.prune(home, time.time()) == 1
    assert not old.exists() and sessionmarks.has(home, "claude-code", "new", sessionmarks.RECALLED)
