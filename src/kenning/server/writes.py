"""Writes made on the server itself (the REST API, ``kenning mcp --remote``): the same write
rules as ``remember`` on a machine, then the same path as a pushed record.

A REST remember is checked by :func:`kenning.core.remember.checked` (shape, trigger, slot,
policy, confidence; the text redacted again here, whatever the client did), becomes a memory
of the caller's account with a fresh ref, and goes through
:func:`kenning.sync.apply.apply_batch` as a one-item push: the redactor runs once more, the
memory model places it against its author's memories (strengthen, hold for review, supersede
a slot) in the server's order, it takes a sequence number (the machines pull it) and it is
materialized into the workspace's memory store, all in the request's one transaction.

What else a write does, each as its author's own records through the same path:

- a decision writes its decision doc (``decision_doc`` record keyed by the account, so a
  teammate's doc with the same title stays theirs; the same title of yours keeps its Outcome);
- ``replaces`` supersedes the caller's own memories; ``index`` pins the new memory into the
  project's index (``unindex`` unpins one of the caller's own to make room);
- ``used`` counts uses on the server's copy (counters describe where they were counted and
  never travel, as on a machine);
- a proposal (:func:`propose`) is a ``review`` record addressed to the authors of the
  memories it names: their machines pull it into Needs review; nobody's row is edited.

Rows belong to their author: naming a teammate's memory in ``replaces`` or ``unindex`` is
refused before anything is written (propose the change instead).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from kenning.clock import to_iso
from kenning.core import decisions
from kenning.core import remember as remember_mod
from kenning.core.scopes import Place
from kenning.domain import write_rules as rules
from kenning.domain.lifecycle import INDEX_PIN_CAP, withheld
from kenning.errors import Invalid, NotFound, Refused
from kenning.ids import new_ref, normalize_ref
from kenning.model import DecisionDoc, Kind, Memory, MemoryEvent, Origin, Status, Trigger
from kenning.redacted import head, redacted
from kenning.server.workspace_core import WorkspaceCore
from kenning.store.protocol import MemoryFilter
from kenning.sync import records, wire
from kenning.sync.apply import Item, ItemResult, apply_batch
from kenning.sync.materialize import doc_label

PROPOSAL_KINDS = ("merge", "retire", "lesson")
PROPOSE_FIX = "propose the change instead (POST /api/v1/proposals, MCP propose_memory_change): its author decides"


@dataclass(frozen=True)
class Written:
    result: ItemResult
    memory: Memory | None  # the memory as recall now sees it (the strengthened one, for a near-duplicate)
    warnings: list[str]
    doc: DecisionDoc | None = None  # a decision's doc, as the server's copy holds it
    superseded: list[str] = field(default_factory=list)  # its slot's earlier memories
    retired: list[str] = field(default_factory=list)  # what ``replaces`` superseded
    unplaced: list[str] = field(default_factory=list)  # ``replaces`` refs not in this project
    index: list[Memory] = field(default_factory=list)  # the full index, when nothing was written
    unknown_used: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Proposed:
    key: str  # the review record's key
    seq: int
    kind: str
    refs: list[str]
    authors: list[str]  # account ids it is addressed to


def _apply(wc: WorkspaceCore, item: Item, now: datetime, author: str) -> ItemResult:
    [result] = apply_batch(wc.tx, wc.workspace, wc.account, [item], now, author=author)
    if result.status == wire.REFUSED:
        if result.code == "invalid":
            raise Invalid(result.message, fix="send the fields as kenning remember takes them")
        if result.code == "not_author":
            raise Refused(result.message, fix=PROPOSE_FIX)
        raise Refused(result.message, fix="take the secret out of the text and send it again")
    return result


def _put(wc: WorkspaceCore, kind: str, key: str, body: Mapping[str, Any], now: datetime, author: str, base: int = 0) -> ItemResult:
    return _apply(wc, Item(kind, key, "put", wire.digest(body), body, base), now, author)


def _own(wc: WorkspaceCore, ref: str, what: str) -> tuple[Memory, list[MemoryEvent], int]:
    """The caller's own memory ``ref`` from its record; Refused when it is a teammate's."""
    rec = wc.tx.record(wire.MEMORY, ref)
    if rec is None or rec.deleted or rec.body is None:
        raise NotFound(f"{what} {ref} is not a memory of workspace {wc.workspace!r}", fix="use a ref recall or list gave")
    if rec.owner != wc.account:
        raise Refused(f"{what} {ref} is a teammate's memory; rows belong to their author", fix=PROPOSE_FIX)
    memory, events = records.memory_of(rec.body, wc.workspace)
    return memory, events, rec.seq


def remember(wc: WorkspaceCore, place: Place, request: remember_mod.RememberRequest, now: datetime, *,
             author: str = "") -> Written:  # fmt: skip
    """Write one memory as ``wc``'s account (see the module docstring); ``author`` is the
    account's name (the label of its records in the server's copy). Refusals raise
    Invalid/Refused/NotFound with the fix; nothing is written then."""
    store = wc.core.store
    c = remember_mod.checked(store, place, request)
    wc.tx.lock()  # writers of the workspace take turns, as pushes do
    # Every refusal before the first write.
    targets, unplaced = [], []
    for ref in dict.fromkeys(c.replaces):
        target = store.get(wc.workspace, ref)
        if target is None or withheld(target) or target.scope not in (c.scope, place.project):
            unplaced.append(ref)
        elif target.status is Status.ACTIVE:
            targets.append(_own(wc, ref, "replaces"))
    unindex = None
    if request.index:
        pinned = store.find(MemoryFilter(wc.workspace, [c.scope], pinned=True))
        if len(pinned) >= INDEX_PIN_CAP:
            if not request.unindex:
                return Written(ItemResult(wire.MEMORY, "", "index_full"), None, [
                    *c.warnings, f"the index holds {INDEX_PIN_CAP} pinned memories; pass unindex=<ref> to make room"],
                    index=pinned)  # fmt: skip
            out = store.get(wc.workspace, normalize_ref(request.unindex))
            if out is None or out.scope != c.scope or not (out.pinned or out.index_pinned):
                raise NotFound(f"unindex ref {request.unindex} is not in this project's index",
                               fix="pick a ref from the index listed in the result")  # fmt: skip
            unindex = _own(wc, out.ref, "unindex")
    ref = new_ref()
    while wc.tx.record(wire.MEMORY, ref) is not None or store.get(wc.workspace, ref) is not None:
        ref = new_ref()
    memory = Memory(
        ref=ref, workspace=wc.workspace, scope=c.scope, text=c.text, kind=c.kind, confidence=c.confidence,
        origin=request.origin, created_at=now, confirmed_at=now, reason=c.reason, rejected=c.rejected,
        trigger=c.trigger, subject=c.subject, origin_tool=request.source, session=request.session,
        branch=request.branch or place.branch, held=request.origin is Origin.WIDGET, index_pinned=request.index,
        source_ref=redacted(request.source_ref.strip()), tags=tuple(redacted(t) for t in request.tags),
    )  # fmt: skip
    created = [MemoryEvent(ref, now, "created", request.source or request.origin.value)]
    before = {m.ref for m in store.by_subject(wc.workspace, [c.scope], c.subject)} if c.subject else set()
    result = _put(wc, wire.MEMORY, ref, records.memory_body(memory, created), now, author)
    if result.status == wire.STORED and unindex is not None:  # room made only for a memory that was written
        old, events, seq = unindex
        body = records.memory_body(old.evolve(pinned=False, index_pinned=False), [*events, MemoryEvent(old.ref, now, "unindexed")])
        _put(wc, wire.MEMORY, old.ref, body, now, author, seq)
    retired = []
    if result.status == wire.STORED and targets:
        for old, events, seq in targets:
            gone = old.evolve(status=Status.SUPERSEDED, status_at=now, status_note=ref)
            _put(wc, wire.MEMORY, old.ref, records.memory_body(gone, [*events, MemoryEvent(old.ref, now, "superseded", "", ref)]),
                 now, author, seq)  # fmt: skip
            retired.append(old.ref)
        created += [MemoryEvent(ref, now, "replaced", "", r) for r in retired]
        again = wc.tx.record(wire.MEMORY, ref)
        _put(wc, wire.MEMORY, ref, records.memory_body(memory, created), now, author, again.seq if again else 0)
    kept_ref = {wire.STORED: ref, wire.STRENGTHENED: result.other}.get(result.status)  # held for review: none yet
    kept = store.get(wc.workspace, kept_ref) if kept_ref else None
    superseded = sorted(r for r in before if (m := store.get(wc.workspace, r)) is not None
                        and m.status is Status.SUPERSEDED and m.status_note == ref)  # fmt: skip
    doc = _decision_doc(wc, request, kept, now, author) if kept is not None and c.kind is Kind.DECISION else None
    unknown = remember_mod.record_uses(store, wc.workspace, list(c.used), session=request.session, tool=request.source,
                                       branch=request.branch, now=now) if c.used else []  # fmt: skip
    return Written(result, kept, c.warnings, doc=doc, superseded=superseded, retired=retired, unplaced=unplaced,
                   unknown_used=unknown)  # fmt: skip


def _decision_doc(wc: WorkspaceCore, request: remember_mod.RememberRequest, memory: Memory, now: datetime,
                  author: str) -> DecisionDoc | None:  # fmt: skip
    """The decision doc of a decision memory, as :func:`kenning.core.decisions.record` writes
    it on a machine, as a ``decision_doc`` record of the caller's: the same title of the
    caller's (same project, same writing tool) takes the new reasoning and keeps its Outcome."""
    title = head(request.title.strip(), 200, fold=True) if request.title.strip() else decisions.title_for(memory.text)
    writer = request.source or request.origin.value
    doc = DecisionDoc(
        id=0, workspace=wc.workspace, scope=memory.scope, title=title, decision=memory.text, reason=memory.reason,
        rejected=memory.rejected, confidence=memory.confidence, source_ref=memory.source_ref,
        outcome=(decisions.PENDING,), memory_ref=memory.ref, author=writer, created_at=now, updated_at=now,
        area=request.area,
    )  # fmt: skip
    key = records.SEP.join((wc.account, records.doc_key(doc)))  # as a machine of this account keys it
    held = wc.tx.record(wire.DECISION_DOC, key)
    if held is not None and held.body is not None:
        before = records.doc_of(held.body, wc.workspace)
        doc = replace(doc, outcome=before.outcome, created_at=before.created_at, area=request.area or before.area)
    _put(wc, wire.DECISION_DOC, key, records.doc_body(doc), now, author, held.seq if held else 0)
    return wc.core.store.decision_doc(wc.workspace, doc.scope, doc.title, doc_label(author or wc.account, writer))


