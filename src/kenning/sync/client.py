"""The machine's side of sync: push what changed here, then pull what others wrote.

Only the workspaces the server lists for this device's token travel; every other workspace
never leaves the machine. Each push is kept on disk before it is sent and marked done only
after the server answered, and each pulled page is applied together with the cursor that
follows it, so a kill at any point is picked up by the next sync with nothing lost and
nothing applied twice.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

from kenning.core.portable import text_digest
from kenning.model import MemoryEvent, ReviewItem
from kenning.redacted import redacted
from kenning.store.protocol import Stores
from kenning.store.syncstate import Outbox, SyncedRow, SyncStateStore
from kenning.sync import records, wire
from kenning.sync.local import NEW_KINDS, LocalRecords

Progress = Callable[[str, int, int], None]  # (stage, done, total)
_COUNTERS = {wire.STORED: "pushed", wire.UNCHANGED: "unchanged", wire.STRENGTHENED: "strengthened",
             wire.REVIEW_HELD: "held_for_review"}  # fmt: skip


class Transport(Protocol):
    def post(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """POST ``body`` as JSON to ``path``; the answer's JSON. Raises on a refusal."""
        ...


@dataclass(frozen=True)
class Link:
    """This machine's login on one server (kept in server.json in the data folder)."""

    server: str  # base URL
    account: str  # account id
    account_name: str
    device: str
    workspaces: tuple[str, ...]
    token: str


@dataclass
class WorkspaceReport:
    workspace: str
    pushed: int = 0
    unchanged: int = 0
    strengthened: int = 0
    held_for_review: int = 0
    refused: list[dict[str, Any]] = field(default_factory=list)
    pulled: int = 0
    removed: int = 0
    cursor: int = 0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _noop(stage: str, done: int, total: int) -> None:
    return None


