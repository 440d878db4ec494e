"""The memory model: plain frozen values that every layer shares."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum

from kenning.redacted import EMPTY, Redacted


class Kind(StrEnum):
    DECISION = "decision"
    PREFERENCE = "preference"
    STATE = "state"
    FACT = "fact"
    LESSON = "lesson"


class Origin(StrEnum):
    PERSON = "person"
    AGENT = "agent"
    AUTOMATION = "automation"
    APP = "app"
    WIDGET = "widget"


class Status(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    RETIRED = "retired"


class Citation(StrEnum):
    SAME = "same"
    CHANGED = "changed"
    GONE = "gone"
    UNCHECKED = "unchecked"


class TriggerTool(StrEnum):
    SHELL = "shell"
    READ = "read"
    EDIT = "edit"


@dataclass(frozen=True)
class Trigger:
    """A lesson's trigger: a shell regex, or a read/edit file glob."""

    tool: TriggerTool
    pattern: str

    def to_text(self) -> str:
        return f"{self.tool.value}:{self.pattern}"

    @classmethod
    def from_text(cls, text: str) -> Trigger:
        tool, _, pattern = text.partition(":")
        return cls(TriggerTool(tool), pattern)


GLOBAL_SCOPE = "global"
PERSONAL_SCOPE = "personal"

DECISION_CONFIDENCE = {"high": 0.95, "medium": 0.8, "low": 0.6}


@dataclass(frozen=True)
class Memory:
    ref: str
    workspace: str
    scope: str  # a project key, a group key, "personal" or "global"
    text: Redacted
    kind: Kind
    confidence: float
    origin: Origin
    created_at: datetime
    confirmed_at: datetime
    reason: Redacted = EMPTY
    rejected: Redacted = EMPTY
    trigger: Trigger | None = None
    status: Status = Status.ACTIVE
    status_at: datetime | None = None  # when it stopped being active (superseded/retired)
    status_note: Redacted = EMPTY  # why retired, or the ref that superseded it
    subject: str = ""
    origin_tool: str = ""
    session: str = ""
    branch: str = ""
    pinned: bool = False
    index_pinned: bool = False
    hidden: bool = False
    held: bool = False
    protected: bool = False
    source_ref: str = ""
    source_hash: str = ""
    citation: Citation = Citation.UNCHECKED
    tags: tuple[str, ...] = ()
    last_used_at: datetime | None = None
    uses: int = 0
    confirmations: int = 0
    recalled: int = 0

    def evolve(self, **changes: object) -> Memory:
        return replace(self, **changes)  # type: ignore[arg-type]

    @property
    def is_global(self) -> bool:
        return self.scope == GLOBAL_SCOPE

    @property
    def from_widget(self) -> bool:
        return self.origin is Origin.WIDGET


class Placing(StrEnum):
    """Where a person decided a memory goes (seed 000, "Deciding where a memory goes")."""

    ALWAYS = "always"  # always give this here: first in the index of a project or group
    NOT_HERE = "not-here"  # not relevant here: never reaches that project or group
    NO_AGENT_RUNS = "no-agent-runs"  # never for agent runs: kept out of every task card


@dataclass(frozen=True)
class Placement:
    """One such decision on one memory. ``place`` is the project or group key it holds for
    ("" for ``no-agent-runs``, which holds everywhere)."""

    ref: str
    workspace: str
    decision: Placing
    place: str
    created_at: datetime
    by: str = ""  # who decided: cli, web, or an MCP client's name


@dataclass(frozen=True)
class MemoryEvent:
    ref: str
    at: datetime
    event: str  # created, confirmed, superseded, retired, brought_back, pinned, hidden, ...
    detail: str = ""
    other_ref: str = ""


@dataclass(frozen=True)
class DecisionDoc:
    id: int
    workspace: str
    scope: str
    title: Redacted
    decision: Redacted
    reason: Redacted
    rejected: Redacted
    confidence: float
    source_ref: str
    outcome: tuple[Redacted, ...]
    memory_ref: str
    author: str
    created_at: datetime
    updated_at: datetime
    area: str = ""

    OUTCOME_PENDING = "To be determined."


@dataclass(frozen=True)
class ReviewItem:
    id: int
    workspace: str
    scope: str
    kind: str  # contradiction | merge | retire | lesson
    payload: dict[str, object]
    proposed_by: str
    created_at: datetime
    resolved_at: datetime | None = None
    resolution: str = ""
    batch: str = ""
    refs: tuple[str, ...] = field(default_factory=tuple)
