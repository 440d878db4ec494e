"""A session's words (its first prompt, its last reply) reach the store redacted, written by a
detached process the hook hands them to through a pipe; other sessions see them quoted in the
"Others" line, never a secret."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from hookrun_helper import claude, run_hook

S = "c0de0000-0000-4000-8000-000000000001"
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # a GitHub token's shape


def _row(home: Path, key: str) -> tuple[str, str] | None:
    with sqlite3.connect(home / "kenning.db") as conn:
        row = conn.execute("SELECT opening, last_message FROM hook_sessions WHERE session = ?", (key,)).fetchone()
    return (str(row[0]), str(row[1])) if row else None


def _wait_for(home: Path, key: str, done: object) -> tuple[str, str]:
    deadline = time.monotonic() + 60
    row = _row(home, key)
    while time.monotonic() < deadline and not (row and done(row)):  # type: ignore[operator]
        time.sleep(0.2)
        row = _row(home, key)
    assert row is not None
    return row


def test_words_are_written_detached_and_redacted(repo: Path, kenning_home: Path) -> None:
    background = {"KENNING_BACKGROUND": "on"}
    run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", S), env=background)
    prompt = f"Deploy with token {SECRET} and then check the login page works again."
    asked = run_hook("claude-code", "UserPromptSubmit", claude(repo, "UserPromptSubmit", S, prompt=prompt),
                     env=background)  # fmt: skip
    assert "call `recall` with this task" in asked.context
    opening, _ = _wait_for(kenning_home, f"claude-code:{S}", lambda r: r[0])
    assert SECRET not in opening and "Deploy with token" in opening and "[secret]" in opening
    reply = f"Done; I used {SECRET} once."
    run_hook("claude-code", "Stop", claude(repo, "Stop", S, last_assistant_message=reply), env=background)
    _, last = _wait_for(kenning_home, f"claude-code:{S}", lambda r: r[1])
    assert SECRET not in last and last.startswith("Done; I used")
    other = run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", S[:-1] + "2"), env=background)
    assert 'asked «Deploy with token [secret]' in other.context and SECRET not in other.context
    raw = b"".join(p.read_bytes() for p in kenning_home.rglob("*") if p.is_file())
    assert SECRET.encode() not in raw


def test_without_background_the_hook_writes_them_itself(repo: Path, kenning_home: Path) -> None:
    prompt = f"Deploy with token {SECRET} and then check the login page works again."
    run_hook("claude-code", "UserPromptSubmit", claude(repo, "UserPromptSubmit", S, prompt=prompt))
    opening, _ = _row(kenning_home, f"claude-code:{S}") or ("", "")
    assert opening.startswith("Deploy with token [secret]")
