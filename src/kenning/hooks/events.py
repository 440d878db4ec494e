"""One normalised event per hook payload, whatever tool sent it.

Payloads change between releases: unknown fields are ignored, missing ones default, and a
payload that is not a JSON object gives no event (the hook then stays silent).
"""

from __future__ import annotations

from kenning.toolnames import call_kind

TOOLS = ("claude-code", "codex", "gemini")
ALIASES = {"gemini-cli": "gemini", "claude": "claude-code"}

KINDS = {
    "SessionStart": "start", "UserPromptSubmit": "prompt", "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool", "Stop": "stop", "SessionEnd": "end",
    "BeforeAgent": "prompt", "BeforeTool": "pre_tool", "AfterTool": "post_tool", "AfterAgent": "stop",
}  # fmt: skip
# Lessons go out on the hook before the call in every tool: each can hold a call there
# (Claude Code and Codex PreToolUse ``permissionDecision: deny``, Gemini CLI BeforeTool
# ``decision: deny``), and the model reads the reason before it issues the call again.
LESSONS_ON = {"claude-code": "pre_tool", "codex": "pre_tool", "gemini": "pre_tool"}

PATCH_MARKS = ("*** Update File: ", "*** Add File: ", "*** Delete File: ")
# Prompts and replies are kept this long at most; whatever is stored of them is redacted from
# this whole text and cut only after (kenning.redacted.head), so this cut stays far beyond it.
PROMPT_CHARS = 20_000


class HookEvent:
    """One hook run's facts. A plain slotted class: ``dataclasses`` costs milliseconds to
    import, and this module is on every tool call's path."""

    __slots__ = ("tool", "name", "kind", "session_id", "cwd", "prompt", "source", "tool_name", "call_kind",
                 "command", "paths", "stop_hook_active", "last_message", "transcript_path")  # fmt: skip

    def __init__(self, *, tool: str, name: str, kind: str, session_id: str, cwd: str, prompt: str = "",
                 source: str = "", tool_name: str = "", call_kind: str = "", command: str = "",
                 paths: tuple[str, ...] = (), stop_hook_active: bool = False, last_message: str = "",
                 transcript_path: str = "") -> None:  # fmt: skip
        self.tool = tool  # claude-code | codex | gemini
        self.name = name  # the tool's own event name, echoed back in hookEventName
        self.kind = kind  # start | prompt | pre_tool | post_tool | stop | end | other
        self.session_id = session_id
        self.cwd = cwd
        self.prompt = prompt
        self.source = source
        self.tool_name = tool_name
        self.call_kind = call_kind  # shell | read | edit | recall | index | ""
        self.command = command  # a shell call's command; a recall call's query
        self.paths = paths
        self.stop_hook_active = stop_hook_active
        self.last_message = last_message
        self.transcript_path = transcript_path

    @property
    def lessons_here(self) -> bool:
        return self.kind == LESSONS_ON.get(self.tool) and self.call_kind in ("shell", "read", "edit")


def _s(value: object) -> str:
    return value if isinstance(value, str) else ""


def _command(tool_input: dict[str, object]) -> str:
    for key in ("command", "cmd"):
        value = tool_input.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            # Codex sends argv lists such as ["bash", "-lc", "npm test"]: the script is last.
            if len(value) >= 3 and value[1] in ("-lc", "-c"):
                return value[2]
            return " ".join(value)
    return ""


def _paths(name: str, tool_input: dict[str, object]) -> tuple[str, ...]:
    found: list[str] = []
    for key in ("file_path", "notebook_path", "absolute_path", "path", "filePath"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            found.append(value)
            break
    many = tool_input.get("paths")
    if isinstance(many, list):
        found.extend(p for p in many if isinstance(p, str))
    if name == "apply_patch" or not found:
        patch = _s(tool_input.get("input")) or _s(tool_input.get("patch")) or _s(tool_input.get("command"))
        found.extend(line[len(mark):].strip() for line in patch.splitlines()
                     for mark in PATCH_MARKS if line.startswith(mark))  # fmt: skip
    return tuple(found)


def normalise(tool: str, argv_event: str, payload: object) -> HookEvent | None:
    tool = ALIASES.get(tool, tool)
    if tool not in TOOLS or not isinstance(payload, dict):
        return None
    name = _s(payload.get("hook_event_name")) or argv_event
    kind = KINDS.get(name, "other")
    session_id = _s(payload.get("session_id")) or _s(payload.get("thread-id"))
    if not session_id:
        return None
    tool_name = _s(payload.get("tool_name"))
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        tool_input = {}
    ck = call_kind(tool_name) if tool_name else ""
    if ck == "edit" and tool_name == "apply_patch" and not tool_input and isinstance(payload.get("tool_input"), str):
        tool_input = {"input": payload["tool_input"]}
    last = _s(payload.get("last_assistant_message")) or _s(payload.get("prompt_response"))
    return HookEvent(
        tool=tool, name=name, kind=kind, session_id=session_id[:200], cwd=_s(payload.get("cwd")),
        prompt=_s(payload.get("prompt"))[:PROMPT_CHARS] if kind == "prompt" else "",
        source=_s(payload.get("source")), tool_name=tool_name, call_kind=ck,
        command=_command(tool_input) if ck == "shell" else _s(tool_input.get("query")) if ck == "recall" else "",
        paths=_paths(tool_name, tool_input) if ck in ("read", "edit") else (),
        stop_hook_active=payload.get("stop_hook_active") is True, last_message=last[:PROMPT_CHARS],
        transcript_path=_s(payload.get("transcript_path")) if kind == "end" else "",
    )  # fmt: skip
