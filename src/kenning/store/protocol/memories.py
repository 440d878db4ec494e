"""The memory store: memories, their full-text index, history, uses, decision docs, reviews,
scopes, policies and small state.

Every backend implements this protocol and passes ``tests/store/test_store_contract.py``.
Every method names its workspace (an argument, or the ``workspace`` of the value it writes),
and nothing of another workspace is read or written.

``search`` must return Okapi BM25 (k1=1.2, b=0.75) over the four stemmed columns (text,
reason, tags, citation; equal weights), as a positive number, and its exact top ``limit``: it
chooses recall's candidates. The document length is the number of stemmed terms in the four
columns; idf is ``ln((N - n + 0.5) / (n + 0.5))`` (at least 1e-6), N the memories indexed and
n those holding the term, as in SQLite's FTS5. Each hit also carries the weighted frequency of
every term it holds and its length, from which recall computes its own score in Python
(kenning.core.ranking) with the statistics of ``index_stats``, so every backend that returns
the same candidates ranks them identically. The statistics are the workspace's; the SQLite
backend keeps one index per file and counts the whole file (a local store holds one
workspace, where the two agree).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple, Protocol

from kenning.model import (
    DecisionDoc,
    Kind,
    Memory,
    MemoryEvent,
    Origin,
    Placement,
    Placing,
    ReviewItem,
    Status,
)


@dataclass(frozen=True)
class ScopeRow:
    workspace: str
    key: str
    kind: str  # project | group | personal | global
    name: str
    root: str
    parent: str
    created_at: datetime
    removed_at: datetime | None = None


class Glance(NamedTuple):
    """What a look over every active memory reads of one (the health report), without decoding
    the rest of its row: thousands of these cost a fraction of as many :class:`Memory`."""

    ref: str
    scope: str
    text: str  # as stored: redacted on the way in
    session: str
    source_ref: str
    source_hash: str
    tagged: int  # 1 when it has a tag, else 0
    recalled: int


@dataclass(frozen=True)
class Hit:
    """A search candidate: the memory, its BM25 score and the stemmed terms it holds (of those
    searched for and those ``search`` was asked to ``report``)."""

    memory: Memory
    bm25: float
    terms: frozenset[str]
    # Every stemmed term of the memory's indexed columns, with its weighted frequency.
    freqs: Mapping[str, float] = field(default_factory=dict)
    length: int = 0


@dataclass(frozen=True)
class IndexStats:
    """What BM25 needs of the whole index: memories indexed, their mean length in terms, and
    how many hold each term asked about."""

    docs: int
    avgdl: float
    df: Mapping[str, int]


@dataclass(frozen=True)
class UseRow:
    ref: str
    session: str
    tool: str
    branch: str
    at: datetime


@dataclass(frozen=True)
class Tombstone:
    """What a forget left: the kind ("memory" or "session"), its ref or id, and for a memory a
    hash of its normalised text."""

    workspace: str
    kind: str
    key: str
    digest: str
    at: datetime


@dataclass(frozen=True)
class MemoryFilter:
    workspace: str
    scopes: Sequence[str]
    statuses: Sequence[Status] = (Status.ACTIVE,)
    kinds: Sequence[Kind] | None = None
    session: str | None = None
    with_trigger: bool | None = None
    source_ref_like: str | None = None
    pinned: bool | None = None  # True: pinned, or pinned to the project index; False: neither
    origins: Sequence[Origin] | None = None
    origin_tools: Sequence[str] | None = None  # the writer: cli, claude-code, codex, an app's name, ...
    # Unpinned memories with no activity (written, confirmed or used) at or after this time.
    idle_before: datetime | None = None
    # Only memories a session used at or after this time (``last_used_at``).
    used_since: datetime | None = None
    # Only memories written at or after this time.
    created_since: datetime | None = None


# Columns a listing may be counted by (``MemoryStore.facet_counts``).
FACETS = ("kind", "status", "origin", "origin_tool", "citation")


@dataclass(frozen=True)
class SessionWrites:
    """One session's memories in a set of scopes: how many, and when it wrote the first and last."""

    session: str
    memories: int
    active: int
    first_at: datetime
    last_at: datetime


