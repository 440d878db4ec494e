"""Bad input and the hook's own faults: always exit 0, no output; faults are logged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hookrun_helper import claude, gemini, run_hook, run_lines

SESSION = "9d1e2f30-0000-4000-8000-00000000000b"


@pytest.mark.parametrize("raw", [b"", b"   \n", b"{not json", b"[1, 2, 3]", b'"a string"', b"null",
                                 b'{"hook_event_name": "PreToolUse"}', b"\xff\xfe\x00garbage"])  # fmt: skip
@pytest.mark.parametrize("tool,event", [("claude-code", "PreToolUse"), ("codex", "Stop"), ("gemini", "AfterTool")])
def test_malformed_or_empty_stdin_is_silent(tool: str, event: str, raw: bytes, kenning_home: Path) -> None:
    run = run_hook(tool, event, None, raw=raw)
    assert run.code == 0
    assert run.stdout == "" and run.stderr == ""
    assert len(run_lines(kenning_home)) == 1


def test_malformed_payload_is_noted_in_the_error_log(kenning_home: Path) -> None:
    run_hook("claude-code", "UserPromptSubmit", None, raw=b"{oops")
    assert "not a claude-code hook event" in (kenning_home / "hook-errors.log").read_text()


def test_unknown_tool_and_no_arguments_are_silent(repo: Path) -> None:
    payload = claude(repo, "SessionStart", SESSION)
    assert run_hook("cursor", "SessionStart", payload).stdout == ""
    assert run_hook("", "", payload).stdout == ""


def test_huge_stdin(repo: Path) -> None:
    big = "x" * 5_000_000
    write = claude(repo, "PreToolUse", SESSION, tool_name="Write",
                   tool_input={"file_path": str(repo / "big.txt"), "content": big})  # fmt: skip
    assert run_hook("claude-code", "PreToolUse", write).code == 0
    prompt = run_hook("claude-code", "UserPromptSubmit", claude(repo, "UserPromptSubmit", SESSION, prompt="Fix this: " + big))
    assert prompt.code == 0
    assert len(prompt.context) < 10_000


def test_own_fault_is_logged_and_silent(repo: Path, kenning_home: Path) -> None:
    kenning_home.mkdir(parents=True, exist_ok=True)
    (kenning_home / "kenning.db").write_bytes(b"this is not a database" * 100)
    run = run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", SESSION))
    assert run.code == 0 and run.stdout == ""
    log = (kenning_home / "hook-errors.log").read_text()
    assert "SessionStart" in log and "claude-code" in log and "Traceback" in log
    assert run_lines(kenning_home)[-1][1] == "SessionStart"


def test_unknown_fields_and_missing_optional_ones_are_tolerated(repo: Path) -> None:
    payload = gemini(repo, "BeforeAgent", SESSION, prompt="Explain the deploy script to me", brand_new_field={"x": 1})
    run = run_hook("gemini", "BeforeAgent", payload)
    assert run.code == 0
    answer = json.loads(run.stdout)
    assert answer["hookSpecificOutput"]["hookEventName"] == "BeforeAgent"
    minimal = {"session_id": SESSION + "-2", "hook_event_name": "SessionStart"}
    assert run_hook("claude-code", "SessionStart", minimal).code == 0
