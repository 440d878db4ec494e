"""Session tools over captured transcripts (kenning.capture.search): search_sessions,
show_session, session_context. Text is redacted again on the way out."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from kenning.capture import search as capture
from kenning.mcp.kit import Cwd, Strict, add_tool, app_of, guarded, place
from kenning.model import PERSONAL_SCOPE

SessionId = Annotated[str, Field(min_length=1, max_length=200, description="A session id (or its unique start).")]
Day = Annotated[str, Field(max_length=40, description="A date like 2026-03-01 (UTC).")]


class SearchOut(Strict):
    query: str
    hits: list[dict[str, Any]]
    note: str = ""


class SessionOut(Strict):
    session: dict[str, Any]
    turns: list[dict[str, Any]]
    chunk: int | None = None
    turn: int | None = None


def search_sessions(
    ctx: Context,
    query: Annotated[str, Field(min_length=1, max_length=1000, description="Words from what was said or done.")],
    all_projects: Annotated[bool, Field(description="Search every project, not just this one.")] = False,
    tool: Annotated[str, Field(max_length=40, description="Only sessions of this agent tool, e.g. codex.")] = "",
    type: Literal["", "decision", "preference", "milestone", "problem", "discovery", "general"] = "",  # noqa: A002
    since: Day = "",
    until: Day = "",
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
    cwd: Cwd = None,
) -> SearchOut:
    """Search past agent sessions (captured transcripts of every tool) for what was said or
    done: each hit has the session, the turn, the chunk and the sentence holding the words.
    Read around a hit with session_context (tool group sessions)."""
    app = app_of(ctx)
    with guarded(app):
        where = place(app, cwd)
        project = "" if all_projects or where.project == PERSONAL_SCOPE else where.project
        hits = capture.search(app.core.stores.capture, app.core.workspace, query, project=project, tool=tool,
                              type=type, since=since, until=until, limit=limit, now=app.core.now())  # fmt: skip
    return SearchOut(query=query, hits=[h.to_dict() for h in hits],
                     note="" if hits else "no captured session holds those words (run `kenning sessions sync` to capture new ones)")  # fmt: skip


def show_session(
    ctx: Context, session: SessionId, limit: Annotated[int, Field(ge=1, le=500)] = 100
) -> SessionOut:
    """A captured session turn by turn (redacted): who said what, tool calls, files."""
    app = app_of(ctx)
    with guarded(app):
        found = capture.show(app.core.stores.capture, app.core.workspace, session, limit=limit)
    return SessionOut(session=found["session"], turns=found["turns"])


def session_context(
    ctx: Context,
    session: SessionId,
    chunk: Annotated[int, Field(ge=1, description="The chunk of a search_sessions hit.")],
    radius: Annotated[int, Field(ge=0, le=20)] = 3,
) -> SessionOut:
    """The turns around a search_sessions hit, to read it in its place."""
    app = app_of(ctx)
    with guarded(app):
        found = capture.context(app.core.stores.capture, app.core.workspace, session, chunk, radius=radius)
    return SessionOut(session=found["session"], turns=found["turns"], chunk=found["chunk"], turn=found["turn"])


def register(server: MCPServer[Any]) -> None:
    add_tool(server, search_sessions, title="Search past sessions", read_only=True, idempotent=True)
    add_tool(server, show_session, title="Show a past session", read_only=True, idempotent=True)
    add_tool(server, session_context, title="Read around a session hit", read_only=True, idempotent=True)
