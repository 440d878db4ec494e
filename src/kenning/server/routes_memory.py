"""``/api/v1``: memory recall (one workspace or several, labelled), remember (a decision with
its doc), proposals of a change, a memory by ref, a project's memories, and a workspace's
health: the CLI's and MCP server's memory calls, answered from the workspace's materialized
memory store (kenning.server.workspace_core).

Reads need a role in the workspace (viewers read); remember and proposals need a writing
role. Every answer leaves out what the MCP tools leave out: hidden, held and withheld
memories are never there (recall, list, and a teammate's get: 404 as for a ref that does not
exist), and memory text is quoted as the tools quote it. The one exception is a memory's
author asking for it by ref: their own hidden memory comes back, marked hidden.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from kenning.clock import to_iso
from kenning.core import decisions
from kenning.core import recall as recall_mod
from kenning.core.across import interleave
from kenning.core.health import health
from kenning.core.remember import RememberRequest
from kenning.core.render import hit_marks, lifecycle_marks, memory_dict, memory_line
from kenning.core.scopes import Place, named
from kenning.domain.lifecycle import quoted, withheld
from kenning.domain.write_rules import parse_trigger
from kenning.errors import NotFound
from kenning.ids import normalize_ref
from kenning.model import PERSONAL_SCOPE, Kind, Memory, Origin, Status
from kenning.server import writes
from kenning.server.auth import Forbidden, Principal, grant
from kenning.server.deps import author_name, caller, now_of, store_of
from kenning.server.workspace_core import WorkspaceCore, workspace_core
from kenning.store.protocol import MemoryFilter
from kenning.sync import records, wire

router = APIRouter(prefix="/api/v1", tags=["memory"])

SLUG = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
Slug = Annotated[str, Field(min_length=1, max_length=100, pattern=SLUG)]
Ref = Annotated[str, Field(min_length=1, max_length=40)]
Project = Annotated[str, Field(max_length=300, description="The project's scope key, e.g. github.com/acme/shop;"
                               " empty: personal memories.")]  # fmt: skip
MAX_WORKSPACES = 10
PAGE = 100
ERRORS: dict[int | str, dict[str, Any]] = {400: {}, 401: {}, 403: {}, 404: {}, 413: {}, 422: {}, 429: {}}


class RecallBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    workspace: Slug | None = Field(None, description="One workspace (or give `workspaces`).")
    workspaces: list[Slug] | None = Field(None, min_length=1, max_length=MAX_WORKSPACES,
                                          description="Several workspaces: results labelled by workspace.")  # fmt: skip
    query: str = Field(min_length=1, max_length=1000, description="The task in your own words.")
    also: list[Annotated[str, Field(min_length=1, max_length=1000)]] = Field([], max_length=recall_mod.MAX_ALSO)
    count: int = Field(recall_mod.DEFAULT_COUNT, ge=1, le=recall_mod.MAX_COUNT)
    project: Project = ""
    as_of: str | None = Field(None, max_length=40, description="ISO date or time: what was believed then (UTC).")


class RecallAnswer(BaseModel):
    query: str
    as_of: str | None = None
    workspaces: list[str]
    results: list[dict[str, Any]] = Field(description="Each memory with its `workspace`, `line`, score and marks.")
    note: str = ""


class RememberBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    workspace: Slug
    text: str = Field(min_length=1, max_length=2000, description="One self-contained sentence.")
    kind: Literal["decision", "preference", "state", "fact", "lesson"] | None = None
    reason: str = Field("", max_length=4000)
    rejected: str = Field("", max_length=4000)
    subject: str = Field("", max_length=120, description="Dotted slot key (a state needs one).")
    when: str | None = Field(None, max_length=300, description='Lesson trigger: "shell:<regex>", "read:<glob>", "edit:<glob>".')
    source: str = Field("", max_length=80, description="The writing tool's name.")
    source_ref: str = Field("", max_length=300)
    project: Project = ""
    global_: bool = Field(False, alias="global", description="A memory for every project.")
    confidence: Literal["high", "medium", "low"] | Annotated[float, Field(gt=0, le=1)] | None = None
    origin: Literal["agent", "person"] = "agent"
    session: str = Field("", max_length=200)
    branch: str = Field("", max_length=200)
    tags: list[Annotated[str, Field(min_length=1, max_length=60)]] = Field([], max_length=20)
    replaces: list[Ref] = Field([], max_length=50, description="Your own memories this one supersedes"
                                " (a teammate's is refused: propose the change).")  # fmt: skip
    index: bool = Field(False, description="Pin it into the project's index (at most 25 there).")
    unindex: str = Field("", max_length=40, description="Your own pinned memory to unpin when the index is full.")
    used: list[Ref] = Field([], max_length=50, description="Refs that shaped the work (counted as uses on the server).")
    title: str = Field("", max_length=200, description="A decision doc's title (default: the decision's sentence).")


class DocOut(BaseModel):
    title: str
    author: str
    text: str


class RememberAnswer(BaseModel):
    outcome: str = Field(description="stored, strengthened, held_for_review or index_full (nothing written)")
    ref: str
    seq: int
    memory: dict[str, Any] | None = None
    other: str = Field("", description="the memory strengthened or contradicted")
    decision_doc: DocOut | None = Field(None, description="a decision's doc, as the team's copy holds it")
    superseded: list[str] = Field([], description="earlier memories of its slot, superseded")
    retired: list[str] = Field([], description="what replaces superseded")
    unplaced: list[str] = Field([], description="replaces refs that are not memories of this project")
    index: list[str] = Field([], description="index_full: the pinned memories, one line each")
    unknown_used: list[str] = Field([], description="used refs that match no memory")
    warnings: list[str] = []
    note: str = ""


class ProposalBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    workspace: Slug
    project: Project = ""
    type: Literal["merge", "retire", "lesson"]
    refs: list[Ref] = Field(min_length=1, max_length=50)
    text: str = Field("", max_length=2000, description="merge/lesson: the one sentence replacing the refs.")
    when: str | None = Field(None, max_length=300, description='lesson: "shell:<regex>", "read:<glob>", "edit:<glob>".')
    why: str = Field("", max_length=4000)
    source: str = Field("", max_length=80, description="The proposing tool's name.")


class ProposalAnswer(BaseModel):
    review: str = Field(description="the review record's key")
    seq: int
    kind: str
    refs: list[str]
    authors: list[str] = Field(description="whose Needs review it reaches (account names)")
    note: str


class MemoryPage(BaseModel):
    memories: list[dict[str, Any]]
    offset: int
    next_offset: int | None = None
    total: int


def _place(wc: WorkspaceCore, project: str) -> Place:
    return named(wc.core.store, wc.workspace, project.strip() or PERSONAL_SCOPE, wc.core.now())


def shown(memory: Memory, now: datetime, marks: list[str] | None = None) -> dict[str, Any]:
    out = memory_dict(memory, now)
    for private in ("hidden", "held"):
        out.pop(private, None)
    out["line"] = memory_line(memory, marks=marks)
    return out


def _readable(principal: Principal, workspaces: list[str]) -> None:
    """Refuse the whole request, naming each workspace this token may not read."""
    refused = []
    for ws in workspaces:
        try:
            grant(principal, ws, write=False)
        except Forbidden as exc:
            refused.append(f"{ws} ({exc})")
    if refused:
        raise Forbidden(f"this token may not read {len(refused)} of the workspaces asked: " + "; ".join(refused))


@router.post("/recall", response_model=RecallAnswer, responses=ERRORS,
             summary="Recall memories for a task (one workspace, or several labelled).")  # fmt: skip
def recall(body: RecallBody, request: Request, principal: Principal = Depends(caller)) -> Any:
    if (body.workspace is None) == (body.workspaces is None):
        from kenning.errors import Invalid

        raise Invalid("give either workspace or workspaces", fix='e.g. {"workspace": "acme", "query": "…"}')
    asked = [body.workspace] if body.workspace is not None else list(dict.fromkeys(body.workspaces or []))
    if len(asked) > 1:  # one workspace: workspace_core checks it
        _readable(principal, asked)
    answers = []
    as_of = None
    for ws in asked:
        with workspace_core(request, principal, ws) as wc:
            # Counters describe one machine's use: the server's recall writes nothing.
            result = wc.core.recall(_place(wc, body.project), body.query, as_of=body.as_of, also=body.also,
                                    count=body.count, record=False)  # fmt: skip
            as_of = result.as_of
            answers.append((ws, result))
    now = now_of(request)
    results = [
        {"workspace": x.workspace, **shown(x.hit.memory, now, hit_marks(x.hit)), "score": round(x.hit.score, 6),
         "weak": x.hit.weak, "until": to_iso(x.hit.until) if x.hit.until else None}
        for x in interleave(answers, body.count) if not withheld(x.hit.memory)
    ]  # fmt: skip
    return {"query": body.query, "as_of": to_iso(as_of) if as_of else None, "workspaces": asked, "results": results,
            "note": "" if results else "nothing in memory covers that query"}  # fmt: skip


@router.post("/memories", response_model=RememberAnswer, responses=ERRORS,
             summary="Remember one memory (the write rules of kenning remember; it is yours).")  # fmt: skip
def remember(body: RememberBody, request: Request, principal: Principal = Depends(caller)) -> Any:
    now = now_of(request)
    req = RememberRequest(
        text=body.text, kind=Kind(body.kind) if body.kind else None, reason=body.reason, rejected=body.rejected,
        origin=Origin(body.origin), source=body.source.strip() or ("cli" if body.origin == "person" else "api"),
        source_ref=body.source_ref, subject=body.subject, when=parse_trigger(body.when), global_=body.global_,
        confidence=body.confidence, session=body.session.strip(), branch=body.branch, tags=tuple(body.tags),
        replaces=tuple(body.replaces), index=body.index, unindex=body.unindex.strip(), used=tuple(body.used),
        title=body.title,
    )  # fmt: skip
    author = author_name(store_of(request), principal.account)
    with workspace_core(request, principal, body.workspace, write=True) as wc:
        written = writes.remember(wc, _place(wc, body.project), req, now, author=author)
        memory = shown(written.memory, now) if written.memory is not None else None
        doc = written.doc
        doc_out = {"title": doc.title, "author": doc.author,
                   "text": decisions.render(wc.core.store, doc, for_agent=True)} if doc is not None else None  # fmt: skip
    result = written.result
    note = {"held_for_review": "held in Needs review: it contradicts a firmer memory; a person decides",
            "index_full": "the index is full; nothing was added. Pass unindex=<ref> from index to make room",
            }.get(result.status, "")  # fmt: skip
    return {"outcome": result.status, "ref": result.key, "seq": result.seq, "memory": memory, "other": result.other,
            "decision_doc": doc_out, "superseded": written.superseded, "retired": written.retired,
            "unplaced": written.unplaced, "index": [memory_line(m, limit=160) for m in written.index if not withheld(m)],
            "unknown_used": written.unknown_used, "warnings": written.warnings, "note": note}  # fmt: skip


@router.post("/proposals", response_model=ProposalAnswer, responses=ERRORS,
             summary="Propose merging, retiring or turning memories into a lesson (changes nothing).")  # fmt: skip
def propose(body: ProposalBody, request: Request, principal: Principal = Depends(caller)) -> Any:
    """The proposal waits in Needs review on the machines of the memories' authors (after their
    next sync) until a person decides there; no memory, a teammate's least of all, is edited."""
    now = now_of(request)
    store = store_of(request)
    author = author_name(store, principal.account)
    with workspace_core(request, principal, body.workspace, write=True) as wc:
        made = writes.propose(wc, _place(wc, body.project), body.type, list(body.refs), now, text=body.text,
                              when=parse_trigger(body.when), why=body.why,
                              proposed_by=body.source.strip() or "api", author=author)  # fmt: skip
    names = {m.account: m.name for m in store.members(body.workspace)}
    return {"review": made.key, "seq": made.seq, "kind": made.kind, "refs": made.refs,
            "authors": [names.get(a, a) for a in made.authors],
            "note": "waiting in Needs review of the memories' authors after their next sync; nothing changed"}  # fmt: skip


