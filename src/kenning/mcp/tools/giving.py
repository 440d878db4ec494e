"""What memory is given where: the memory index (``memory_index``), a person's decisions on
where a memory goes (``place_memory``). Whether memory helps is ``memory_report``
(:mod:`kenning.mcp.tools.report`).

None of these is needed in every session, so they sit in an opt-in tool group."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from kenning.clock import to_iso
from kenning.context import index as index_mod
from kenning.core import placements
from kenning.mcp.kit import Cwd, Session, Strict, add_tool, app_of, client_name, guarded, place
from kenning.model import Placing


class IndexOut(Strict):
    project: str
    text: str
    lines: list[dict[str, Any]]
    also: list[dict[str, Any]] = []


def memory_index(
    ctx: Context,
    for_: Annotated[Literal["agent", "automation"], Field(alias="for", description=(
        "agent: the index for an agent's system prompt. automation: the index, then the memories "
        "sessions leave to search, newest first."))] = "agent",  # fmt: skip
    also: Annotated[int, Field(ge=0, le=200, description="automation: how many memories after the index.")] = index_mod.ALSO,
    session: Session = "",
    cwd: Cwd = None,
) -> IndexOut:
    """The project's memory index, for an AI that runs without a task (an automation, an
    in-app agent): up to 12 lines, each with a ref, chosen not matched: what the person
    placed here first, then pinned, used in the last 30 days, then lessons, preferences and
    decisions, newest first. A session with a task calls recall instead."""
    app = app_of(ctx)
    with guarded(app):
        where = place(app, cwd)
        built = index_mod.build(app.core, where, for_=for_, also=also)
        index_mod.given(app.core, built, session=session.strip(), tool=client_name(ctx), look_up=True)
    return IndexOut(
        project=where.project, text=index_mod.render(built),
        lines=[{"ref": x.memory.ref, "line": x.text, "why": x.why} for x in built.lines],
        also=[{"ref": x.memory.ref, "line": x.text} for x in built.also],
    )  # fmt: skip


class PlacementOut(Strict):
    ref: str
    decision: str
    place: str
    words: str
    undone: bool
    placements: list[dict[str, str]]


def place_memory(
    ctx: Context,
    ref: Annotated[str, Field(max_length=40, description="The memory's ref.")],
    decision: Annotated[Literal["always", "not-here", "no-agent-runs"], Field(description=(
        "always: first in this project's index; not-here: never reaches this project (index, lessons, "
        "cards, recall); no-agent-runs: kept out of every task card."))],  # fmt: skip
    undo: Annotated[bool, Field(description="Take the decision back.")] = False,
    cwd: Cwd = None,
) -> PlacementOut:
    """Record where the person decided a memory goes, or take it back. Only on the person's
    word: never to tidy on your own."""
    app = app_of(ctx)
    with guarded(app):
        chosen = placements.parse(decision)
        key = "" if chosen is Placing.NO_AGENT_RUNS else place(app, cwd).project
        if undo:
            done = app.core.unplace_memory(ref, chosen, key)
        else:
            done = app.core.place_memory(ref, chosen, key, by=client_name(ctx))
        now_listed = app.core.placements(done.ref)
    return PlacementOut(
        ref=done.ref, decision=done.decision.value, place=done.place, words=placements.describe(done), undone=undo,
        placements=[{"decision": p.decision.value, "place": p.place, "since": to_iso(p.created_at)} for p in now_listed],
    )  # fmt: skip


def register(server: MCPServer[Any]) -> None:
    add_tool(server, memory_index, title="The memory index", read_only=True, idempotent=False)
    add_tool(server, place_memory, title="Decide where a memory goes", read_only=False, idempotent=True)