@dataclass(frozen=True)
class TriggerRow:
    """A memory the tool-call hooks may deliver: an active lesson with a trigger, or a lesson
    or decision citing a file (none hidden, held or with its file gone)."""

    ref: str
    trigger: str | None  # Trigger.to_text() form, None for a citation only
    source_ref: str
    kind: Kind
    workspace: str
    scope: str
    created_at: str  # ISO text: the compiled trigger file orders by it as the store keeps it
    order: int  # the store's insertion order, to break ties between equal times


@dataclass(frozen=True)
class TidyCounts:
    """What the weekly tidy ask looks at in one project: memories that are not resting,
    preferences and decisions, lessons with a trigger."""

    awake: int
    preferences_and_decisions: int
    triggered_lessons: int


class MemoryStore(Protocol):
    def transaction(self) -> AbstractContextManager[object]:
        """One transaction (nested calls join it); the same one as the bundle's
        :meth:`kenning.store.protocol.Stores.transaction`."""
        ...

    # scopes
    def upsert_scope(self, scope: ScopeRow) -> None: ...
    def get_scope(self, workspace: str, key: str) -> ScopeRow | None: ...
    def list_scopes(self, workspace: str) -> list[ScopeRow]: ...

    # memories
    def insert(self, memory: Memory) -> None: ...
    def update(self, memory: Memory) -> None: ...
    def get(self, workspace: str, ref: str) -> Memory | None: ...
    def get_many(self, workspace: str, refs: Sequence[str]) -> list[Memory]: ...
    def by_subject(self, workspace: str, scopes: Sequence[str], subject: str) -> list[Memory]: ...
    def subjects(self, workspace: str, scopes: Sequence[str], kind: Kind) -> list[str]: ...
    def find(
        self, flt: MemoryFilter, *, offset: int = 0, limit: int | None = None, newest_first: bool = False
    ) -> list[Memory]: ...
    def count(self, flt: MemoryFilter) -> int: ...
    def facet_counts(self, flt: MemoryFilter, facet: str) -> dict[str, int]:
        """How many memories matching ``flt`` hold each value of ``facet`` (one of FACETS)."""
        ...

    def facet_groups(self, flt: MemoryFilter, facets: Sequence[str]) -> dict[tuple[str, ...], int]:
        """How many memories matching ``flt`` hold each combination of values of ``facets``
        (each one of FACETS): every facet of a listing from one pass."""
        ...

    def memory_scopes(self, workspace: str) -> list[str]:
        """Every scope key that holds a memory (some have no scope row: a project named by key)."""
        ...

    def sessions_written(self, workspace: str, scopes: Sequence[str], *, limit: int = 200) -> list[SessionWrites]:
        """The sessions that wrote memories in ``scopes``, the latest writer first."""
        ...

    def iter_all(self, workspace: str) -> Iterator[Memory]: ...
    def glances(self, workspace: str, scope: str | None = None) -> list[Glance]:
        """Every active memory of the workspace (or of one scope, by key), oldest first."""
        ...

    def session_scopes(self, workspace: str, sessions: Sequence[str]) -> list[tuple[str, str]]:
        """Each (session, scope) pair some memory of the workspace was written with by one of
        ``sessions``, whatever its status."""
        ...

    def revision(self, workspace: str) -> str:
        """A value that differs after any memory or scope of ``workspace`` changed (written by
        any process) and between two stores; equal values mean nothing a look over the
        workspace's memories depends on moved. (A backend may move it on other workspaces'
        writes too: SQLite keeps one counter.)"""
        ...

    def search(
        self, flt: MemoryFilter, terms: Sequence[str], *, limit: int, report: Sequence[str] = ()
    ) -> list[Hit]: ...
    def doc_freq(self, workspace: str, terms: Sequence[str]) -> tuple[int, dict[str, int]]: ...
    def index_stats(self, workspace: str, terms: Sequence[str]) -> IndexStats: ...
    def terms_with_prefix(self, workspace: str, prefix: str, limit: int) -> list[str]: ...
    def mark_recalled(self, workspace: str, refs: Sequence[str]) -> None: ...

    # history and use
    def add_event(self, workspace: str, event: MemoryEvent) -> None: ...
    def events(self, workspace: str, ref: str) -> list[MemoryEvent]: ...
    def add_use(self, workspace: str, use: UseRow) -> None: ...
    def uses(self, workspace: str, ref: str) -> list[UseRow]: ...
    def uses_in_session(self, workspace: str, session: str) -> list[UseRow]: ...
    def uses_since(self, workspace: str, since: datetime, until: datetime | None = None) -> list[UseRow]:
        """Every use of a memory of ``workspace`` recorded from ``since`` (to ``until``), oldest first."""
        ...

    def all_uses(self, workspace: str) -> list[UseRow]:
        """Every recorded use, the earliest first."""
        ...

    def use_sessions(self, workspace: str, refs: Sequence[str]) -> dict[str, int]:
        """How many distinct sessions used each of ``refs`` (refs never used are left out)."""
        ...

    # placements: where a person decided a memory goes
    def add_placement(self, placement: Placement) -> bool:
        """Record it; False when the same decision for the same place was there already."""
        ...

    def remove_placement(self, workspace: str, ref: str, decision: Placing, place: str) -> bool:
        """Undo it; False when there was nothing to undo."""
        ...

    def placements(self, workspace: str, refs: Sequence[str]) -> list[Placement]:
        """Every placement of these memories, oldest first."""
        ...

    def placed(self, workspace: str, decision: Placing, places: Sequence[str]) -> list[Placement]:
        """Every ``decision`` that holds for one of ``places`` (project or group keys; "" is
        the everywhere of ``no-agent-runs``), oldest first."""
        ...

    # decision docs
    def save_decision_doc(self, doc: DecisionDoc) -> DecisionDoc: ...
    def decision_doc(self, workspace: str, scope: str, title: str, author: str) -> DecisionDoc | None: ...
    def decision_doc_by_id(self, workspace: str, doc_id: int) -> DecisionDoc | None: ...
    def decision_doc_for(self, workspace: str, ref: str) -> DecisionDoc | None: ...
    def decision_docs(self, workspace: str, scopes: Sequence[str]) -> list[DecisionDoc]: ...

    # needs review
    def add_review(self, item: ReviewItem) -> ReviewItem: ...
    def review(self, workspace: str, review_id: int) -> ReviewItem | None: ...
    def reviews(
        self, workspace: str, scopes: Sequence[str], *, open_only: bool = True
    ) -> list[ReviewItem]: ...
    def update_review(self, item: ReviewItem) -> None: ...
    def open_reviews(self, workspace: str, scope: str) -> int:
        """How many proposals wait in Needs review for one scope."""
        ...

    # what the hooks deliver
    def trigger_rows(self, workspace: str) -> list[TriggerRow]: ...
    def tidy_counts(self, workspace: str, scope: str, rest_cutoff: datetime) -> TidyCounts: ...
    def outcomes(self, workspace: str, refs: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The Outcome lines of the decision docs recorded from each of ``refs``."""
        ...

    # policies and small state
    def set_policy(self, workspace: str, scope: str, setting: str, value: str, at: datetime) -> None: ...
    def clear_policy(self, workspace: str, scope: str, setting: str) -> None: ...
    def policies(self, workspace: str, scope: str) -> dict[str, str]: ...
    def get_meta(self, workspace: str, key: str) -> str | None: ...
    def set_meta(self, workspace: str, key: str, value: str) -> None: ...

    # erasure
    def delete(self, workspace: str, ref: str) -> bool:
        """Delete a memory for real: its row, its index terms and their statistics, its history
        and uses, its decision doc and the review items naming it. False when there was none."""
        ...

    def add_tombstone(self, workspace: str, kind: str, key: str, digest: str, at: datetime) -> bool:
        """Leave a tombstone; False when one was there already."""
        ...

    def tombstones(self, workspace: str) -> list[Tombstone]: ...
