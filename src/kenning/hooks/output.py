"""Answers in each tool's own format.

Claude Code and Codex: ``hookSpecificOutput`` whose ``hookEventName`` equals the event (Claude
Code rejects any other), and ``{"decision": "block", "reason": …}`` to send a turn back.
Gemini CLI: stdout must be JSON only; a turn is sent back with ``decision: "deny"``.
Nothing to say means no output at all.
"""

from __future__ import annotations

# Claude Code spills context over 10,000 characters into a file; stay well below it.
MAX_CONTEXT = 9000


def context(tool: str, event_name: str, text: str) -> str:
    if not text.strip():
        return ""
    import json  # only when there is something to say: json costs milliseconds to import

    body = {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text[:MAX_CONTEXT]}}
    return json.dumps(body, ensure_ascii=False)


def send_back(tool: str, event_name: str, reason: str) -> str:
    import json

    decision = "deny" if tool == "gemini" else "block"
    return json.dumps({"decision": decision, "reason": reason}, ensure_ascii=False)
