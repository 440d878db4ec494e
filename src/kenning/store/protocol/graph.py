"""The graph store: entities and temporal facts, and how far extraction and escalation got in
each captured session. The rules (what closes what) live in :mod:`kenning.graph.facts`; the
store keeps rows and answers the questions below. Every method names its workspace.

Facts hold over half-open windows ``[valid_from, valid_to)`` of ISO times (text that sorts as
time); ``valid_to`` None means the fact is current.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from kenning.redacted import Redacted


@dataclass(frozen=True)
class FactRow:
    id: int
    workspace: str
    project: str
    subject: str
    predicate: str
    object: str  # an entity id (made from a redacted name) or redacted text; redacted again on insert
    object_kind: str  # entity | text
    area: str
    valid_from: str
    valid_to: str | None
    confidence: float
    origin: str  # asserted | recorded | extracted | escalated
    session: str
    memory_ref: str
    person: str
    evidence: Redacted
    created_at: str
    ended_by: int | None = None
    subject_name: str = ""  # filled in on read: the subject entity's name
    object_name: str = ""  # the object entity's name, or the text itself

    @property
    def current(self) -> bool:
        return self.valid_to is None

    @property
    def ref(self) -> str:
        return f"f:{self.id}"


@dataclass(frozen=True)
class EntityRow:
    workspace: str
    id: str  # normalised name: lower case, spaces folded, symbols kept (c++ != c#)
    name: Redacted  # as first written
    type: str
    created_at: str


class GraphStore(Protocol):
    def transaction(self) -> AbstractContextManager[object]:
        """The bundle's transaction (nested calls join it)."""
        ...

    # entities
    def ensure_entity(self, workspace: str, entity_id: str, name: Redacted, type_: str, now: str) -> None:
        """Create the entity; a known type is never overwritten by 'unknown'."""
        ...

    def entity(self, workspace: str, entity_id: str) -> EntityRow | None: ...
    def entities_named(self, workspace: str, name: str) -> list[str]:
        """Ids of the entities shown as ``name`` (lower case): by their name as written, or a
        project key ending in ``/name`` (``github.com/acme/shop`` for "shop"); sorted."""
        ...

    def entities(self, workspace: str) -> list[EntityRow]:
        """Every entity, by id."""
        ...

    # facts
    def get(self, workspace: str, fact_id: int) -> FactRow | None: ...
    def insert(self, row: FactRow) -> int:
        """Store a fact (its ``id`` is ignored); returns the id given to it."""
        ...

    def close(self, workspace: str, fact_id: int, valid_to: str, ended_by: int | None) -> None:
        """End a current fact at ``valid_to`` (a fact already ended is left as it is)."""
        ...

    def set_ended_by(self, workspace: str, fact_id: int, ended_by: int) -> None: ...
    def same_fact(self, workspace: str, subject: str, predicate: str, obj: str, area: str) -> list[FactRow]:
        """Every window of one fact, oldest first."""
        ...

    def current_in_slot(self, workspace: str, subject: str, predicate: str, area: str) -> list[FactRow]:
        """The current facts of one slot (subject, predicate, area), oldest first."""
        ...

    def find_facts(self, workspace: str, subject: str, predicate: str, obj: str, area: str,
                   valid_from: str) -> list[int]:  # fmt: skip
        """Ids of the facts with exactly these values, oldest first (the same fact can be
        stated again after it ended, at the same moment)."""
        ...

    def query(self, workspace: str, entity: str, *, predicate: str = "", as_of: str = "", direction: str = "both",
              project: str = "", limit: int = 200) -> list[FactRow]:  # fmt: skip
        """Facts with ``entity`` as subject ("out"), as entity object ("in") or either
        ("both"), newest first (by valid_from, then id); with ``as_of`` only those whose window
        holds it."""
        ...

    def timeline(self, workspace: str, entity: str, limit: int = 500) -> list[FactRow]:
        """Facts touching ``entity``, oldest first."""
        ...

    def current_facts(self, workspace: str, project: str, *, predicates: tuple[str, ...] = (),
                      exclude: tuple[str, ...] = (), min_confidence: float = 0.0, limit: int = 50) -> list[FactRow]:  # fmt: skip
        """Current facts of one project, newest first."""
        ...

    def all_facts(self, workspace: str) -> list[FactRow]:
        """Every fact, by id."""
        ...

    def iter_facts(self, workspace: str) -> Iterator[FactRow]:
        """Every fact, by id, read a page at a time (a walk over a large graph, such as sync's
        push, holds one page of rows, not the whole graph)."""
        ...

    def count(self, workspace: str) -> int: ...
    def count_facts(self, workspace: str, *, memory_ref: str = "", session: str = "") -> int:
        """Facts recorded from a memory, or extracted from a session."""
        ...

    def delete_facts(self, workspace: str, *, memory_ref: str = "", session: str = "") -> int:
        """Delete the facts recorded from a memory or extracted from a session (a fact they
        ended stays ended), and the entities only they named; returns how many facts."""
        ...

    # progress of extraction and escalation per captured session
    def progress(self, workspace: str, session: str, kind: str) -> int:
        """The last turn id ``kind`` (extract | escalate) looked at; 0 for none."""
        ...

    def progress_of(self, workspace: str, kind: str) -> dict[str, int]:
        """Every session's progress for ``kind``."""
        ...

    def set_progress(self, workspace: str, session: str, kind: str, last_turn: int, now: str) -> None: ...
    def forget_progress(self, workspace: str, session: str) -> None: ...
