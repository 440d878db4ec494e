"""The hook state store: the sessions the hooks saw (with the holdout group each was put in),
what each session was shown once, when a project was last asked something, and the lesson
stamp that says when the compiled trigger file is out of date. Every method names its
workspace.

Rows are typed named tuples rather than frozen dataclasses: the hook processes import these
on their way to the core, and a named tuple costs a tenth of a dataclass to define.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import NamedTuple, Protocol

from kenning.redacted import Redacted

# What ``update_session`` may change.
SESSION_FIELDS = frozenset({
    "project", "branch", "cwd", "last_seen", "ended_at", "holdout", "task_id", "first_prompt_at", "opening",
    "last_message", "recalled", "changed_files", "stop_asked", "prompts",
})  # fmt: skip

# Where a memory can be handed to a session (kenning.core.deliveries says what each means).
CHANNELS = ("brief", "card", "index", "lesson", "recall", "note")


class SessionRow(NamedTuple):
    session: str  # "<tool>:<the tool's session id>"
    tool: str
    workspace: str
    project: str
    branch: str
    cwd: str
    started_at: datetime
    last_seen: datetime
    ended_at: datetime | None
    holdout: bool
    task_id: int | None
    first_prompt_at: datetime | None
    opening: Redacted  # the first prompt, cut
    last_message: Redacted  # the last reply, cut
    recalled: bool
    changed_files: bool
    stop_asked: bool
    prompts: int


class DeliveryRow(NamedTuple):
    workspace: str
    session: str  # "<tool>:<id>" as the hooks key it; "" when the session was not known
    channel: str  # one of CHANNELS
    ref: str
    project: str
    tool: str
    at: datetime


class HookStateStore(Protocol):
    def lesson_stamp(self, workspace: str) -> int:
        """A number that changes whenever a lesson, a trigger or a citation changes (the tool-call
        hook rebuilds its trigger file when it moved)."""
        ...

    # sessions
    def session(self, workspace: str, key: str) -> SessionRow | None: ...
    def add_session(self, row: SessionRow) -> None:
        """Register a session; one already registered is left as it is."""
        ...

    def update_session(self, workspace: str, key: str, **fields: object) -> None:
        """Change the named fields (of :data:`SESSION_FIELDS`) of one session; text fields are
        redacted when they are not already."""
        ...

    def live_sessions(self, workspace: str, project: str, since: datetime) -> list[SessionRow]:
        """Sessions of a project seen since ``since`` that have not ended, latest seen first."""
        ...

    def all_sessions(self, workspace: str) -> list[SessionRow]:
        """Every session, the earliest started first."""
        ...

    def forget_session(self, workspace: str, session_id: str) -> None:
        """What the hooks kept of a captured session (``claude:<id>`` or its raw id), deleted:
        its row, what it was shown and what was delivered to it."""
        ...

    # shown once
    def shown(self, workspace: str, session: str, what: str) -> set[str]: ...
    def shown_rows(self, workspace: str, session: str) -> list[tuple[str, str, datetime]]:
        """Everything the session was shown once: ``(what, key, at)``, oldest first."""
        ...

    def mark_shown(self, workspace: str, session: str, what: str, keys: Iterable[str], at: datetime) -> None: ...
    def shown_count(self, workspace: str, what: str, key: str) -> int:
        """How many sessions were shown ``key`` (a lesson's ref, ...)."""
        ...

    # deliveries: what each channel handed each session (the memory report counts them)
    def add_deliveries(self, workspace: str, session: str, channel: str, refs: Iterable[str], project: str, tool: str,
                       at: datetime) -> None:  # fmt: skip
        """Record that ``channel`` (one of :data:`CHANNELS`, else ValueError) handed ``refs`` to
        ``session`` ("" when not known); a session's first delivery of a ref on a channel is
        the one kept."""
        ...

    def deliveries(self, workspace: str, since: datetime, until: datetime | None = None) -> list[DeliveryRow]:
        """Every memory handed out in ``workspace`` from ``since`` (to ``until``, exclusive), oldest first."""
        ...

    # asks
    def last_ask(self, workspace: str, project: str, what: str) -> datetime | None: ...
    def set_ask(self, workspace: str, project: str, what: str, at: datetime, session: str) -> None: ...
