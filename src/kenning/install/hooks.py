"""Which hook entries kenning writes into each agent tool's config.

The per-tool spec lives in :mod:`kenning.install.hooks_spec` (written with the hooks):
``hook_entries(tool) -> {"Event": [{"matcher": ..., "hooks": [{"type": "command",
"command": "kenning hook <tool> <event>", "timeout": <seconds>}]}]}``. A command that starts
with the word ``kenning`` is rewritten to the absolute path of the running executable, and
Gemini CLI's timeouts are written in milliseconds (its unit).
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import json
import shlex
from typing import Any

Json = dict[str, Any]

# Codex keys each hook's trust by the event's snake_case label (codex-rs hooks discovery).
CODEX_EVENT_KEYS = {
    "SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit", "PreToolUse": "pre_tool_use",
    "PostToolUse": "post_tool_use", "Stop": "stop", "PermissionRequest": "permission_request",
    "PreCompact": "pre_compact", "PostCompact": "post_compact", "SessionEnd": "session_end",
    "StopFailure": "stop_failure", "SubagentStart": "subagent_start", "SubagentStop": "subagent_stop",
}  # fmt: skip


def hook_entries(tool: str) -> Json:
    """The spec's entries for ``tool`` (claude-code, codex, gemini-cli), or {} while no spec exists."""
    try:
        spec: Any = importlib.import_module("kenning.install.hooks_spec")
    except ModuleNotFoundError as missing:
        if missing.name == "kenning.install.hooks_spec":
            return {}
        raise
    entries = spec.hook_entries(tool)
    return dict(entries) if entries else {}


def resolve(entries: Json, executable: str, *, milliseconds: bool = False) -> Json:
    """Entries ready to write: absolute kenning command, timeouts in the tool's unit."""
    out = copy.deepcopy(entries)
    for groups in out.values():
        for group in groups:
            for handler in group.get("hooks", []):
                command = str(handler.get("command", ""))
                if command == "kenning" or command.startswith("kenning "):
                    handler["command"] = shlex.quote(executable) + command[len("kenning") :]
                timeout = handler.get("timeout")
                # A spec in seconds (< 1000) becomes milliseconds; one already in ms is kept.
                if milliseconds and isinstance(timeout, int | float) and timeout < 1000:
                    handler["timeout"] = int(timeout * 1000)
    return out


def codex_hook_hash(event: str, group: Json, handler: Json) -> str:
    """The ``trusted_hash`` Codex stores for a hook: sha256 over compact key-sorted JSON of the
    event label, the group's matcher (when set) and the handler with defaults filled in."""
    norm: Json = {
        "type": "command",
        "command": handler["command"],
        "timeout": max(1, int(handler.get("timeout") or handler.get("timeoutSec") or 600)),
        "async": bool(handler.get("async", False)),
    }
    if handler.get("statusMessage") is not None:
        norm["statusMessage"] = handler["statusMessage"]
    identity: Json = {"event_name": CODEX_EVENT_KEYS.get(event, event), "hooks": [norm]}
    if group.get("matcher") is not None:
        identity["matcher"] = group["matcher"]
    data = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(data.encode()).hexdigest()