def propose(wc: WorkspaceCore, place: Place, kind: str, refs: list[str], now: datetime, *, text: str = "",
            when: Trigger | None = None, why: str = "", proposed_by: str = "agent", author: str = "") -> Proposed:  # fmt: skip
    """``propose_memory_change`` on the server: the rules of
    :func:`kenning.core.reviews.propose`, then a ``review`` record of the caller's addressed
    to the authors of ``refs`` (see the module docstring). Changes no memory."""
    if kind not in PROPOSAL_KINDS:
        raise Invalid(f"change type {kind!r} is unknown", fix="use merge, retire or lesson")
    normal = list(dict.fromkeys(normalize_ref(r) for r in refs))
    if not normal:
        raise Invalid("no refs given", fix="list the refs the change is about")
    if kind in ("merge", "lesson") and not text.strip():
        raise Invalid(f"a {kind} needs the new text", fix="give the one sentence that replaces the refs")
    if kind == "merge" and len(normal) < 2:
        raise Invalid("a merge needs at least two refs", fix="list every ref the merged sentence replaces")
    if kind == "lesson" and when is None:
        raise Invalid("a lesson proposal needs a trigger", fix='give when, e.g. "shell:^npm publish" or "edit:db/**"')
    if when is not None:
        rules.check_trigger(when)
    wc.tx.lock()
    authors = []
    for ref in normal:
        memory = wc.core.store.get(wc.workspace, ref)  # a hidden memory is not in the copy: not admitted to exist
        if memory is None or memory.scope not in place.reach:
            raise Refused(f"{ref} is not a memory of this project", fix="propose changes only for refs recall or list gave here")
        if memory.status is not Status.ACTIVE:
            raise Refused(f"{ref} is already {memory.status.value}", fix="propose changes only for active memories")
        rec = wc.tx.record(wire.MEMORY, ref)
        if rec is not None:
            authors.append(rec.owner)
    key = records.SEP.join(("proposal", wc.account, uuid.uuid4().hex))
    body = {"kind": kind, "scope": place.project, "refs": normal, "created_at": to_iso(now),
            "proposed_by": f"{author}/{proposed_by}" if author else proposed_by, "for": sorted(set(authors)),
            "payload": {"text": redacted(text.strip()), "why": redacted(why.strip()),
                        "trigger": when.to_text() if when else ""}}  # fmt: skip
    result = _put(wc, wire.REVIEW, key, body, now, author)
    return Proposed(key, result.seq, kind, normal, sorted(set(authors)))
