"""Memory tools: recall, remember, get_memory, list_memories, record_decision,
propose_memory_change. Each is one small function over the core.

What reaches the model: never a hidden or held memory (on any path, including neighbours,
history and the index), and widget text always quoted (render.memory_dict/memory_line).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from kenning.clock import to_iso
from kenning.core import decisions, deliveries
from kenning.core.recall import DEFAULT_COUNT, MAX_ALSO, MAX_COUNT
from kenning.core.remember import RememberRequest, RememberResult
from kenning.core.render import hit_marks, lifecycle_marks, memory_dict, memory_line
from kenning.domain.lifecycle import quoted, withheld
from kenning.domain.write_rules import parse_trigger
from kenning.ids import normalize_ref
from kenning.mcp.kit import (
    Cwd,
    Refs,
    Session,
    Source,
    Strict,
    add_tool,
    app_of,
    client_name,
    guarded,
    place,
    writer,
)
from kenning.model import Kind, Memory, Origin, Status

PAGE = 100
KindName = Literal["decision", "preference", "state", "fact", "lesson"]
Confidence = Literal["high", "medium", "low"] | Annotated[float, Field(gt=0, le=1)]
Sentence = Annotated[str, Field(min_length=1, max_length=2000)]
Detail = Annotated[str, Field(max_length=4000)]
# remember's arguments, shared with the remote server's remember (kenning.mcp.remote).
MemoryText = Annotated[str, Field(min_length=1, max_length=2000, description="One self-contained sentence.")]
Rejected = Annotated[str, Field(max_length=4000, description="Alternatives turned down.")]
SourceRef = Annotated[str, Field(max_length=300, description="A file, path:line, path:a-b, path:symbol or a commit.")]
Subject = Annotated[str, Field(max_length=120, description="Dotted slot key (a state needs one).")]
Trigger = Annotated[
    str | None,
    Field(max_length=300, description='Lesson trigger: "shell:<regex>", "read:<glob>" or "edit:<glob>".'),
]
Pin = Annotated[bool, Field(description="Pin into the project's index (at most 25).")]
Unpin = Annotated[str, Field(max_length=40, description="Ref to take out when the index is full.")]
Used = Annotated[
    list[Annotated[str, Field(max_length=40)]],
    Field(max_length=50, description="Refs that shaped the work (counted as uses)."),
]
# record_decision's and propose_memory_change's arguments, shared likewise.
DecisionTitle = Annotated[str, Field(min_length=1, max_length=2000, description="The decision, in one sentence.")]
Reasoning = Annotated[str, Field(min_length=1, max_length=4000, description="Why it was decided.")]
Alternatives = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=500)]],
    Field(max_length=10, description="Alternatives considered and turned down."),
]
Level = Literal["high", "medium", "low"]
ChangeType = Literal["merge", "retire", "lesson"]
ProposalRefs = Annotated[list[Annotated[str, Field(max_length=40)]], Field(min_length=1, max_length=50)]
ProposalText = Annotated[str, Field(max_length=2000, description="merge/lesson: the one sentence replacing the refs.")]


class RecallOut(Strict):
    query: str
    as_of: str | None = None
    results: list[dict[str, Any]]
    note: str = ""


class RememberOut(Strict):
    outcome: str
    memory: dict[str, Any] | None = None
    neighbours: list[str] = []
    superseded: list[str] = []
    retired: list[str] = []
    unplaced: list[str] = []
    review: int | None = None
    index: list[str] = []
    decision_doc: dict[str, Any] | None = None
    warnings: list[str] = []
    note: str = ""


class MemoriesOut(Strict):
    memories: list[dict[str, Any]]
    unknown: list[str] = []


class PageOut(Strict):
    memories: list[dict[str, Any]]
    offset: int
    next_offset: int | None = None
    total: int


class ProposalOut(Strict):
    review: int
    kind: str
    refs: list[str]
    note: str


def shown(memory: Memory, now: datetime, marks: list[str] | None = None) -> dict[str, Any]:
    """A memory as a tool hands it out: one line with its ref, plus the fields."""
    out = memory_dict(memory, now)
    for private in ("hidden", "held"):
        out.pop(private, None)
    out["line"] = memory_line(memory, marks=marks)
    return out


def _request(
    ctx: Context, *, text: str, kind: KindName | None, reason: str, rejected: str, source: str, source_ref: str,
    subject: str, when: str | None, replaces: list[str], index: bool, unindex: str, global_: bool,
    used: list[str], confidence: str | float | None, session: str, branch: str, title: str = "",
) -> RememberRequest:  # fmt: skip
    # The branch of the place: a use recorded here links the decision's outcome to this work.
    return RememberRequest(
        text=text, kind=Kind(kind) if kind else None, reason=reason, rejected=rejected, origin=Origin.AGENT,
        source=writer(ctx, source), source_ref=source_ref, subject=subject, when=parse_trigger(when),
        replaces=tuple(replaces), index=index, unindex=unindex, global_=global_, used=tuple(used),
        confidence=confidence, session=session.strip(), branch=branch, title=title,
    )  # fmt: skip


def _remembered(result: RememberResult, now: datetime, doc: dict[str, Any] | None = None) -> RememberOut:
    memory = result.memory
    note = ""
    if memory is not None and withheld(memory):
        if result.outcome == "stored" and not (memory.hidden or memory.held):
            # The caller's own new sentence, whose cited file is not there: say so.
            note = (f"stored, but its citation {memory.source_ref!r} names nothing in the project, so sessions "
                    "will not receive it; cite a file that exists (path, path:line or path:symbol)")
        else:
            # A near-duplicate of a memory the person keeps from sessions: say nothing about it.
            memory, doc = None, None
            note = "nothing new was stored: the claim matches a memory kept from sessions"
    if result.outcome == "held_for_review":
        note = "held in Needs review: it contradicts a firmer memory; a person decides"
    if result.outcome == "index_full":
        note = "the index is full; nothing was added. Pass unindex=<ref> from index to make room"
    return RememberOut(
        outcome=result.outcome,
        memory=shown(memory, now) if memory is not None else None,
        neighbours=[memory_line(m, limit=160) for m in result.neighbours if not withheld(m)],
        superseded=result.superseded, retired=result.retired, unplaced=result.unplaced,
        review=result.review.id if result.review else None,
        index=[memory_line(m, limit=160) for m in result.index if not withheld(m)],
        decision_doc=doc, warnings=result.warnings, note=note,
    )  # fmt: skip


def recall(
    ctx: Context,
    query: Annotated[str, Field(min_length=1, max_length=1000, description="The task in your own words.")],
    as_of: Annotated[
        str | None, Field(max_length=40, description="ISO date or time: answer from what was believed then (UTC).")
    ] = None,
    also: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=1000)]],
        Field(max_length=MAX_ALSO, description="Up to 3 other phrasings, each searched; results merged."),
    ] = [],  # noqa: B006 - pydantic copies defaults
    count: Annotated[int, Field(ge=1, le=MAX_COUNT)] = DEFAULT_COUNT,
    cwd: Cwd = None,
) -> RecallOut:
    """Search memory for the task at hand: decisions with reasons, preferences, facts,
    lessons. Call it at the start of a task with the task in your own words. Each result
    has a ref (cite it in `used` on later writes, never in replies) and marks: weak,
    citation: changed, resting, until (with as_of). Nothing relevant returns no results."""
    app = app_of(ctx)
    with guarded(app):
        where = place(app, cwd)
        result = app.core.recall(where, query, as_of=as_of, also=also, count=count)
        now = app.core.now()
        hits = [h for h in result.hits if not withheld(h.memory)]
        results = [
            {**shown(h.memory, now, hit_marks(h)), "weak": h.weak, "until": to_iso(h.until) if h.until else None}
            for h in hits
        ]
        if not as_of:  # what was believed then is not memory handed out for work
            deliveries.handed_out(app.core, "recall", [h.memory.ref for h in hits], asked=query,
                                  project=where.project, tool=client_name(ctx))  # fmt: skip
    return RecallOut(
        query=query, as_of=to_iso(result.as_of) if result.as_of else None, results=results,
        note="" if results else "nothing in memory covers that query",
    )  # fmt: skip


def remember(
    ctx: Context,
    text: MemoryText,
    kind: KindName | None = None,
    reason: Detail = "",
    rejected: Rejected = "",
    source: Source = "",
    source_ref: SourceRef = "",
    subject: Subject = "",
    when: Trigger = None,
    replaces: Refs = [],  # noqa: B006
    index: Pin = False,
    unindex: Unpin = "",
    global_: Annotated[bool, Field(alias="global", description="A memory for every project.")] = False,
    used: Used = [],  # noqa: B006
    confidence: Confidence | None = None,
    session: Session = "",
    cwd: Cwd = None,
) -> RememberOut:
    """Save one typed memory, deduplicated (a near-duplicate strengthens the existing one).
    At the end of a task, at most two per task, only what a future agent would act better
    for knowing: a correction, a confirmed approach, a decision and why, a non-obvious
    fact. Not what code, git or docs already say. A refusal says how to fix the call."""
    app = app_of(ctx)
    with guarded(app):
        where = place(app, cwd)
        request = _request(ctx, text=text, kind=kind, reason=reason, rejected=rejected, source=source,
                           source_ref=source_ref, subject=subject, when=when, replaces=replaces, index=index,
                           unindex=unindex, global_=global_, used=used, confidence=confidence, session=session,
                           branch=where.branch)  # fmt: skip
        if request.kind is Kind.DECISION:
            decided = app.core.record_decision(where, request)
            return _remembered(decided.remembered, app.core.now(), _doc(app.core, decided.doc))
        return _remembered(app.core.remember(where, request), app.core.now())


def _doc(core: Any, doc: Any) -> dict[str, Any] | None:
    if doc is None:
        return None
    return {"id": doc.id, "title": doc.title, "text": decisions.render(core.store, doc, for_agent=True)}


def record_decision(
    ctx: Context,
    title: DecisionTitle,
    reasoning: Reasoning,
    alternatives: Alternatives = [],  # noqa: B006
    confidence: Level | None = None,
    source: Source = "",
    source_ref: Annotated[str, Field(max_length=300)] = "",
    used: Refs = [],  # noqa: B006
    session: Session = "",
    cwd: Cwd = None,
) -> RememberOut:
    """Record a decision as it is made: a decision memory plus a decision doc holding the
    full reasoning and the alternatives turned down (same as remember with kind=decision)."""
    app = app_of(ctx)
    with guarded(app):
        where = place(app, cwd)
        request = _request(ctx, text=title, kind="decision", reason=reasoning, rejected="; ".join(alternatives),
                           source=source, source_ref=source_ref, subject="", when=None, replaces=[], index=False,
                           unindex="", global_=False, used=used, confidence=confidence, session=session,
                           branch=where.branch)  # fmt: skip
        decided = app.core.record_decision(where, request)
        return _remembered(decided.remembered, app.core.now(), _doc(app.core, decided.doc))


def get_memory(
    ctx: Context,
    refs: Annotated[list[Annotated[str, Field(max_length=40)]], Field(min_length=1, max_length=25)],
) -> MemoriesOut:
    """Fetch memories by ref: claim, reason, citation state, status, pinned, history
    (what it replaced, what replaced it) and evidence (confirmations, uses, by which
    tools). Refs that match nothing are listed under unknown."""
    app = app_of(ctx)
    out, unknown = [], []
    with guarded(app):
        core = app.core
        now = core.now()
        for raw in refs:
            try:
                ref = normalize_ref(raw)
            except Exception:
                unknown.append(raw)
                continue
            memory = core.store.get(core.workspace, ref)
            if memory is None or withheld(memory):
                unknown.append(raw)  # a withheld memory is not admitted to exist
                continue
            hist = core.history(ref)
            uses = core.store.uses(core.workspace, ref)
            out.append({
                **shown(memory, now),
                "history": {
                    "replaced": [_past(m) for m in hist.replaced if not withheld(m)],
                    "replaced_by": [_past(m) for m in hist.replaced_by if not withheld(m)],
                },
                "placements": [{"decision": p.decision.value, "place": p.place}
                               for p in core.store.placements(core.workspace, [ref])],
                "evidence": {
                    "confirmations": memory.confirmations,
                    "uses": memory.uses,
                    "by_tools": sorted({u.tool for u in uses if u.tool} | {memory.origin_tool} - {""}),
                    "sessions": len({u.session for u in uses if u.session}),
                },
            })  # fmt: skip
    return MemoriesOut(memories=out, unknown=unknown)


def _past(memory: Memory) -> dict[str, Any]:
    return {
        "ref": memory.ref,
        "text": quoted(memory),
        "status": memory.status.value,
        "until": to_iso(memory.status_at) if memory.status_at else None,
    }


def list_memories(
    ctx: Context,
    offset: Annotated[int, Field(ge=0, le=1_000_000, description="Skip this many (pages of 100).")] = 0,
    cwd: Cwd = None,
) -> PageOut:
    """The project's memories for a tidy the person agreed to: oldest first, 100 a call,
    each with its ref and whether it is resting or a stale state."""
    app = app_of(ctx)
    with guarded(app):
        core = app.core
        now = core.now()
        visible = [m for m in core.list_memories(place(app, cwd), limit=-1) if not withheld(m)]
        page = visible[offset : offset + PAGE]
        memories = [shown(m, now, lifecycle_marks(m, now) or None) for m in page]
    more = offset + PAGE < len(visible)
    return PageOut(memories=memories, offset=offset, next_offset=offset + PAGE if more else None, total=len(visible))


def propose_memory_change(
    ctx: Context,
    type: ChangeType,  # noqa: A002 - the name agents know
    refs: ProposalRefs,
    text: ProposalText = "",
    when: Trigger = None,
    why: Detail = "",
    source: Source = "",
    cwd: Cwd = None,
) -> ProposalOut:
    """Propose merging, retiring or turning memories into a lesson. Changes nothing: the
    proposal waits in Needs review until the person decides."""
    app = app_of(ctx)
    with guarded(app):
        where = place(app, cwd)
        for raw in refs:
            memory = app.core.store.get(app.core.workspace, normalize_ref(raw))
            if memory is not None and withheld(memory):
                raise ToolError(f"{raw} is not a memory of this project. Propose changes only for refs you were given")
            if memory is not None and memory.status is not Status.ACTIVE:
                raise ToolError(f"{raw} is already {memory.status.value}. Propose changes only for active memories")
        item = app.core.propose(where, type, list(refs), text=text, when=parse_trigger(when), why=why,
                                proposed_by=writer(ctx, source))  # fmt: skip
    return ProposalOut(review=item.id, kind=item.kind, refs=list(item.refs),
                       note="waiting in Needs review; nothing changed until the person accepts it")  # fmt: skip


def register(server: MCPServer[Any]) -> None:
    add_tool(server, recall, title="Recall memory", read_only=True, idempotent=False)
    add_tool(server, remember, title="Remember", read_only=False)
    add_tool(server, get_memory, title="Get memories by ref", read_only=True, idempotent=True)
    add_tool(server, list_memories, title="List project memories", read_only=True, idempotent=True)
    add_tool(server, record_decision, title="Record a decision", read_only=False)
    add_tool(server, propose_memory_change, title="Propose a memory change", read_only=False, idempotent=False)
