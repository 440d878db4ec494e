"""The recorded Claude Code 2.1.328 session, replayed through the hook as subprocesses."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hookrun_helper import claude, claude_payloads, run_hook, run_lines

from kenning.context.brief import LIMIT as BRIEF_LIMIT

SESSION = "5b0c7a1e-0000-4000-8000-000000000001"


def test_every_recorded_event_exits_0_and_answers_in_claude_format(repo: Path, kenning_home: Path) -> None:
    payloads = claude_payloads(repo, SESSION)
    answers = {}
    for payload in payloads:
        event = payload["hook_event_name"]
        run = run_hook("claude-code", event, payload)
        assert run.code == 0, run.stderr
        assert run.stderr == ""
        if run.answer is not None:
            answers.setdefault(event, run.answer)
            if "hookSpecificOutput" in run.answer:
                assert run.answer["hookSpecificOutput"]["hookEventName"] == event
    assert set(answers) == {"SessionStart", "UserPromptSubmit", "Stop"}
    brief = answers["SessionStart"]["hookSpecificOutput"]["additionalContext"]
    assert len(brief) <= BRIEF_LIMIT
    assert "Project shop · branch main" in brief
    assert "call `recall`" in brief
    assert "call `recall` with this task" in answers["UserPromptSubmit"]["hookSpecificOutput"]["additionalContext"]
    # The session wrote and edited files and never called recall: sent back, in Claude's shape.
    assert answers["Stop"]["decision"] == "block" and "recall" in answers["Stop"]["reason"]


def test_each_run_appends_one_log_line(repo: Path, kenning_home: Path) -> None:
    payloads = claude_payloads(repo, SESSION)
    for payload in payloads:
        run_hook("claude-code", payload["hook_event_name"], payload)
    lines = run_lines(kenning_home)
    assert len(lines) == len(payloads)
    assert [ln[1] for ln in lines] == [p["hook_event_name"] for p in payloads]
    for when, _hook, tool, ms in lines:
        assert when == "2026-03-02T09:00:00Z" and tool == "claude-code"
        assert float(ms) >= 0


def test_later_prompts_get_no_ask(repo: Path) -> None:
    run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", SESSION))
    first = run_hook("claude-code", "UserPromptSubmit", claude(repo, "UserPromptSubmit", SESSION))
    second = run_hook("claude-code", "UserPromptSubmit", claude(repo, "UserPromptSubmit", SESSION, prompt="Now also fix the signup test please."))
    assert "recall" in first.context
    assert second.stdout == ""


def test_a_prompt_shorter_than_8_characters_is_not_the_first(repo: Path) -> None:
    short = run_hook("claude-code", "UserPromptSubmit", claude(repo, "UserPromptSubmit", SESSION, prompt="hi"))
    real = run_hook("claude-code", "UserPromptSubmit", claude(repo, "UserPromptSubmit", SESSION, prompt="Fix the login test on CI."))
    assert short.stdout == ""
    assert "call `recall` with this task" in real.context


def test_resume_gives_the_brief_again(repo: Path) -> None:
    run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", SESSION))
    again = run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", SESSION, source="resume"))
    assert again.answer is not None
    assert again.answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "Project shop" in again.context


def test_wake_up_bundle_follows_the_brief_when_set(repo: Path, kenning_home: Path) -> None:
    kenning_home.mkdir(parents=True, exist_ok=True)
    (kenning_home / "identity.txt").write_text("I am the shop's backend maintainer.\n")
    plain = run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", "wk-1")).context
    assert "backend maintainer" not in plain  # off by default
    done = subprocess.run([sys.executable, "-m", "kenning.cli", "config", "set", "start.wakeup", "on"], cwd=repo,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    woken = run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", "wk-2")).context
    assert woken.startswith("kenning · Project shop") and len(woken) > len(plain)
    assert "backend maintainer" in woken
