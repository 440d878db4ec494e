"""recall_workspaces: recall in several workspaces at once (this machine's copies, kept
current by kenning sync), each result labelled with its workspace."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from kenning.clock import to_iso
from kenning.core.across import recall_across
from kenning.core.recall import DEFAULT_COUNT, MAX_ALSO, MAX_COUNT
from kenning.core.render import hit_marks
from kenning.domain.lifecycle import withheld
from kenning.mcp.kit import Cwd, Strict, add_tool, app_of, guarded, place
from kenning.mcp.tools.memory import shown
from kenning.sync import link

MAX_WORKSPACES = 10
Workspace = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")]


class AcrossOut(Strict):
    query: str
    workspaces: list[str]
    as_of: str | None = None
    results: list[dict[str, Any]]
    note: str = ""


def recall_workspaces(
    ctx: Context,
    query: Annotated[str, Field(min_length=1, max_length=1000, description="The task in your own words.")],
    workspaces: Annotated[
        list[Workspace],
        Field(max_length=MAX_WORKSPACES, description="Workspaces to search; empty: this one and every synced one."),
    ] = [],  # noqa: B006 - pydantic copies defaults
    also: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=1000)]],
        Field(max_length=MAX_ALSO, description="Up to 3 other phrasings."),
    ] = [],  # noqa: B006
    count: Annotated[int, Field(ge=1, le=MAX_COUNT)] = DEFAULT_COUNT,
    as_of: Annotated[str | None, Field(max_length=40, description="ISO date or time (UTC).")] = None,
    cwd: Cwd = None,
) -> AcrossOut:
    """Recall across workspaces (a team's and your own): each searched as recall does, the
    results interleaved, strongest first, each with its `workspace`. Use recall for this
    workspace alone."""
    app = app_of(ctx)
    with guarded(app):
        core = app.core
        synced = link.load(app.settings.home)
        known = list(dict.fromkeys([core.workspace, *(synced.workspaces if synced else ())]))
        names = list(dict.fromkeys(workspaces)) or known
        unknown = [w for w in names if w not in known and not (core.store.list_scopes(w) or core.store.memory_scopes(w))]
        if unknown:
            raise ToolError(f"no workspace {', '.join(unknown)} on this machine. Use one of: {', '.join(known)}")
        result = recall_across(core, place(app, cwd), names, query, as_of=as_of, also=also, count=count)
        now = core.now()
        results = [
            {"workspace": x.workspace, **shown(x.hit.memory, now, hit_marks(x.hit)), "weak": x.hit.weak,
             "until": to_iso(x.hit.until) if x.hit.until else None}
            for x in result.hits if not withheld(x.hit.memory)
        ]  # fmt: skip
    return AcrossOut(query=query, workspaces=list(result.workspaces), as_of=to_iso(result.as_of) if result.as_of else None,
                     results=results, note="" if results else "nothing in memory covers that query")  # fmt: skip


def register(server: MCPServer[Any]) -> None:
    add_tool(server, recall_workspaces, title="Recall across workspaces", read_only=True, idempotent=False)