@router.get("/memories/{ref}", responses=ERRORS, summary="A memory by ref, with its history and evidence.")
def get_memory(ref: str, request: Request, workspace: str = Query(min_length=1, max_length=100, pattern=SLUG), principal: Principal = Depends(caller)) -> Any:
    normal = normalize_ref(ref)
    with workspace_core(request, principal, workspace) as wc:
        core = wc.core
        memory = core.store.get(workspace, normal)
        if memory is None:  # not in the copy: maybe the caller's own hidden memory
            own = _own_private(wc, normal)
            if own is not None:
                return own
        if memory is None or withheld(memory):  # a withheld memory is not admitted to exist
            raise NotFound(f"no memory {normal} in workspace {workspace!r}", fix="use a ref that recall or list gave")
        hist = core.history(normal)
        now = core.now()
        return {
            "workspace": workspace, **shown(memory, now),
            "history": {
                "replaced": [_past(m) for m in hist.replaced if not withheld(m)],
                "replaced_by": [_past(m) for m in hist.replaced_by if not withheld(m)],
                "events": [{"at": to_iso(e.at), "event": e.event, "other": e.other_ref} for e in hist.events],
            },
            "evidence": {"confirmations": memory.confirmations, "by_tools": sorted({memory.origin_tool} - {""})},
        }  # fmt: skip


