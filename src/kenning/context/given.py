"""What a session was given and what it used, from what the hooks record today.

A captured transcript (``claude:<id>``), the hooks' session row (``claude-code:<id>``) and the
memories a session wrote or cited (whatever id its tool passed) name one session three ways;
:func:`session_ids` gives every spelling so each record is found.

What the hooks record (and so what this can say): the session's group (pointed or holdout),
whether it was started from a task, its first prompt, whether it called ``recall`` and changed
files, whether the end-of-turn ask was sent, the lessons and other agents' notes it was shown
once, and the memories it cited (``used``). The brief's exact text and ``recall``'s hits are
not stored, so they are not shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kenning.model import Memory
from kenning.store.protocol import MemoryFilter, SessionRow, UseRow

if TYPE_CHECKING:
    from kenning.core.service import Core

# Capture names its sources by a short tool name; hooks by the agent tool's own name.
CAPTURE_TO_HOOK = {"claude": "claude-code", "codex": "codex", "gemini": "gemini", "opencode": "opencode"}


def session_ids(session: str) -> list[str]:
    """Every spelling of one session id: as captured, as the hooks key it, and bare."""
    tool, sep, bare = session.partition(":")
    if not sep:
        return [session]
    ids = [session, bare]
    hook_tool = CAPTURE_TO_HOOK.get(tool)
    if hook_tool:
        ids.append(f"{hook_tool}:{bare}")
    capture_tool = next((c for c, h in CAPTURE_TO_HOOK.items() if h == tool), "")
    if capture_tool:
        ids.append(f"{capture_tool}:{bare}")
    return list(dict.fromkeys(ids))


@dataclass(frozen=True)
class Shown:
    what: str  # lesson | agent | handoff
    key: str
    at: datetime
    memory: Memory | None = None  # the lesson, when it is a memory


@dataclass(frozen=True)
class SessionRecord:
    ids: list[str]
    hooks: SessionRow | None  # None: the hooks never saw it (a tool without hooks, or before install)
    shown: list[Shown] = field(default_factory=list)
    used: list[tuple[UseRow, Memory | None]] = field(default_factory=list)
    wrote: list[Memory] = field(default_factory=list)

    @property
    def group(self) -> str:
        if self.hooks is None:
            return "unknown"
        return "holdout" if self.hooks.holdout else "pointed"


def record(core: Core, session: str) -> SessionRecord:
    """Everything recorded about ``session`` (any spelling of its id)."""
    ids = session_ids(session)
    hooks_row: SessionRow | None = None
    shown: list[Shown] = []
    hooks = core.stores.hooks
    for sid in ids:
        hooks_row = hooks.session(core.workspace, sid)
        if hooks_row is not None:
            break
    if hooks_row is not None:
        rows = hooks.shown_rows(core.workspace, hooks_row.session)
        lessons = {m.ref: m for m in core.store.get_many(core.workspace, [k for w, k, _ in rows if w == "lesson"])}
        shown = [Shown(w, k, at, lessons.get(k)) for w, k, at in rows]
    uses = sorted((u for sid in ids for u in core.store.uses_in_session(core.workspace, sid)), key=lambda u: u.at)
    used_memories = {m.ref: m for m in core.store.get_many(core.workspace, list(dict.fromkeys(u.ref for u in uses)))}
    used = [(u, used_memories.get(u.ref)) for u in uses]
    wrote: list[Memory] = []
    from kenning.core.browse import scope_keys
    from kenning.model import Status

    keys = scope_keys(core, "")
    for sid in ids:
        wrote += core.store.find(MemoryFilter(core.workspace, keys, statuses=tuple(Status), session=sid))
    return SessionRecord(ids, hooks_row, shown, used, sorted(wrote, key=lambda m: m.created_at))


def as_dict(rec: SessionRecord) -> dict[str, Any]:
    """The JSON shape (for an API)."""
    from kenning.clock import to_iso

    h = rec.hooks
    return {
        "ids": rec.ids,
        "group": rec.group,
        "hooks": None if h is None else {
            "session": h.session, "tool": h.tool, "project": h.project, "branch": h.branch,
            "started_at": to_iso(h.started_at), "ended_at": to_iso(h.ended_at) if h.ended_at else None,
            "task": h.task_id, "opening": h.opening, "recalled": h.recalled, "changed_files": h.changed_files,
            "asked_at_end": h.stop_asked, "prompts": h.prompts,
        },
        "shown": [{"what": s.what, "key": s.key, "at": to_iso(s.at)} for s in rec.shown],
        "used": [{"ref": u.ref, "tool": u.tool, "at": to_iso(u.at)} for u, _ in rec.used],
        "wrote": [m.ref for m in rec.wrote],
    }  # fmt: skip
