"""Which hooks kenning installs in each agent tool: events, matchers, timeouts, command.

``hook_entries(tool)`` returns ``{"Event": [{"matcher": ..., "hooks": [{"type": "command",
"command": "<kenning-hook> <tool> <event>", "timeout": <seconds>}]}]}``. Timeouts are in
seconds for every tool; the installer writes Gemini CLI's in milliseconds (its unit). The
command is the absolute path of the ``kenning-hook`` launcher beside the running Python (it
starts in a fraction of the time ``kenning hook`` takes); without it, ``kenning hook``.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

# Claude Code: an exact-name list (letters, digits, _ and | only) is matched exactly.
CLAUDE_TOOLS = "Bash|Read|Edit|MultiEdit|Write|NotebookEdit|mcp__kenning__recall|mcp__kenning__memory_index"
# Gemini CLI matchers are regular expressions over its tool names.
GEMINI_TOOLS = "^(run_shell_command|read_file|read_many_files|write_file|replace|mcp_kenning_recall|mcp_kenning_memory_index)$"

# event -> (matcher or None, timeout in seconds)
SPECS: dict[str, dict[str, tuple[str | None, int]]] = {
    "claude-code": {
        "SessionStart": (None, 10),  # every source: startup, resume, clear, compact, fork
        "UserPromptSubmit": (None, 10),
        "PreToolUse": (CLAUDE_TOOLS, 5),
        "Stop": (None, 10),
        "SessionEnd": (None, 5),
    },
    "codex": {
        # Codex's tool names differ by version (Bash, shell, apply_patch, MCP tools): no matcher,
        # the hook's fast path drops a call it has nothing for in a few milliseconds.
        "SessionStart": (None, 10),
        "UserPromptSubmit": (None, 10),
        "PreToolUse": (None, 5),
        "Stop": (None, 10),
    },
    "gemini": {
        "SessionStart": (None, 10),
        "BeforeAgent": (None, 10),
        "BeforeTool": (GEMINI_TOOLS, 5),  # before the call: a lesson holds it once (decision: deny)
        "AfterAgent": (None, 10),
        "SessionEnd": (None, 5),
    },
}
ALIASES = {"gemini-cli": "gemini", "claude": "claude-code"}


def default_command() -> str:
    launcher = Path(sys.executable).parent / "kenning-hook"
    return shlex.quote(str(launcher)) if launcher.exists() else "kenning hook"


def hook_entries(tool: str, command: str | None = None) -> dict[str, Any]:
    """The entries for ``tool`` (claude-code, codex, gemini / gemini-cli); {} for a tool
    without hooks. ``command`` is the launcher (default: the absolute kenning-hook path)."""
    name = ALIASES.get(tool, tool)
    spec = SPECS.get(name)
    if spec is None:
        return {}
    base = command or default_command()
    entries: dict[str, Any] = {}
    for event, (matcher, timeout) in spec.items():
        group: dict[str, Any] = {}
        if matcher is not None:
            group["matcher"] = matcher
        group["hooks"] = [{"type": "command", "command": f"{base} {name} {event}", "timeout": timeout}]
        entries[event] = [group]
    return entries