def _own_private(wc: WorkspaceCore, ref: str) -> dict[str, Any] | None:
    """The caller's own hidden (or held) memory, from its record: row-level security gives a
    private body to its owner alone, and the owner is checked here again. None for anyone
    else, so a teammate's answer is the 404 of a ref that does not exist."""
    rec = wc.tx.record(wire.MEMORY, ref)
    if rec is None or rec.deleted or not rec.private or rec.body is None or rec.owner != wc.account:
        return None
    memory, events = records.memory_of(rec.body, wc.workspace)
    now = wc.core.now()
    marks = [m for m, on in (("hidden", memory.hidden), ("held", memory.held)) if on]
    return {
        "workspace": wc.workspace, **shown(memory, now, marks), "hidden": memory.hidden, "held": memory.held,
        "history": {"replaced": [], "replaced_by": [],
                    "events": [{"at": to_iso(e.at), "event": e.event, "other": e.other_ref} for e in events]},
        "evidence": {"confirmations": memory.confirmations, "by_tools": sorted({memory.origin_tool} - {""})},
        "note": "hidden from sessions: only you see it (give it to sessions again on your machine)",
    }  # fmt: skip


def _past(memory: Memory) -> dict[str, Any]:
    return {"ref": memory.ref, "text": quoted(memory), "status": memory.status.value,
            "until": to_iso(memory.status_at) if memory.status_at else None}  # fmt: skip


