"""End of turn: a session that changed files and never called recall is sent back once; never
twice, never one that recalled, never one started from a task; stop_hook_active respected."""

from __future__ import annotations

from pathlib import Path

from hookrun_helper import claude, codex, gemini, run_hook

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core import work
from kenning.core.service import Core

S = "570b0000-0000-4000-8000-000000000001"


def edit(repo: Path, session: str) -> None:
    payload = claude(repo, "PreToolUse", session, tool_name="Write",
                     tool_input={"file_path": str(repo / "notes.md"), "content": "x"})  # fmt: skip
    assert run_hook("claude-code", "PreToolUse", payload).stdout == ""


def stop(repo: Path, session: str, **fields: object) -> dict[str, object] | None:
    return run_hook("claude-code", "Stop", claude(repo, "Stop", session, **fields)).answer


def test_sent_back_once_never_twice(repo: Path) -> None:
    edit(repo, S)
    answer = stop(repo, S)
    assert answer is not None and answer["decision"] == "block" and "`recall`" in str(answer["reason"])
    assert stop(repo, S, stop_hook_active=True) is None
    assert stop(repo, S) is None  # a later turn: never asked twice


def test_no_ask_without_changed_files(repo: Path) -> None:
    read = claude(repo, "PreToolUse", S, tool_name="Read", tool_input={"file_path": str(repo / "README.md")})
    run_hook("claude-code", "PreToolUse", read)
    assert stop(repo, S) is None


def test_no_ask_after_a_recall_call(repo: Path) -> None:
    edit(repo, S)
    recall = claude(repo, "PreToolUse", S, tool_name="mcp__kenning__recall", tool_input={"query": "login test on CI"})
    assert run_hook("claude-code", "PreToolUse", recall).stdout == ""
    assert stop(repo, S) is None


def test_stop_hook_active_is_respected(repo: Path) -> None:
    edit(repo, S)
    assert stop(repo, S, stop_hook_active=True) is None
    assert stop(repo, S) is not None  # the ask was not spent on the continuation


def test_no_ask_in_a_session_started_from_a_task(repo: Path, kenning_home: Path) -> None:
    core = Core.open(Settings(home=kenning_home), FixedClock())
    try:
        task = work.add_task(core, core.place(repo), "Fix the login test", "CI fails on TZ")
        work.start_task(core, task, cwd=str(repo))
    finally:
        core.close()
    start = run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", S), now="2026-01-01T12:05:00Z")
    assert start.context.startswith(f"kenning task #{task}: Fix the login test")
    first = run_hook("claude-code", "UserPromptSubmit", claude(repo, "UserPromptSubmit", S), now="2026-01-01T12:06:00Z")
    assert "call `recall` with this task" not in first.context
    edit(repo, S)
    assert stop(repo, S) is None
    # A second session opened in the run's folder gets the ordinary brief.
    other = run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", S + "-2"), now="2026-01-01T12:07:00Z")
    assert other.context.startswith("kenning · Project shop")


def test_codex_and_gemini_send_back_in_their_formats(repo: Path) -> None:
    run_hook("codex", "PreToolUse", codex(repo, "PreToolUse", S, tool_name="apply_patch",
                                            tool_input={"command": "*** Begin Patch\n*** Update File: a.py\n*** End Patch"}))  # fmt: skip
    answer = run_hook("codex", "Stop", codex(repo, "Stop", S)).answer
    assert answer is not None and answer["decision"] == "block" and answer["reason"]
    run_hook("gemini", "AfterTool", gemini(repo, "AfterTool", S, tool_name="write_file",
                                              tool_input={"file_path": str(repo / "a.py"), "content": "x"},
                                              tool_response={"llmContent": "ok"}))  # fmt: skip
    answer = run_hook("gemini", "AfterAgent", gemini(repo, "AfterAgent", S)).answer
    assert answer is not None and answer["decision"] == "deny" and "recall" in answer["reason"]
    assert run_hook("gemini", "AfterAgent", gemini(repo, "AfterAgent", S)).stdout == ""


def test_gemini_recall_tool_counts(repo: Path) -> None:
    run_hook("gemini", "AfterTool", gemini(repo, "AfterTool", S, tool_name="write_file",
                                              tool_input={"file_path": str(repo / "a.py"), "content": "x"}))  # fmt: skip
    run_hook("gemini", "AfterTool", gemini(repo, "AfterTool", S, tool_name="mcp_kenning_recall",
                                              tool_input={"query": "why TZ"}))  # fmt: skip
    assert run_hook("gemini", "AfterAgent", gemini(repo, "AfterAgent", S)).stdout == ""
