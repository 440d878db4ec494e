"""The holdout: one session in four, decided once and stable, recorded on the session, and
not pointed at memory (no recall line, no first-prompt ask, no end-of-turn ask, no lessons)."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

from hookrun_helper import claude, run_hook

from kenning.domain.holdout import by_hash

S = "401d0000-0000-4000-8000-000000000001"


def test_holdout_session_is_not_pointed_at_memory(repo: Path, kenning_home: Path) -> None:
    start = run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", S), holdout="on")
    assert "Project shop" in start.context and "recall" not in start.context
    first = run_hook("claude-code", "UserPromptSubmit", claude(repo, "UserPromptSubmit", S), holdout="on")
    assert "recall" not in first.context
    write = claude(repo, "PreToolUse", S, tool_name="Write", tool_input={"file_path": str(repo / "x.py"), "content": ""})
    run_hook("claude-code", "PreToolUse", write, holdout="on")
    assert run_hook("claude-code", "Stop", claude(repo, "Stop", S), holdout="on").stdout == ""
    with sqlite3.connect(kenning_home / "kenning.db") as conn:
        assert conn.execute("SELECT holdout FROM hook_sessions WHERE session = ?", (f"claude-code:{S}",)).fetchone() == (1,)


def test_group_is_decided_once_from_the_session_id() -> None:
    ids = [str(uuid.UUID(int=i * 7919 + 13)) for i in range(4000)]
    share = sum(by_hash(i) for i in ids) / len(ids)
    assert 0.22 < share < 0.28
    assert all(by_hash(i) == by_hash(i) for i in ids[:50])


def test_unforced_session_follows_its_hash_and_it_is_recorded(repo: Path, kenning_home: Path) -> None:
    held = next(s for s in (f"sess-{i}" for i in range(100)) if by_hash(s))
    normal = next(s for s in (f"sess-{i}" for i in range(100)) if not by_hash(s))
    assert "recall" not in run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", held), holdout=None).context
    assert "recall" in run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", normal), holdout=None).context
    with sqlite3.connect(kenning_home / "kenning.db") as conn:
        rows = dict(conn.execute("SELECT session, holdout FROM hook_sessions").fetchall())
    assert rows == {f"claude-code:{held}": 1, f"claude-code:{normal}": 0}