class SyncClient:
    def __init__(self, stores: Stores, state: SyncStateStore, transport: Transport, link: Link, now: Callable[[], datetime],
                 *, batch_items: int = wire.MAX_BATCH_ITEMS, page: int = wire.PULL_LIMIT) -> None:  # fmt: skip
        self.stores = stores
        self.store = stores.memories
        self.local = LocalRecords(stores, link.account, now)
        self.state = state
        self.transport = transport
        self.link = link
        self.now = now
        self.batch_items = max(1, min(batch_items, wire.MAX_BATCH_ITEMS))
        self.page = max(1, min(page, wire.PULL_LIMIT))

    def sync(self, progress: Progress = _noop) -> list[WorkspaceReport]:
        reports = []
        for workspace in self.link.workspaces:
            report = WorkspaceReport(workspace)
            self.push(workspace, report, progress)
            self.pull(workspace, report, progress)
            reports.append(report)
        return reports

    # -- push -----------------------------------------------------------------------------------
    def push(self, workspace: str, report: WorkspaceReport, progress: Progress = _noop) -> None:
        pending = self.state.outbox(self.link.server, workspace)
        if pending is not None:  # a batch sent before a kill: the server answers it once
            self._send(workspace, pending, report)
        # A count first, for the progress bar's total: it builds no record the server never had
        # (and guesses a changed session's parts from its turns), so a large first sync is
        # counted at the cost of reading the rows; of the records the server has, it keeps the
        # keys of the changed ones, so the push builds no unchanged one again. Then the records
        # stream: built as the batches take them, each batch sent and its marks kept before the
        # next is built, so memory holds about one batch and one page of rows whatever the
        # store's size (and the keys of what changed since the server had it).
        stage = f"push {workspace}"
        total, changed = 0, set()
        for stub in self.pending_items(workspace, build=False):
            total += 1
            if stub.get("known"):
                changed.add((stub["kind"], stub["key"]))
        progress(stage, 0, total)
        done = 0
        for batch in _batches(self.pending_items(workspace, recheck=changed), self.batch_items):
            outbox = Outbox(f"b_{uuid.uuid4().hex}", json.dumps(batch))
            self.state.set_outbox(self.link.server, workspace, outbox)
            self._send(workspace, outbox, report)
            done += len(batch)
            total = max(total, done)
            progress(stage, done, total)
        if done != total:  # the count guessed a session's parts high
            progress(stage, done, done)

    def _send(self, workspace: str, outbox: Outbox, report: WorkspaceReport) -> None:
        items = json.loads(outbox.payload)
        # "local" (the local row a record came from) stays on the machine.
        answer = self.transport.post("/api/v1/sync/push", {"workspace": workspace, "batch": outbox.batch_id,
                                                           "items": [{k: v for k, v in i.items() if k != "local"} for i in items]})  # fmt: skip
        sent = {(i["kind"], i["key"]): i for i in items}
        with self.state.transaction():
            for result in answer["results"]:
                item = sent[(result["kind"], result["key"])]
                status = result["status"]
                if status == wire.REFUSED:
                    report.refused.append(result)
                else:
                    counter = _COUNTERS[status]
                    setattr(report, counter, getattr(report, counter) + 1)
                known = self.state.row(self.link.server, workspace, item["kind"], item["key"])
                self.state.set_row(self.link.server, workspace, SyncedRow(
                    item["kind"], item["key"], self.link.account, item["digest"],
                    -1 if status == wire.REFUSED else int(result.get("seq", 0)) or (known.seq if known else 0),
                    item["op"] == "delete", item.get("local") or (known.local if known else "")))  # fmt: skip
            self.state.clear_outbox(self.link.server, workspace)

    def pending_items(self, workspace: str, *, build: bool = True,
                      recheck: Container[tuple[str, str]] | None = None) -> Iterator[dict[str, Any]]:  # fmt: skip
        """Records of ``workspace`` that changed here since the server last had them, built one
        at a time from rows read a page at a time. ``build=False`` (counting): each comes as
        ``{kind, key}`` (with ``known: True`` when the server has an older version), and a
        changed session's parts are guessed from its turn count. ``recheck``: of the records
        the server has (memories, facts, diary entries, values), only these keys are built and
        compared (the rest were found unchanged by the count)."""
        rows = self.state.rows(self.link.server, workspace)
        me = self.link.account

        def changed(kind: str, key: str, digest: str) -> bool:
            row = rows.get((kind, key))
            return row is None or (row.owner == me and row.digest != digest and not row.deleted)

        for memory in self.store.iter_all(workspace):
            row = rows.get((wire.MEMORY, memory.ref))
            if row is not None and (row.owner != me or row.deleted):
                continue
            if row is None and not build:
                yield {"kind": wire.MEMORY, "key": memory.ref}
                continue
            if row is not None and recheck is not None and (wire.MEMORY, memory.ref) not in recheck:
                continue
            body = records.memory_body(memory, self.store.events(workspace, memory.ref))
            d = wire.digest(body)
            if row is not None and row.digest == d:
                continue
            if not build:
                yield {"kind": wire.MEMORY, "key": memory.ref, "known": True}
                continue
            yield {"kind": wire.MEMORY, "key": memory.ref, "op": "put", "digest": d, "body": body,
                   "base": row.seq if row and row.seq > 0 else 0}  # fmt: skip
        scopes = self.store.memory_scopes(workspace) + ["personal", "global"]
        teammates = {r.local for r in rows.values() if r.kind == wire.DECISION_DOC and r.owner != me}
        for doc in self.store.decision_docs(workspace, scopes):
            key = records.SEP.join((me, records.doc_key(doc)))  # one account's docs never meet another's
            decided = self.store.get(workspace, doc.memory_ref) if doc.memory_ref else None
            body = records.doc_body(doc, held=decided is not None and (decided.hidden or decided.held))
            d = wire.digest(body)
            if changed(wire.DECISION_DOC, key, d) and str(doc.id) not in teammates:
                yield {"kind": wire.DECISION_DOC, "key": key, "op": "put", "digest": d, "body": body}
        for stone in self.store.tombstones(workspace):
            row = rows.get((wire.MEMORY, stone.key))
            if stone.kind == "memory" and row is not None and row.owner == me and not row.deleted:
                yield {"kind": wire.MEMORY, "key": stone.key, "op": "delete", "digest": wire.digest(None)}
        yield from self.local.pending(workspace, rows, build=build, recheck=recheck)

    # -- pull -----------------------------------------------------------------------------------
    def pull(self, workspace: str, report: WorkspaceReport, progress: Progress = _noop) -> None:
        cursor = self.state.cursor(self.link.server, workspace)
        first = cursor
        while True:
            answer = self.transport.post("/api/v1/sync/pull", {"workspace": workspace, "after": cursor, "limit": self.page})
            changes = answer["changes"]
            head = int(answer["head"])
            owners = {str(k): str(v) for k, v in (answer.get("owners") or {}).items()}
            with self.state.transaction():
                for change in changes:
                    self._apply(workspace, change, owners, report)
                    cursor = max(cursor, int(change["seq"]))
                if changes:
                    self.state.set_cursor(self.link.server, workspace, cursor)
            progress(f"pull {workspace}", cursor - first, max(1, head - first))
            if not changes or cursor >= head:
                break
        report.cursor = cursor
        self.reassert(workspace, report)

    def reassert(self, workspace: str, report: WorkspaceReport) -> None:
        """Fact records held under another record's row that ended or left here are asked for
        again and applied (one may bring the fact back as current: a fact stays current while
        any member asserts it). Derived from the marks and the graph alone, so a kill before it
        is made good by the next sync."""
        orphans = self.local.held_under_gone(workspace, self.state.rows(self.link.server, workspace))
        for start in range(0, len(orphans), self.page):
            chunk = orphans[start : start + self.page]
            answer = self.transport.post("/api/v1/sync/records", {"workspace": workspace, "keys": [
                {"kind": r.kind, "key": r.key} for r in chunk]})  # fmt: skip
            owners = {str(k): str(v) for k, v in (answer.get("owners") or {}).items()}
            answered = set()
            with self.state.transaction():
                for change in answer["changes"]:
                    self._apply(workspace, change, owners, report)
                    answered.add((str(change["kind"]), str(change["key"])))
                for row in chunk:  # not answered (the server no longer holds it): held under nothing
                    if (row.kind, row.key) not in answered:
                        self.state.set_row(self.link.server, workspace, replace(row, local=""))

    def _apply(self, workspace: str, change: Mapping[str, Any], owners: Mapping[str, str], report: WorkspaceReport) -> None:
        kind, key, owner = str(change["kind"]), str(change["key"]), str(change["owner"])
        body = change.get("body")
        known = self.state.row(self.link.server, workspace, kind, key)
        local = known.local if known else ""
        digest = str(change.get("digest", ""))
        if kind in NEW_KINDS:
            applied = self.local.apply(workspace, change, owners.get(owner, owner), known)
            local, report.pulled, report.removed = applied.local, report.pulled + applied.pulled, report.removed + applied.removed
            mine = owner == self.link.account
            digest = (self.local.local_digest(workspace, kind, local) if mine and applied.pulled else None) or applied.digest
        elif kind == wire.MEMORY:
            if body is None:
                existing = self.store.get(workspace, key)
                if existing is not None:
                    if change.get("deleted"):
                        self.store.add_tombstone(workspace, "memory", key, text_digest(existing.text), self.now())
                    self.store.delete(workspace, key)
                    report.removed += 1
            else:
                self._apply_memory(workspace, body)
                report.pulled += 1
        elif kind == wire.DECISION_DOC and body is not None:
            author = None if owner == self.link.account else f"{owners.get(owner, owner)}/{body.get('author', '')}"
            doc = records.doc_of(body, workspace, author=author)
            doc_id = int(local) if local else 0
            if doc_id and self.store.decision_doc_by_id(workspace, doc_id) is None:
                doc_id = 0  # gone here meanwhile (with a memory the pull removed): saved anew
            if not doc_id:
                same = self.store.decision_doc(workspace, doc.scope, doc.title, doc.author)
                doc_id = same.id if same else 0
            saved = self.store.save_decision_doc(replace(doc, id=doc_id))
            local = str(saved.id)
            report.pulled += 1
        elif kind == wire.REVIEW and body is not None and not local:
            item = self.store.add_review(ReviewItem(
                id=0, workspace=workspace, scope=str(body.get("scope", "")), kind=str(body.get("kind", "contradiction")),
                payload=dict(body.get("payload") or {}), proposed_by=str(body.get("proposed_by", "")),
                created_at=self.now(), refs=tuple(str(r) for r in body.get("refs") or ())))  # fmt: skip
            local = str(item.id)
            report.pulled += 1
        self.state.set_row(self.link.server, workspace, SyncedRow(
            kind, key, owner, digest, int(change["seq"]), bool(change.get("deleted")), local))  # fmt: skip

    def _apply_memory(self, workspace: str, body: Mapping[str, Any]) -> None:
        memory, events = records.memory_of(body, workspace)
        if any(t.kind == "memory" and t.key == memory.ref for t in self.store.tombstones(workspace)):
            return  # forgotten here: the delete goes up at the next push
        existing = self.store.get(workspace, memory.ref)
        if existing is None:
            self.store.insert(memory)
            have: set[tuple[object, ...]] = set()
        else:
            self.store.update(memory.evolve(recalled=existing.recalled, uses=existing.uses,
                                            last_used_at=existing.last_used_at))  # fmt: skip
            have = {(e.at, e.event, e.detail, e.other_ref) for e in self.store.events(workspace, memory.ref)}
        for e in events:
            if (e.at, e.event, e.detail, e.other_ref) not in have:
                self.store.add_event(workspace, MemoryEvent(e.ref, e.at, e.event, redacted(e.detail), e.other_ref))


def _batches(items: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    """Runs of at most ``size`` items and about half the byte limit (room for the envelope)."""
    batch: list[dict[str, Any]] = []
    weight = 0
    for item in items:
        cost = len(json.dumps(item))
        if batch and (len(batch) >= size or weight + cost > wire.MAX_BATCH_BYTES // 2):
            yield batch
            batch, weight = [], 0
        batch.append(item)
        weight += cost
    if batch:
        yield batch
