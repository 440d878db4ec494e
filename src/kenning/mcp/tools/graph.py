"""Graph and notes tools: kg_query, kg_add, kg_timeline, decision_record, diary_write,
diary_read, set, get, wake_up, smart_resume. Each is one small function over the graph, the
notes and the context modules."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from kenning.context import resume as resume_mod
from kenning.context import wakeup
from kenning.core import notes
from kenning.graph import facts
from kenning.mcp.kit import Cwd, Session, Source, Strict, add_tool, app_of, guarded, place, writer
from kenning.quoting import as_data

Name = Annotated[str, Field(min_length=1, max_length=200, description="A project, tool, person or other named thing.")]
Predicate = Annotated[str, Field(min_length=1, max_length=60, description="A short verb: uses, depends_on, decided.")]
When = Annotated[str, Field(max_length=40, description="A date (2026-03-01 = end of that day, UTC) or an ISO time.")]
Key = Annotated[str, Field(min_length=1, max_length=64, description="Letters, digits or . _ : - (e.g. deploy.target).")]


class FactsOut(Strict):
    facts: list[dict[str, Any]]
    note: str = ""


class AddOut(Strict):
    added: bool
    fact: dict[str, Any]
    closed: list[str] = []


class DecisionOut(Strict):
    outcome: str
    memory: str | None = None
    fact: dict[str, Any] | None = None
    closed: list[dict[str, Any]] = []


class EntryOut(Strict):
    entry: dict[str, Any]


class EntriesOut(Strict):
    entries: list[dict[str, Any]]


class ValueOut(Strict):
    key: str
    value: str
    updated_at: str


class WakeUpOut(Strict):
    text: str
    identity: str = ""
    decisions: list[str] = []
    chunks: list[str] = []
    facts: list[str] = []


class ResumeOut(Strict):
    text: str
    state: dict[str, Any]


def kg_query(
    ctx: Context,
    entity: Name,
    predicate: Annotated[str, Field(max_length=60)] = "",
    as_of: When = "",
    direction: Literal["both", "out", "in"] = "both",
    limit: Annotated[int, Field(ge=1, le=500)] = 50,
) -> FactsOut:
    """Facts about an entity (subject -> predicate -> object), newest first. With as_of,
    only the facts that held at that moment; without it, ended facts are listed too (see
    valid_to). Each fact has an id (f:N)."""
    app = app_of(ctx)
    with guarded(app):
        rows = facts.query(app.core.stores.graph, app.core.workspace, entity, predicate=predicate, as_of=as_of or None,
                           direction=direction, limit=limit)
    return FactsOut(facts=[facts.as_dict(f) for f in rows], note="" if rows else f"no facts about {entity}")


def kg_add(
    ctx: Context,
    subject: Name,
    predicate: Predicate,
    object: Annotated[str, Field(min_length=1, max_length=500)],  # noqa: A002
    object_is_text: Annotated[bool, Field(description="The object is a sentence, not a named thing.")] = False,
    replace: Annotated[bool, Field(description="Close the subject's current value(s) of this predicate.")] = False,
    valid_from: When = "",
    confidence: Annotated[float, Field(gt=0, le=1)] = 0.9,
    session: Session = "",
    source: Source = "",
    cwd: Cwd = None,
) -> AddOut:
    """Add a fact. It closes nothing unless replace=true or the predicate has one value at a
    time (status, version, owner, ...): a project uses many tools. A fact already current is
    not added again."""
    app = app_of(ctx)
    with guarded(app):
        where = place(app, cwd)
        result = facts.add(app.core.stores.graph, app.core.clock, where.workspace, subject, predicate, object,
                           project=where.project, object_kind="text" if object_is_text else "entity",
                           valid_from=valid_from or None, confidence=confidence, origin="asserted",
                           session=session, person=writer(ctx, source), replace=replace)
    return AddOut(added=result.added, fact=facts.as_dict(result.fact), closed=[f"f:{i}" for i in result.closed])


def kg_timeline(ctx: Context, entity: Name) -> FactsOut:
    """Every fact about an entity, oldest first, with the window each held in."""
    app = app_of(ctx)
    with guarded(app):
        rows = facts.timeline(app.core.stores.graph, app.core.workspace, entity)
    return FactsOut(facts=[facts.as_dict(f) for f in rows])


def decision_record(
    ctx: Context,
    decision: Annotated[str, Field(min_length=1, max_length=2000, description="The decision, in one sentence.")],
    reasoning: Annotated[str, Field(min_length=1, max_length=4000, description="Why it was decided.")],
    area: Annotated[str, Field(max_length=60, description="e.g. auth, database. A later decision in the same "
                               "area closes this one; without an area both stay valid.")] = "",
    alternatives: Annotated[list[Annotated[str, Field(min_length=1, max_length=500)]], Field(max_length=10)] = [],  # noqa: B006
    session: Session = "",
    source: Source = "",
    cwd: Cwd = None,
) -> DecisionOut:
    """Record a decision with its area: a decision memory, its doc, and a graph fact. The
    earlier decision of the same area stays stored but is no longer current."""
    app = app_of(ctx)
    with guarded(app):
        where = place(app, cwd)
        done = notes.decision_record(app.core, where, decision, area=area, reason=reasoning,
                                     rejected="; ".join(alternatives), source=writer(ctx, source), session=session)
    memory = done.result.remembered.memory
    return DecisionOut(outcome=done.result.remembered.outcome, memory=memory.ref if memory else None,
                       fact=facts.as_dict(done.fact) if done.fact else None,
                       closed=[facts.as_dict(f) for f in done.closed])


def diary_write(
    ctx: Context,
    text: Annotated[str, Field(min_length=1, max_length=4000)],
    agent: Annotated[str, Field(max_length=80, description="Whose diary (default: the client's name).")] = "",
    cwd: Cwd = None,
) -> EntryOut:
    """Add a dated entry to your diary for this project."""
    app = app_of(ctx)
    with guarded(app):
        entry = notes.diary_write(app.core, place(app, cwd), text, agent=agent or writer(ctx, ""))
    return EntryOut(entry=entry)


def diary_read(
    ctx: Context,
    agent: Annotated[str, Field(max_length=80, description="Only this agent's entries (default: all).")] = "",
    since: When = "",
    limit: Annotated[int, Field(ge=1, le=200)] = 20,
    cwd: Cwd = None,
) -> EntriesOut:
    """Diary entries of this project, newest first."""
    app = app_of(ctx)
    with guarded(app):
        entries = notes.diary_read(app.core, place(app, cwd), agent=agent, since=since, limit=limit)
    return EntriesOut(entries=entries)


def set_value(ctx: Context, key: Key, value: Annotated[str, Field(max_length=2000)], cwd: Cwd = None) -> ValueOut:
    """Set a small named value for this project (replaces the old value)."""
    app = app_of(ctx)
    with guarded(app):
        row = notes.set_value(app.core, place(app, cwd), key, value)
    return ValueOut(key=row["key"], value=as_data(row["value"]), updated_at=row["updated_at"])


def get_value(ctx: Context, key: Key, cwd: Cwd = None) -> ValueOut:
    """Read a small named value of this project."""
    app = app_of(ctx)
    with guarded(app):
        row = notes.get_value(app.core, place(app, cwd), key)
    # Any agent may set a value: to an agent it is data, quoted (the CLI prints it bare for scripts).
    return ValueOut(key=row["key"], value=as_data(row["value"]), updated_at=row["updated_at"])


def wake_up(ctx: Context, cwd: Cwd = None) -> WakeUpOut:
    """The start context of a session: identity, current decisions, the top decision /
    preference / milestone lines of past sessions and current facts, each with its id
    (c:N chunk, f:N fact). Under 2,000 characters."""
    app = app_of(ctx)
    with guarded(app):
        bundle = wakeup.build(app.core.stores, app.settings, place(app, cwd))
    return WakeUpOut(text=bundle.render(), identity=bundle.identity, decisions=bundle.decisions,
                     chunks=bundle.chunks, facts=bundle.facts)


def smart_resume(
    ctx: Context,
    session: Annotated[str, Field(max_length=200, description="A session id (default: the last one here).")] = "",
    cwd: Cwd = None,
) -> ResumeOut:
    """Where the last piece of work in this project and branch stands: what was asked, what
    was done, what is open (todo items, an unanswered ask, failing commands), files changed."""
    app = app_of(ctx)
    with guarded(app):
        state = resume_mod.resume(app.core.stores.capture, place(app, cwd), session)
    return ResumeOut(text=resume_mod.render(state), state=state.to_dict())


def register(server: MCPServer[Any]) -> None:
    add_tool(server, kg_query, title="Query the knowledge graph", read_only=True, idempotent=True)
    add_tool(server, kg_add, title="Add a fact", read_only=False, idempotent=True)
    add_tool(server, kg_timeline, title="Timeline of an entity", read_only=True, idempotent=True)
    add_tool(server, decision_record, title="Record a decision with an area", read_only=False)
    add_tool(server, diary_write, title="Write a diary entry", read_only=False)
    add_tool(server, diary_read, title="Read diary entries", read_only=True, idempotent=True)
    add_tool(server, set_value, title="Set a project value", read_only=False, idempotent=True, name="set")
    add_tool(server, get_value, title="Get a project value", read_only=True, idempotent=True, name="get")
    add_tool(server, wake_up, title="Wake-up bundle", read_only=True, idempotent=True)
    add_tool(server, smart_resume, title="Resume the last work", read_only=True, idempotent=True)
