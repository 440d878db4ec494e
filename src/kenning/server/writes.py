"""Writes made on the server itself (the REST API, ``kenning mcp --remote``): the same write
rules as ``remember`` on a machine, then the same path as a pushed record.

A REST remember is checked by :func:`kenning.core.remember.checked` (shape, trigger, slot,
policy, confidence; the text redacted again here, whatever the client did), becomes a memory
of the caller's account with a fresh ref, and goes through
:func:`kenning.sync.apply.apply_batch` as a one-item push: the redactor runs once more, the
memory model places it against its author's memories (strengthen, hold for review, supersede
a slot) in the server's order, it takes a sequence number (the machines pull it) and it is
materialized into the workspace's memory store, all in the request's one transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from kenning.core import remember as remember_mod
from kenning.core.scopes import Place
from kenning.errors import Invalid, Refused
from kenning.ids import new_ref
from kenning.model import Memory, MemoryEvent, Origin
from kenning.redacted import redacted
from kenning.server.workspace_core import WorkspaceCore
from kenning.sync import records, wire
from kenning.sync.apply import Item, ItemResult, apply_batch


@dataclass(frozen=True)
class Written:
    result: ItemResult
    memory: Memory | None  # the memory as recall now sees it (the strengthened one, for a near-duplicate)
    warnings: list[str]


def remember(wc: WorkspaceCore, place: Place, request: remember_mod.RememberRequest, now: datetime) -> Written:
    """Write one memory as ``wc``'s account (see the module docstring). Refusals raise
    Invalid/Refused with the fix; nothing is written then."""
    store = wc.core.store
    c = remember_mod.checked(store, place, request)
    wc.tx.lock()  # writers of the workspace take turns, as pushes do
    ref = new_ref()
    while wc.tx.record(wire.MEMORY, ref) is not None or store.get(wc.workspace, ref) is not None:
        ref = new_ref()
    memory = Memory(
        ref=ref, workspace=wc.workspace, scope=c.scope, text=c.text, kind=c.kind, confidence=c.confidence,
        origin=request.origin, created_at=now, confirmed_at=now, reason=c.reason, rejected=c.rejected,
        trigger=c.trigger, subject=c.subject, origin_tool=request.source, session=request.session,
        branch=request.branch or place.branch, held=request.origin is Origin.WIDGET,
        source_ref=redacted(request.source_ref.strip()), tags=tuple(redacted(t) for t in request.tags),
    )  # fmt: skip
    body = records.memory_body(memory, [MemoryEvent(ref, now, "created", request.source or request.origin.value)])
    [result] = apply_batch(wc.tx, wc.workspace, wc.account, [Item(wire.MEMORY, ref, "put", wire.digest(body), body)], now)
    if result.status == wire.REFUSED:
        if result.code == "invalid":
            raise Invalid(result.message, fix="send the fields of one memory, as kenning remember takes them")
        raise Refused(result.message, fix="take the secret out of the text and send it again")
    kept = {wire.STORED: ref, wire.STRENGTHENED: result.other}.get(result.status)  # held for review: none yet
    return Written(result, store.get(wc.workspace, kept) if kept else None, c.warnings)