@router.get("/memories", response_model=MemoryPage, responses=ERRORS,
            summary="A project's memories, oldest first, 100 a page.")  # fmt: skip
def list_memories(
    request: Request, workspace: str = Query(min_length=1, max_length=100, pattern=SLUG), project: str = Query("", max_length=300),
    offset: int = Query(0, ge=0, le=1_000_000), include_inactive: bool = Query(False),
    principal: Principal = Depends(caller),
) -> Any:  # fmt: skip
    with workspace_core(request, principal, workspace) as wc:
        now = wc.core.now()
        where = _place(wc, project)
        # Hidden and held memories are not in the served copy, so a page is a page of the store's.
        found = wc.core.list_memories(where, offset=offset, limit=PAGE, include_inactive=include_inactive)
        page = [shown(m, now, lifecycle_marks(m, now) or None) for m in found if not withheld(m)]
        statuses = tuple(Status) if include_inactive else (Status.ACTIVE,)
        total = wc.core.store.count(MemoryFilter(workspace, [where.project], statuses=statuses))
    more = offset + PAGE < total
    return {"memories": page, "offset": offset, "next_offset": offset + PAGE if more else None, "total": total}


@router.get("/health", responses=ERRORS, summary="A workspace's memory health (refs only; nothing is repaired).")
def workspace_health(
    request: Request, workspace: str = Query(min_length=1, max_length=100, pattern=SLUG), project: str = Query("", max_length=300),
    principal: Principal = Depends(caller),
) -> Any:  # fmt: skip
    with workspace_core(request, principal, workspace) as wc:
        report = health(wc.core, project.strip() or None)
        head = wc.tx.head()
        memories = wc.tx.count("memory")
    return {
        "workspace": workspace, "head": head, "memory_records": memories, "checked": report.checked,
        "moves": [{"ref": m.ref, "from": m.from_scope, "to": m.to_scope, "why": m.why} for m in report.moves],
        "not_judged": report.not_judged, "never_returned": report.never_returned,
        "longer_than_a_sentence": report.long, "untagged": len(report.untagged),
        "exact_duplicates": report.duplicates,
    }  # fmt: skip
