"""``/api/v1``: session search, graph query, timeline and add, values and the diary, answered
from the workspace's materialized graph, notes and capture stores (kenning.sync.materialize_kinds)
with the same code as the MCP tools on a machine.

Reads need a role in the workspace (viewers read). Writes (a graph fact, a value, a diary
entry) need a writing role and go through the records as a one-item push
(:func:`kenning.sync.apply.apply_batch`): redacted again, owned by the caller, given a
sequence number (machines pull them) and materialized, in the request's one transaction. A
value or diary entry reads back labelled by its author (``alice/deploy.target``), as every
record in the server's copy does. Everything anyone may have written is quoted as data.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from kenning.clock import from_iso, to_iso
from kenning.core.notes import KEY_RE, MAX_DIARY, MAX_VALUE
from kenning.errors import Invalid, NotFound, Refused
from kenning.graph import facts
from kenning.quoting import as_data, neutral
from kenning.redacted import head, one_line, part, redacted
from kenning.server.auth import Principal
from kenning.server.deps import author_name, caller, now_of, store_of
from kenning.server.workspace_core import WorkspaceCore, workspace_core
from kenning.store.protocol import FactRow
from kenning.sync import kinds, wire
from kenning.sync.apply import Item, ItemResult, apply_batch

router = APIRouter(prefix="/api/v1", tags=["graph", "notes"])

SLUG = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
Slug = Annotated[str, Field(min_length=1, max_length=100, pattern=SLUG)]
Project = Annotated[str, Field(max_length=300, description="The project's scope key (as `kenning projects` lists it).")]
Name = Annotated[str, Field(min_length=1, max_length=200)]
When = Annotated[str, Field(max_length=40, description="ISO date or date-time (UTC).")]
ERRORS: dict[int | str, dict[str, Any]] = {400: {}, 401: {}, 403: {}, 404: {}, 413: {}, 422: {}, 429: {}}


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")
    workspace: Slug


# -- graph ----------------------------------------------------------------------------------------
class GraphQueryBody(Body):
    entity: Name
    predicate: str = Field("", max_length=60)
    as_of: When = ""
    direction: Literal["both", "out", "in"] = "both"
    project: Project = ""
    limit: int = Field(200, ge=1, le=500)


class TimelineBody(Body):
    entity: Name
    limit: int = Field(500, ge=1, le=2000)


class GraphAddBody(Body):
    subject: Name
    predicate: str = Field(min_length=1, max_length=60)
    object: str = Field(min_length=1, max_length=500)
    object_kind: Literal["entity", "text"] = "entity"
    area: str = Field("", max_length=60)
    project: Project = ""
    valid_from: When = ""
    confidence: float = Field(1.0, gt=0, le=1)
    evidence: str = Field("", max_length=400)


@router.post("/graph/query", responses=ERRORS, summary="Facts about an entity (as of a date), newest first.")
def graph_query(body: GraphQueryBody, request: Request, principal: Principal = Depends(caller)) -> Any:
    with workspace_core(request, principal, body.workspace) as wc:
        rows = facts.query(wc.core.stores.graph, body.workspace, body.entity, predicate=body.predicate,
                           as_of=body.as_of or None, direction=body.direction, project=body.project,
                           limit=body.limit)  # fmt: skip
    return {"facts": [facts.as_dict(f) for f in rows], "note": "" if rows else f"no facts about {neutral(body.entity)}"}


@router.post("/graph/timeline", responses=ERRORS, summary="Facts touching an entity, oldest first.")
def graph_timeline(body: TimelineBody, request: Request, principal: Principal = Depends(caller)) -> Any:
    with workspace_core(request, principal, body.workspace) as wc:
        rows = facts.timeline(wc.core.stores.graph, body.workspace, body.entity, limit=body.limit)
    return {"facts": [facts.as_dict(f) for f in rows]}


@router.post("/graph/facts", responses=ERRORS, summary="Add a fact of yours (it travels to every machine).")
def graph_add(body: GraphAddBody, request: Request, principal: Principal = Depends(caller)) -> Any:
    now = now_of(request)
    at = to_iso(now)
    subject = redacted(body.subject.strip())
    if body.object_kind == "entity":
        obj_name = redacted(body.object.strip())
        obj = facts.entity_key(obj_name)
    else:
        obj_name = redacted(one_line(body.object))
        obj = part(obj_name, 0, facts.MAX_TEXT_OBJECT)
    start = _when(body.valid_from) if body.valid_from else at
    row = FactRow(0, body.workspace, body.project, facts.entity_key(subject), facts.predicate_id(body.predicate), obj,
                  body.object_kind, facts.area_id(body.area), start, None, round(body.confidence, 3), "asserted", "", "",
                  "", head(body.evidence, 400), at)  # fmt: skip
    record = kinds.fact_body(row, None, None)
    record.update(subject_name=subject, subject_type="unknown", object_name=obj_name if body.object_kind == "entity" else "",
                  object_type="unknown" if body.object_kind == "entity" else "")  # fmt: skip
    author = author_name(store_of(request), principal.account)
    with workspace_core(request, principal, body.workspace, write=True) as wc:
        graph = wc.core.stores.graph
        slot = graph.current_in_slot(body.workspace, row.subject, row.predicate, row.area) \
            if facts.closes_slot(row.predicate, row.area) else []  # fmt: skip
        result = _push(wc, author, wire.FACT, kinds.owned_key(wc.account, kinds.fact_identity(record)), record)
        fact = _materialized(wc, row)
        closed = [f for f in (graph.get(body.workspace, o.id) for o in slot) if f is not None and not f.current]
        for old in closed:
            _end_own_record(wc, author, old)
    return {"outcome": result.status, "seq": result.seq, "fact": facts.as_dict(fact) if fact else None,
            "closed": [facts.as_dict(f) for f in closed]}  # fmt: skip


def _end_own_record(wc: WorkspaceCore, author: str, fact: FactRow) -> None:
    """The server's copy ended ``fact`` (a new object of its single-valued slot, by the rule
    every machine applies when it pulls the new fact); when the caller stated it, the caller's
    record ends too, as their machine's kg_add would end it. A teammate's record stays theirs:
    their machine ends it at its next sync, by the same rule."""
    key = kinds.owned_key(wc.account, kinds.fact_row_identity(fact))
    held = wc.tx.record(wire.FACT, key)
    if held is None or held.owner != wc.account or held.body is None or held.body.get("valid_to") is not None:
        return
    _push(wc, author, wire.FACT, key, {**held.body, "valid_to": fact.valid_to})


def _materialized(wc: WorkspaceCore, row: FactRow) -> FactRow | None:
    from kenning.sync.materialize_kinds import same_fact

    return same_fact(wc.core.stores, wc.workspace, row)


# -- values and the diary ---------------------------------------------------------------------------
class ValuesBody(Body):
    project: Project = ""
    key: str = Field("", max_length=200, description="One value (as listed: yours, or a teammate's as name/key); empty: all.")


class SetValueBody(Body):
    project: Project = ""
    key: str = Field(min_length=1, max_length=64, pattern=KEY_RE.pattern)
    value: str = Field(max_length=MAX_VALUE)


class DiaryReadBody(Body):
    project: Project = ""
    agent: str = Field("", max_length=200, description="Only this agent's entries (as listed: author/agent).")
    since: When = ""
    limit: int = Field(20, ge=1, le=500)


class DiaryWriteBody(Body):
    project: Project = ""
    text: str = Field(min_length=1, max_length=MAX_DIARY)
    agent: str = Field("", max_length=80)


@router.post("/values", responses=ERRORS, summary="A project's values (each labelled by its author), or one.")
def values(body: ValuesBody, request: Request, principal: Principal = Depends(caller)) -> Any:
    with workspace_core(request, principal, body.workspace) as wc:
        notes = wc.core.stores.notes
        if body.key:
            row = notes.value(body.workspace, body.project, body.key)
            if row is None:
                raise NotFound(f"no value named {body.key!r} in {body.project or 'the personal scope'}",
                               fix="list them: POST /api/v1/values without key")  # fmt: skip
            rows = [row]
        else:
            rows = notes.values(body.workspace, body.project)
    return {"values": [{"key": neutral(r.key), "value": as_data(r.value), "updated_at": r.updated_at} for r in rows]}


@router.post("/values/set", responses=ERRORS, summary="Set a value of yours for a project (it travels).")
def set_value(body: SetValueBody, request: Request, principal: Principal = Depends(caller)) -> Any:
    now = to_iso(now_of(request))
    record = kinds.value_body(body.project, body.key, redacted(body.value), now)
    author = author_name(store_of(request), principal.account)
    with workspace_core(request, principal, body.workspace, write=True) as wc:
        key = kinds.owned_key(wc.account, kinds.identity("value", body.project, body.key))
        result = _push(wc, author, wire.VALUE, key, record)
    return {"outcome": result.status, "seq": result.seq, "key": body.key, "updated_at": now}


@router.post("/diary", responses=ERRORS, summary="A project's diary entries, newest first (agents as author/agent).")
def diary_read(body: DiaryReadBody, request: Request, principal: Principal = Depends(caller)) -> Any:
    with workspace_core(request, principal, body.workspace) as wc:
        rows = wc.core.stores.notes.diary(body.workspace, body.project, body.agent, body.since, body.limit)
    return {"entries": [{"at": r.at, "agent": neutral(r.agent), "text": as_data(r.text, multiline=True)} for r in rows]}


@router.post("/diary/write", responses=ERRORS, summary="Add a dated entry to your diary (it travels).")
def diary_write(body: DiaryWriteBody, request: Request, principal: Principal = Depends(caller)) -> Any:
    at = to_iso(now_of(request))
    text = redacted(body.text.strip())
    if not text:
        raise Invalid("the diary entry is empty", fix="write what happened, in a sentence or two")
    record = kinds.diary_body(body.project, head(body.agent.strip(), 80) or "api", at, text)
    author = author_name(store_of(request), principal.account)
    with workspace_core(request, principal, body.workspace, write=True) as wc:
        key = kinds.owned_key(wc.account, kinds.identity("diary", body.project, record["agent"], at, text))
        result = _push(wc, author, wire.DIARY, key, record)
    return {"outcome": result.status, "seq": result.seq, "at": at}


def _when(value: str) -> str:
    try:
        return to_iso(from_iso(value.strip()))
    except ValueError as exc:
        raise Invalid(f"valid_from {value!r} is not an ISO date-time", fix="give a time like 2026-03-01T14:00:00Z") from exc


def _push(wc: WorkspaceCore, author: str, kind: str, key: str, record: dict[str, Any]) -> ItemResult:
    """One record of the caller's, through the same path as a pushed one."""
    wc.tx.lock()
    now = wc.core.now()
    item = Item(kind, key, "put", wire.digest(record), record)
    [result] = apply_batch(wc.tx, wc.workspace, wc.account, [item], now, author=author)
    if result.status == wire.REFUSED:
        if result.code == "secret_found":
            raise Refused(result.message, fix="take the secret out and send it again")
        raise Invalid(result.message, fix="see the schema at /api/v1/openapi.json")
    return result
