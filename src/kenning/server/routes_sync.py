"""``/api/v1/sync``: push a batch of records, pull what changed after a cursor."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from kenning.server.auth import Principal, grant
from kenning.server.deps import author_name, caller, now_of, store_of
from kenning.server.errors import Conflict, TooLarge
from kenning.store.server.protocol import StoredRecord
from kenning.sync import wire
from kenning.sync.apply import Item, apply_batch
from kenning.sync.records import held_view

router = APIRouter(prefix="/api/v1/sync", tags=["sync"])

Slug = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")]


class PushItem(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["memory", "decision_doc", "review", "fact", "diary", "value", "session", "session_part"]
    key: str = Field(min_length=1, max_length=wire.MAX_KEY)
    op: Literal["put", "delete"]
    digest: str = Field(pattern=r"^[0-9a-f]{64}$")
    body: dict[str, Any] | None = None
    base: int = Field(default=0, ge=0)


class PushRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    workspace: Slug
    batch: str = Field(min_length=8, max_length=100, pattern=r"^[A-Za-z0-9_-]+$",
                       description="A client-made id: the same batch sent again is answered once.")  # fmt: skip
    items: list[PushItem]


class ItemOutcome(BaseModel):
    kind: str
    key: str
    status: str = Field(description="stored, unchanged, strengthened, held_for_review or refused")
    seq: int = 0
    code: str = ""
    message: str = ""
    other: str = Field("", description="the memory strengthened or contradicted")


class PushResponse(BaseModel):
    results: list[ItemOutcome]
    head: int
    replayed: bool = False


class PullRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    workspace: Slug
    after: int = Field(default=0, ge=0, description="the cursor: the last sequence number applied")
    limit: int = Field(default=wire.PULL_LIMIT, ge=1, le=wire.PULL_LIMIT)


class Change(BaseModel):
    kind: str
    key: str
    owner: str
    seq: int
    digest: str
    deleted: bool = Field(description="forgotten: delete it and keep a tombstone")
    body: dict[str, Any] | None = Field(description="null: removed (forgotten, or another's hidden record)")


class PullResponse(BaseModel):
    changes: list[Change]
    head: int
    owners: dict[str, str] = Field(description="account id -> name, for the owners in changes")


class RecordKey(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["memory", "decision_doc", "review", "fact", "diary", "value", "session", "session_part"]
    key: str = Field(min_length=1, max_length=wire.MAX_KEY)


class RecordsRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    workspace: Slug
    keys: list[RecordKey] = Field(max_length=wire.PULL_LIMIT)


def _conflict(batch: str) -> Exception:
    return Conflict(f"batch {batch} was already applied with other content",
                    fix="give every new batch a new id; resend a batch only unchanged")  # fmt: skip


@router.post("/push", response_model=PushResponse, summary="Push a batch of records (idempotent by batch id).",
             responses={401: {}, 403: {}, 409: {}, 413: {}, 422: {}, 429: {}})  # fmt: skip
def push(body: PushRequest, request: Request, principal: Principal = Depends(caller)) -> Any:
    if len(body.items) > wire.MAX_BATCH_ITEMS:
        raise TooLarge(f"the batch holds {len(body.items)} records; the limit is {wire.MAX_BATCH_ITEMS}")
    request.state.workspace = body.workspace
    store = store_of(request)
    now = now_of(request)
    keys = set()
    items = []
    for i, raw in enumerate(body.items):
        if (raw.kind, raw.key) in keys:
            from kenning.errors import Invalid

            raise Invalid(f"items[{i}]: {raw.kind} {raw.key} appears twice in the batch", fix="send each record once")
        keys.add((raw.kind, raw.key))
        if (raw.op == "put") != (raw.body is not None) or wire.digest(raw.body) != raw.digest:
            from kenning.errors import Invalid

            raise Invalid(f"items[{i}]: the digest does not match the body (or a put has no body)",
                          fix="digest = SHA-256 of the body's canonical JSON (sorted keys); a delete has no body")  # fmt: skip
        items.append(Item(raw.kind, raw.key, raw.op, raw.digest, raw.body, raw.base))
    bd = wire.batch_digest([i.model_dump() for i in body.items])
    access, _role = grant(principal, body.workspace, write=True)
    author = author_name(store, principal.account)
    with store.workspace(access, write=True) as tx:
        tx.lock()
        prior = tx.batch(body.batch)
        if prior is not None:
            if prior[0] != bd:
                raise _conflict(body.batch)
            return {**prior[1], "replayed": True}
        with tx.pipelined():
            results = apply_batch(tx, body.workspace, principal.account, items, now, author=author)
        answer = {"results": [r.as_dict() for r in results], "head": tx.head()}
        tx.save_batch(body.batch, principal.account, bd, answer, now)
    return answer


@router.post("/pull", response_model=PullResponse, summary="Changes after a cursor, in order.",
             responses={401: {}, 403: {}, 422: {}, 429: {}})  # fmt: skip
def pull(body: PullRequest, request: Request, principal: Principal = Depends(caller)) -> Any:
    request.state.workspace = body.workspace
    store = store_of(request)
    access, _role = grant(principal, body.workspace, write=False)
    with store.workspace(access) as tx:
        head = tx.head()
        changes = _bounded(tx.changes(body.after, body.limit))
    names = {m.account: m.name for m in store.members(body.workspace)}
    owners = {c.owner: names.get(c.owner, c.owner) for c in changes}
    return {"changes": [_change(c, principal.account) for c in changes], "head": head, "owners": owners}


@router.post("/records", response_model=PullResponse, summary="Named records as they are now (as pull shows them).",
             responses={401: {}, 403: {}, 422: {}, 429: {}})  # fmt: skip
def records(body: RecordsRequest, request: Request, principal: Principal = Depends(caller)) -> Any:
    """The records named, each as a pull shows it (a key the server does not hold is left out).
    A machine asks for a teammate's record of a fact it holds under another record, when that
    record's fact ended or left (the fact stays current while any member asserts it)."""
    request.state.workspace = body.workspace
    store = store_of(request)
    access, _role = grant(principal, body.workspace, write=False)
    with store.workspace(access) as tx:
        head = tx.head()
        found = [r for r in (tx.record(k.kind, k.key) for k in body.keys) if r is not None]
    names = {m.account: m.name for m in store.members(body.workspace)}
    return {"changes": [_change(c, principal.account) for c in _bounded(found)], "head": head,
            "owners": {c.owner: names.get(c.owner, c.owner) for c in found}}  # fmt: skip


