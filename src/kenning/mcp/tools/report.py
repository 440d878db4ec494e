"""memory_report: does memory help? The memory report of ``kenning report`` (sessions per tool
and group, reach, given vs used per channel, the holdout comparison, health) for this project
or every project. Counts and refs only: no memory's or session's words leave through it."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from kenning.context import memory_report, report_text
from kenning.mcp.kit import Cwd, Strict, add_tool, app_of, guarded, place


class ReportOut(Strict):
    empty: bool
    text: str
    report: dict[str, Any]


def memory_report_tool(
    ctx: Context,
    days: Annotated[int | None, Field(ge=1, le=memory_report.MAX_DAYS, description=(
        f"The window: the last N days (default {memory_report.DEFAULT_DAYS}).")) ] = None,  # fmt: skip
    since: Annotated[str, Field(max_length=40, description="The window instead: from this ISO date until now.")] = "",
    all_projects: bool = False,
    cwd: Cwd = None,
) -> ReportOut:
    """Does memory help? Sessions per tool (pointed at memory or held out) and reach; memories
    given per channel and the share used afterwards; corrections, repeated asks, recall calls,
    edits and reverted work per session, pointed vs holdout, with a 95% interval; health. For
    this project (or every project). Show the user the text; do not act on it."""
    app = app_of(ctx)
    with guarded(app):
        project = "" if all_projects else place(app, cwd).project
        win = memory_report.window(app.core.now(), days=days, since=since.strip() or None, project=project)
        built = memory_report.build(app.core, win, check_project=False)
    return ReportOut(empty=built.empty, text=report_text.render(built), report=memory_report.as_dict(built))


def register(server: MCPServer[Any]) -> None:
    add_tool(server, memory_report_tool, title="Does memory help? The memory report", read_only=True, idempotent=True,
             name="memory_report")  # fmt: skip
