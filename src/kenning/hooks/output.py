"""Answers in each tool's own format.

Claude Code and Codex: ``hookSpecificOutput`` whose ``hookEventName`` equals the event (Claude
Code rejects any other), ``{"decision": "block", "reason": …}`` to send a turn back, and
``permissionDecision: "deny"`` with a ``permissionDecisionReason`` to hold a tool call.
Gemini CLI: stdout must be JSON only; a turn is sent back, or a tool call held, with
``decision: "deny"`` and a ``reason``. Nothing to say means no output at all.
"""

from __future__ import annotations

from kenning.jsonfast import dumps  # not the json package: it costs milliseconds to import

# Claude Code spills context over 10,000 characters into a file; stay well below it.
MAX_CONTEXT = 9000


def context(tool: str, event_name: str, text: str) -> str:
    if not text.strip():
        return ""
    body = {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text[:MAX_CONTEXT]}}
    return dumps(body)


def send_back(tool: str, event_name: str, reason: str) -> str:
    decision = "deny" if tool == "gemini" else "block"
    return dumps({"decision": decision, "reason": reason})


def hold(tool: str, event_name: str, reason: str) -> str:
    """Hold a tool call once: the call does not run, and the model reads ``reason`` (as the
    call's error) before it issues the call again. Used to hand a lesson over before the call
    it is about, in every tool whose pre-call hook can refuse a call."""
    if tool == "gemini":  # BeforeTool: the reason reaches the model as the tool's error
        return dumps({"decision": "deny", "reason": reason[:MAX_CONTEXT]})
    body = {"hookSpecificOutput": {"hookEventName": event_name, "permissionDecision": "deny",
                                   "permissionDecisionReason": reason[:MAX_CONTEXT]}}  # fmt: skip
    return dumps(body)