def _bounded(changes: list[StoredRecord]) -> list[StoredRecord]:
    """A page's first changes up to about :data:`wire.PULL_BYTES` of bodies (at least one), so a
    page of session parts stays a bounded answer; the client asks again from where it ends."""
    size = 0
    for i, c in enumerate(changes):
        size += len(wire.canonical(c.body)) if c.body is not None else 0
        if size > wire.PULL_BYTES and i > 0:
            return changes[:i]
    return changes


def _addressed_elsewhere(c: StoredRecord, viewer: str) -> bool:
    """A proposal (a review record with ``for``: kenning.server.writes.propose) goes to the
    Needs review of the memories' authors only; anyone else's machine reads it as removed."""
    if c.kind != wire.REVIEW or c.body is None or not isinstance(c.body.get("for"), list):
        return False
    return viewer not in c.body["for"]


def _change(c: StoredRecord, viewer: str) -> dict[str, Any]:
    """A change as its reader may see it. Another account's forgotten or hidden record reads
    the same way ("removed": no body, no digest of one, not marked forgotten), so a teammate
    sees a hidden memory as removed with no sign; only the owner's machines keep tombstones.
    Another account's decision doc whose memory is hidden or held reads ``[held memory]``."""
    visible = c.body is not None and not _addressed_elsewhere(c, viewer)
    body = dict(c.body) if c.body is not None and visible else None
    if body is not None and c.kind == wire.DECISION_DOC and c.owner != viewer:
        body = held_view(body)  # a hidden decision's words stay on its author's machines
    return {"kind": c.kind, "key": c.key, "owner": c.owner, "seq": c.seq,
            "digest": c.digest if visible or c.owner == viewer else wire.digest(None),
            "deleted": c.deleted and c.owner == viewer, "body": body}  # fmt: skip
