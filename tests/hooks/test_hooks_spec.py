"""What `kenning install` writes for each tool: events, matchers, timeouts, command line."""

from __future__ import annotations

import shlex
import subprocess

from kenning.hooks.events import KINDS
from kenning.install.hooks_spec import hook_entries


def test_claude_code_entries() -> None:
    entries = hook_entries("claude-code", "/opt/kenning/bin/kenning-hook")
    assert set(entries) == {"SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "SessionEnd"}
    [pre] = entries["PreToolUse"]
    assert "mcp__kenning__recall" in pre["matcher"].split("|") and "Bash" in pre["matcher"].split("|")
    for event, groups in entries.items():
        handler = groups[0]["hooks"][0]
        assert handler == {"type": "command", "command": f"/opt/kenning/bin/kenning-hook claude-code {event}",
                           "timeout": handler["timeout"]}  # fmt: skip
        assert 1 <= handler["timeout"] <= 10  # seconds


def test_codex_and_gemini_entries() -> None:
    codex = hook_entries("codex", "kh")
    assert set(codex) == {"SessionStart", "UserPromptSubmit", "PreToolUse", "Stop"}
    gemini = hook_entries("gemini-cli", "kh")
    assert set(gemini) == {"SessionStart", "BeforeAgent", "BeforeTool", "AfterAgent", "SessionEnd"}
    assert gemini["BeforeTool"][0]["hooks"][0]["command"] == "kh gemini BeforeTool"
    assert all(event in KINDS for spec in (codex, gemini) for event in spec)
    assert hook_entries("cursor") == {}


def test_default_command_runs() -> None:
    command = hook_entries("claude-code")["Stop"][0]["hooks"][0]["command"]
    done = subprocess.run(shlex.split(command), input=b"", capture_output=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout == b""
