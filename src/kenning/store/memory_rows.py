"""A memory store's rows read back as values, once for both engines: a memory, a decision doc,
a review item and a scope. The engines keep the same columns but hold some of them in their own
types (SQLite: ISO text, space-separated words, 0/1; PostgreSQL: ``timestamptz``, ``text[]``,
booleans), so each store hands over its :class:`Decoders`; writing stays each engine's own (its
statements, its parameter types)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from kenning.model import Citation, DecisionDoc, Kind, Memory, Origin, ReviewItem, Status, Trigger
from kenning.redacted import stored
from kenning.store.protocol import ScopeRow


class Row(Protocol):
    """A row as both drivers give it: its columns by name (``sqlite3.Row``, psycopg's dict row)."""

    def __getitem__(self, column: str, /) -> Any: ...


@dataclass(frozen=True)
class Decoders:
    """How one engine's columns read back: a time (always UTC) and a list of words (tags, refs)."""

    time: Callable[[Any], datetime]
    words: Callable[[Any], tuple[str, ...]]

    def opt_time(self, value: Any) -> datetime | None:
        return self.time(value) if value else None


# Enum lookups by value through a dict: several times faster than calling the enum, and a
# listing or the health report turns thousands of rows into memories.
KINDS = {k.value: k for k in Kind}
_STATUSES = {s.value: s for s in Status}
_ORIGINS = {o.value: o for o in Origin}
_CITATIONS = {c.value: c for c in Citation}


def memory_of(row: Row, decode: Decoders) -> Memory:
    """A ``memories`` row as a :class:`Memory` (its words as stored: redacted on the way in)."""
    opt_time = decode.opt_time
    return Memory(
        ref=row["ref"], workspace=row["workspace"], scope=row["scope"], text=stored(row["text"]),
        kind=KINDS[row["kind"]], reason=stored(row["reason"]), rejected=stored(row["rejected"]),
        trigger=Trigger.from_text(row["trigger"]) if row["trigger"] else None, confidence=row["confidence"],
        status=_STATUSES[row["status"]], status_at=opt_time(row["status_at"]),
        status_note=stored(row["status_note"]), subject=row["subject"], origin=_ORIGINS[row["origin"]],
        origin_tool=row["origin_tool"], session=row["session"], branch=row["branch"], pinned=bool(row["pinned"]),
        index_pinned=bool(row["index_pinned"]), hidden=bool(row["hidden"]), held=bool(row["held"]),
        protected=bool(row["protected"]), source_ref=row["source_ref"], source_hash=row["source_hash"],
        citation=_CITATIONS[row["citation"]], tags=decode.words(row["tags"]),
        created_at=decode.time(row["created_at"]), confirmed_at=decode.time(row["confirmed_at"]),
        last_used_at=opt_time(row["last_used_at"]), uses=row["uses"], confirmations=row["confirmations"],
        recalled=row["recalled"],
    )  # fmt: skip


def decision_doc_of(row: Row, decode: Decoders) -> DecisionDoc:
    """A ``decision_docs`` row as a :class:`DecisionDoc`."""
    return DecisionDoc(
        id=row["id"], workspace=row["workspace"], scope=row["scope"], title=stored(row["title"]),
        decision=stored(row["decision"]), reason=stored(row["reason"]), rejected=stored(row["rejected"]),
        confidence=row["confidence"], source_ref=row["source_ref"],
        outcome=tuple(stored(line) for line in json.loads(row["outcome"])), memory_ref=row["memory_ref"],
        author=row["author"], created_at=decode.time(row["created_at"]), updated_at=decode.time(row["updated_at"]),
        area=row["area"],
    )  # fmt: skip


def review_of(row: Row, decode: Decoders) -> ReviewItem:
    """A ``reviews`` row as a :class:`ReviewItem`."""
    return ReviewItem(
        id=row["id"], workspace=row["workspace"], scope=row["scope"], kind=row["kind"],
        payload=json.loads(row["payload"]), proposed_by=row["proposed_by"], created_at=decode.time(row["created_at"]),
        resolved_at=decode.opt_time(row["resolved_at"]), resolution=row["resolution"], batch=row["batch"],
        refs=decode.words(row["refs"]),
    )  # fmt: skip


def scope_of(row: Row, decode: Decoders) -> ScopeRow:
    """A ``scopes`` row as a :class:`ScopeRow`."""
    return ScopeRow(
        workspace=row["workspace"], key=row["key"], kind=row["kind"], name=row["name"], root=row["root"],
        parent=row["parent"], created_at=decode.time(row["created_at"]), removed_at=decode.opt_time(row["removed_at"]),
    )  # fmt: skip
