"""The server's query side: every memory record a push stores is written, in the same
transaction, into the workspace's memory store (``WorkspaceTx.stores()``), where recall,
get and list read it with the same code and ranking as on a machine.

The records stay the truth (sync pulls them); the memory store is their materialized copy:

- a record put: its memory inserted or updated, its history added (each event once), its
  scope registered; per-machine counters (recalled, uses, last used) are the server's own;
- a hidden or held memory (a private record, its body for its author only): removed from
  the copy, so every reader, its author too, finds it removed, as a teammate must;
- a record deleted (forgotten): removed, with a tombstone;
- a decision doc record: saved as its author's doc, labelled as a machine labels a
  teammate's (``alice/cli``), so the same title of two accounts is two docs.

:class:`MaterializingTx` wraps a data-plane transaction so that every write path that goes
through the records (:func:`kenning.sync.apply.apply_batch`: pushes, and the REST writes,
which are one-item pushes) keeps the copy in step. A kill before the commit loses both; after
it, both are there: nothing is lost or duplicated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from datetime import datetime
from typing import Any

from kenning.core.portable import text_digest
from kenning.domain import merge
from kenning.model import GLOBAL_SCOPE, PERSONAL_SCOPE, MemoryEvent
from kenning.redacted import redacted
from kenning.store.protocol import MemoryFilter, MemoryStore, ScopeRow, Stores
from kenning.store.server.protocol import StoredRecord, WorkspaceTx
from kenning.sync import materialize_kinds, records, wire


def put_memory(store: MemoryStore, workspace: str, body: Mapping[str, Any], *, private: bool, now: datetime) -> None:
    """Write a memory record's body into the copy (or take it out when it is private)."""
    memory, events = records.memory_of(body, workspace)
    if private:
        store.delete(workspace, memory.ref)
        return
    if store.get_scope(workspace, memory.scope) is None:
        kind = "personal" if memory.scope == PERSONAL_SCOPE else "global" if memory.scope == GLOBAL_SCOPE else "project"
        store.upsert_scope(ScopeRow(workspace, memory.scope, kind, memory.scope.rsplit("/", 1)[-1], "", "", now))
    existing = store.get(workspace, memory.ref)
    if existing is None:
        store.insert(memory)
        have: set[tuple[object, ...]] = set()
    else:
        store.update(memory.evolve(recalled=existing.recalled, uses=existing.uses, last_used_at=existing.last_used_at))
        have = {(e.at, e.event, e.detail, e.other_ref) for e in store.events(workspace, memory.ref)}
    for e in events:
        if (e.at, e.event, e.detail, e.other_ref) not in have:
            store.add_event(workspace, MemoryEvent(e.ref, e.at, e.event, redacted(e.detail), e.other_ref))


def doc_label(author: str, writer: str) -> str:
    """A decision doc's author in the server's copy: the account's name and the writing tool."""
    return f"{author}/{writer}"


def put_doc(store: MemoryStore, workspace: str, body: Mapping[str, Any], author: str) -> None:
    """Write a decision doc record's body into the copy (its reasoning replaced, in place). The
    copy is every member's: a held doc (its memory hidden or held) goes in as a teammate reads
    it, its words withheld (records.held_view), as the held memory is out of the copy."""
    doc = records.doc_of(records.held_view(body), workspace, author=doc_label(author, str(body.get("author", ""))))
    existing = store.decision_doc(workspace, doc.scope, doc.title, doc.author)
    store.save_decision_doc(replace(doc, id=existing.id if existing else 0))


def drop_memory(store: MemoryStore, workspace: str, ref: str, *, now: datetime) -> None:
    """A forgotten memory: out of the copy, with a tombstone (its text's digest, never the text)."""
    existing = store.get(workspace, ref)
    if existing is not None:
        store.add_tombstone(workspace, "memory", ref, text_digest(existing.text), now)
        store.delete(workspace, ref)


