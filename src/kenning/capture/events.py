"""The one normalised shape every source produces, whatever tool wrote the transcript."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Roles: "user" is only text a person typed; "assistant" is the agent's prose; "tool" is a tool
# result; "summary" is a compaction summary or session title written by the tool.
ROLES = ("user", "assistant", "tool", "summary")


@dataclass(frozen=True)
class ToolCall:
    name: str
    summary: str  # a short, human-readable form of the input (command, path, pattern)
    # Memory refs anywhere in the whole input (``remember(used=[…])``, a ref in a command): the
    # memory report counts them as citations, and the summary keeps only one field of the input.
    refs: tuple[str, ...] = ()


def refs_of(value: Any) -> tuple[str, ...]:
    """The memory refs (``m:`` + 8 hex) anywhere in a tool call's input, each once."""
    from kenning.refscan import refs_in

    if isinstance(value, str):
        return tuple(refs_in(value))
    try:
        import json

        return tuple(refs_in(json.dumps(value, ensure_ascii=False)))
    except (TypeError, ValueError):
        return ()


@dataclass(frozen=True)
class Event:
    session: str  # tool-qualified session id, e.g. "claude:9f1c…", "codex:0199…"
    tool: str  # "claude-code" | "codex" | "gemini" | "opencode"
    uid: str  # stable id of this event inside its session (line uuid, message id)
    role: str
    text: str
    time: str  # ISO-8601 UTC as the tool wrote it ("" when unknown)
    cwd: str = ""
    branch: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    files: tuple[str, ...] = ()  # files the agent read, wrote or edited in this event
    subagent: str = ""  # subagent id when the event comes from a subagent transcript


@dataclass
class ReadResult:
    """What one read of a transcript file gives: new events and where the next read starts.

    ``context`` carries what a later incremental read needs (session id, cwd, branch) because
    those appear only near the start of some formats; it is stored with the file's offset.
    ``replace`` means the events are the whole session (formats that rewrite in place):
    the store drops the file's earlier turns first.
    """

    events: list[Event]
    offset: int
    context: dict[str, Any] = field(default_factory=dict)
    replace: bool = False
    skipped_lines: int = 0


@dataclass(frozen=True)
class SourceFile:
    tool: str
    path: Path
    # "append": JSONL read from a byte offset; "whole": re-read entirely when it changes.
    mode: str = "append"
    # For sources inside a database (OpenCode): the session id inside the file.
    key: str = ""

    @property
    def ledger_key(self) -> str:
        return f"{self.path}#{self.key}" if self.key else str(self.path)


# What capture keeps of a tool's output and of a call's input (the command, the path). Sources
# hand over the whole text; sync redacts it and only then cuts it to these lengths
# (kenning.redacted.head), so no token is ever cut in two before it could be recognised.
TOOL_TEXT_LIMIT = 2000
CALL_SUMMARY_LIMIT = 200


def text_of(value: Any) -> str:
    """A transcript value as text, whole (cut only after redaction, by sync)."""
    return value if isinstance(value, str) else ("" if value is None else str(value))
