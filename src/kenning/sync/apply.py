"""What the server does with a pushed batch, item by item, in one transaction.

Rows belong to their author: an item that would change another account's record is refused
(``not_author``), a forgotten record never comes back (``forgotten``), and an item the
redactor finds a secret in is refused (``secret_found``; the client redacts before it
writes, so a catch here means an old or a foreign client). A new memory is placed by the
memory model's rules (:mod:`kenning.domain.merge`): it may strengthen its author's
near-duplicate, wait in Needs review against a firmer memory, or be stored and supersede its
author's earlier memory on the same slot — in the order the server received them.

A changed record whose sender had not seen the server's latest version of it (``base`` older
than the record's number) keeps what the server learned meanwhile: the higher confidence,
confirmations and confirmation time, and every event of both histories.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from kenning.clock import to_iso
from kenning.domain import merge
from kenning.errors import Invalid
from kenning.model import Kind, Memory, MemoryEvent, Status
from kenning.redact import find_secrets
from kenning.store.server.protocol import StoredRecord, WorkspaceTx, fact_slot
from kenning.sync import kinds, records, wire
from kenning.sync.materialize import MaterializingTx
from kenning.text import term_set

CANDIDATES = 30


@dataclass(frozen=True)
class Item:
    kind: str
    key: str
    op: str  # put | delete
    digest: str
    body: Mapping[str, Any] | None = None
    base: int = 0  # the record's number the sender last saw (0: none)


@dataclass(frozen=True)
class ItemResult:
    kind: str
    key: str
    status: str
    seq: int = 0
    code: str = ""
    message: str = ""
    other: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in ("", 0) or k in ("kind", "key", "status")}


def apply_batch(tx: WorkspaceTx, workspace: str, account: str, items: Sequence[Item], now: datetime, *,
                author: str = "") -> list[ItemResult]:  # fmt: skip
    """Apply ``items`` in order; one result per item. The caller holds the workspace lock.
    Memory records are materialized into the workspace's memory store in the same
    transaction (:mod:`kenning.sync.materialize`)."""
    served = MaterializingTx(tx, workspace, author)
    return [_apply(served, workspace, account, item, now) for item in items]


def _refused(item: Item, code: str, message: str) -> ItemResult:
    return ItemResult(item.kind, item.key, wire.REFUSED, code=code, message=message)


def _apply(tx: MaterializingTx, workspace: str, account: str, item: Item, now: datetime) -> ItemResult:
    if item.kind in wire.OWNED_KEYS and kinds.owner_of_key(item.key) != account:
        return _refused(item, "invalid", f"a {item.kind} record's key must start with your account id and the separator")
    existing = tx.record(item.kind, item.key)
    if existing is not None and existing.owner != account:
        return _refused(item, "not_author", f"{item.key} belongs to another account; propose a change through review")
    if item.kind == wire.SESSION_PART:
        head = tx.record(wire.SESSION, kinds.session_of_part_key(item.key))
        if head is not None and head.owner != account:
            return _refused(item, "not_author", "the session belongs to another account")
    if item.op == "delete":
        if existing is not None and existing.deleted:
            return ItemResult(item.kind, item.key, wire.UNCHANGED, seq=existing.seq)
        seq = tx.delete(item.kind, item.key, account, item.digest, at=now)
        if item.kind == wire.FACT and existing is not None and existing.body is not None:
            _still_asserted(tx, existing.body, item.key, now)
        return ItemResult(item.kind, item.key, wire.STORED, seq=seq)
    if existing is not None and existing.deleted:
        return _refused(item, "forgotten", f"{item.key} was forgotten; it cannot come back")
    if existing is not None and existing.digest == item.digest:
        return ItemResult(item.kind, item.key, wire.UNCHANGED, seq=existing.seq)
    body = item.body or {}
    secrets = [s for text in records.texts_of(item.kind, body) for s in find_secrets(text)]
    if secrets:
        rules = sorted({label for _, _, label in secrets})
        return _refused(item, "secret_found", f"the redactor found {len(secrets)} secret(s) ({', '.join(rules)});"
                        " redact it on the client (upgrade kenning) and push again")  # fmt: skip
    if item.kind != wire.MEMORY:
        try:
            if item.kind == wire.DECISION_DOC:
                records.doc_of(body, workspace)
            else:
                kinds.check(item.kind, item.key, body, workspace, account)
        except Invalid as exc:
            return _refused(item, "invalid", exc.message)
        private = item.kind == wire.FACT and body.get("private") is True  # a hidden memory's fact
        seq = tx.put(item.kind, item.key, account, body, item.digest, private=private, at=now)
        if item.kind == wire.FACT and (private or body.get("valid_to") is not None):
            _still_asserted(tx, body, item.key, now)
        return ItemResult(item.kind, item.key, wire.STORED, seq=seq)
    try:
        memory, events = records.memory_of(body, workspace)
    except Invalid as exc:
        return _refused(item, "invalid", exc.message)
    if memory.ref != item.key:
        return _refused(item, "invalid", f"the body's ref {memory.ref} is not the record's key {item.key}")
    if existing is not None:
        if existing.body is not None and existing.seq > item.base:
            memory, events = _keep_what_server_learned(existing.body, workspace, memory, events)
        seq = _put_memory(tx, account, memory, events, now)
        return ItemResult(item.kind, item.key, wire.STORED, seq=seq)
    return _place_new(tx, workspace, account, memory, events, now)


def _still_asserted(tx: MaterializingTx, body: Mapping[str, Any], key: str, now: datetime) -> None:
    """A fact record ended, went private or was deleted. The server's copy keeps one current row
    per fact (the first writer's; another member's record of the same fact maps onto no row):
    each other member's record that still states it as current is materialized again, so the
    fact stays current while any member asserts it. Their records are theirs and stay as they
    are; a machine asks for them when their fact leaves it (``/api/v1/sync/records``)."""
    for other in tx.facts_asserting(fact_slot(body)):
        if other.key != key and other.body is not None:
            tx.materialize(other, now)


def _keep_what_server_learned(
    held: Mapping[str, Any], workspace: str, memory: Memory, events: list[MemoryEvent]
) -> tuple[Memory, list[MemoryEvent]]:
    old, old_events = records.memory_of(held, workspace)
    merged = memory.evolve(
        confidence=max(old.confidence, memory.confidence),
        confirmations=max(old.confirmations, memory.confirmations),
        confirmed_at=max(old.confirmed_at, memory.confirmed_at),
    )
    seen = {(e.at, e.event, e.detail, e.other_ref) for e in events}
    both = events + [e for e in old_events if (e.at, e.event, e.detail, e.other_ref) not in seen]
    return merged, sorted(both, key=lambda e: e.at)


def _put_memory(tx: WorkspaceTx, account: str, memory: Memory, events: Sequence[MemoryEvent], now: datetime) -> int:
    body = records.memory_body(memory, events)
    return tx.put(wire.MEMORY, memory.ref, account, body, wire.digest(body), private=memory.hidden or memory.held,
                  at=now)  # fmt: skip


def _memories(found: Sequence[StoredRecord], workspace: str) -> list[tuple[StoredRecord, Memory, list[MemoryEvent]]]:
    out = []
    for rec in found:
        if rec.body is not None:
            memory, events = records.memory_of(rec.body, workspace)
            out.append((rec, memory, events))
    return out


def _place_new(
    tx: MaterializingTx, workspace: str, account: str, memory: Memory, events: list[MemoryEvent], now: datetime
) -> ItemResult:
    if memory.status is not Status.ACTIVE:
        return ItemResult(wire.MEMORY, memory.ref, wire.STORED, seq=_put_memory(tx, account, memory, events, now))
    found = _memories(tx.memories_like(memory.scope, sorted(term_set(memory.text)), limit=CANDIDATES), workspace)
    owners = {m.ref: rec.owner for rec, m, _ in found}
    history = {m.ref: ev for _, m, ev in found}
    placed = merge.place(memory.text, memory.kind, memory.subject, memory.confidence, memory.origin,
                         [m for _, m, _ in found], may_strengthen=lambda m: owners.get(m.ref) == account)  # fmt: skip
    other = placed.other
    if placed.action == "strengthen" and other is not None:
        echo = merge.is_echo(other, source=memory.origin_tool, origin=memory.origin)
        stronger = merge.strengthened(other, source=memory.origin_tool, origin=memory.origin, reason=memory.reason,
                                      source_ref=memory.source_ref, now=now)  # fmt: skip
        _put_memory(tx, account, stronger, [*history[other.ref], MemoryEvent(
            other.ref, now, "echoed" if echo else "confirmed", memory.origin_tool or memory.origin.value)], now)  # fmt: skip
        copy = memory.evolve(status=Status.SUPERSEDED, status_at=now, status_note=other.ref)
        seq = _put_memory(tx, account, copy, [*events, MemoryEvent(memory.ref, now, "superseded", "near-duplicate",
                                                                    other.ref)], now)  # fmt: skip
        return ItemResult(wire.MEMORY, memory.ref, wire.STRENGTHENED, seq=seq, other=other.ref)
    if placed.action == "review" and other is not None:
        note = f"held for review: contradicts {other.ref}"
        held = memory.evolve(status=Status.RETIRED, status_at=now, status_note=note)
        seq = _put_memory(tx, account, held, [*events, MemoryEvent(memory.ref, now, "held_for_review", "", other.ref)], now)
        review = {"kind": "contradiction", "scope": memory.scope, "refs": [other.ref],
                  "proposed_by": memory.origin_tool or memory.origin.value, "created_at": to_iso(now),
                  "payload": {"text": memory.text, "kind": memory.kind.value, "reason": memory.reason,
                              "rejected": memory.rejected, "subject": memory.subject, "origin": memory.origin.value,
                              "source": memory.origin_tool, "source_ref": memory.source_ref,
                              "session": memory.session, "branch": memory.branch, "confidence": memory.confidence,
                              "trigger": memory.trigger.to_text() if memory.trigger else "",
                              "existing": other.ref, "held": memory.ref}}  # fmt: skip
        tx.put(wire.REVIEW, f"contradiction{records.SEP}{memory.ref}", account, review, wire.digest(review),
               private=False, at=now)  # fmt: skip
        return ItemResult(wire.MEMORY, memory.ref, wire.REVIEW_HELD, seq=seq, other=other.ref)
    seq = _put_memory(tx, account, memory, events, now)
    if memory.subject and memory.kind in (Kind.PREFERENCE, Kind.STATE):
        for _rec, old, old_events in _memories(tx.memories_on_slot(memory.scope, memory.subject, account), workspace):
            if old.ref == memory.ref or old.status is not Status.ACTIVE:
                continue
            gone = old.evolve(status=Status.SUPERSEDED, status_at=now, status_note=memory.ref)
            _put_memory(tx, account, gone, [*old_events, MemoryEvent(old.ref, now, "superseded", "", memory.ref)], now)
    return ItemResult(wire.MEMORY, memory.ref, wire.STORED, seq=seq)