class MaterializingTx:
    """A :class:`WorkspaceTx` that also keeps the workspace's memory store in step with every
    memory record it writes (see the module docstring)."""

    def __init__(self, tx: WorkspaceTx, workspace: str, author: str = "") -> None:
        self.tx = tx
        self.workspace = workspace
        self.author = author  # the writing account's name: the label of its values' and diary's copies

    def put(
        self, kind: str, key: str, owner: str, body: Mapping[str, Any], digest: str, *,
        private: bool, at: datetime,
    ) -> int:  # fmt: skip
        seq = self.tx.put(kind, key, owner, body, digest, private=private, at=at)
        if kind == wire.MEMORY:
            memories = self.tx.stores().memories
            with memories.transaction():
                put_memory(memories, self.workspace, body, private=private, now=at)
        elif kind == wire.DECISION_DOC:
            memories = self.tx.stores().memories
            with memories.transaction():
                put_doc(memories, self.workspace, body, self.author or owner)
        elif kind in materialize_kinds.MATERIALIZED:
            materialize_kinds.put(self.tx.stores(), self.workspace, kind, key, self.author or owner, body,
                                  private=private, now=at)  # fmt: skip
        return seq

    def delete(self, kind: str, key: str, owner: str, digest: str, *, at: datetime) -> int:
        held = self.tx.record(kind, key) if kind in materialize_kinds.MATERIALIZED else None
        seq = self.tx.delete(kind, key, owner, digest, at=at)
        if kind in materialize_kinds.MATERIALIZED:
            materialize_kinds.drop(self.tx.stores(), self.workspace, kind, key, held.body if held else None)
        if kind == wire.MEMORY:
            memories = self.tx.stores().memories
            with memories.transaction():
                drop_memory(memories, self.workspace, key, now=at)
        return seq

    def memories_like(self, scope: str, terms: Sequence[str], *, limit: int) -> list[StoredRecord]:
        """The live memory records of ``scope`` that best match ``terms``, best first: the
        candidates of the near-duplicate and contradiction rules, from the memory store's BM25
        search over the copy (memories written earlier in this transaction included), asked for
        the words that can decide a placement only (:func:`kenning.domain.merge.deciding_terms`):
        every memory close enough to matter holds one of them. Hidden and held memories are not
        in the copy, so they are no one's candidates."""
        memories = self.tx.stores().memories
        asked = merge.deciding_terms(terms, memories.index_stats(self.workspace, terms).df) if terms else []
        hits = memories.search(MemoryFilter(self.workspace, [scope]), asked, limit=limit)
        return self.tx.records(wire.MEMORY, [h.memory.ref for h in hits])

    def materialize(self, record: StoredRecord, now: datetime) -> None:
        """Write another member's live record into the copy again, as it is (nothing of the
        record changes: it stays its owner's, with its number)."""
        if record.body is not None and record.kind in materialize_kinds.MATERIALIZED:
            materialize_kinds.put(self.tx.stores(), self.workspace, record.kind, record.key, record.owner, record.body,
                                  private=record.private, now=now)  # fmt: skip

    # -- the rest is the wrapped transaction's ----------------------------------------------
    def lock(self) -> int:
        return self.tx.lock()

    def pipelined(self) -> AbstractContextManager[object]:
        return self.tx.pipelined()

    def head(self) -> int:
        return self.tx.head()

    def batch(self, batch_id: str) -> tuple[str, Mapping[str, Any]] | None:
        return self.tx.batch(batch_id)

    def save_batch(self, batch_id: str, account: str, digest: str, result: Mapping[str, Any], at: datetime) -> None:
        self.tx.save_batch(batch_id, account, digest, result, at)

    def record(self, kind: str, key: str) -> StoredRecord | None:
        return self.tx.record(kind, key)

    def records(self, kind: str, keys: Sequence[str]) -> list[StoredRecord]:
        return self.tx.records(kind, keys)

    def memories_on_slot(self, scope: str, subject: str, owner: str) -> list[StoredRecord]:
        return self.tx.memories_on_slot(scope, subject, owner)

    def facts_asserting(self, slot: str) -> list[StoredRecord]:
        return self.tx.facts_asserting(slot)

    def changes(self, after: int, limit: int) -> list[StoredRecord]:
        return self.tx.changes(after, limit)

    def count(self, kind: str | None = None) -> int:
        return self.tx.count(kind)

    def stores(self) -> Stores:
        return self.tx.stores()
