"""Work tools: get_agent_run (a task's card), log_progress, set_goal, handoff.

The branch's goal, open items and progress are what the start brief shows; handoff notes are
shown once to each other agent in the project at its next prompt.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from kenning.context import card
from kenning.core import work
from kenning.errors import NotFound
from kenning.mcp.kit import Cwd, Refs, Session, Source, Strict, add_tool, app_of, guarded, place, writer

Line = Annotated[str, Field(min_length=1, max_length=1000)]


class RunOut(Strict):
    task: int
    title: str
    goal: str
    card: str


class ProgressOut(Strict):
    entry: int
    branch: str
    kept: int
    goal_set: bool
    open_items_added: list[int]
    note: str = ""


class GoalOut(Strict):
    branch: str
    goal: str


class HandoffOut(Strict):
    note: int
    to: str


def get_agent_run(
    ctx: Context,
    task: Annotated[int, Field(ge=1, description="The task's number (kenning work task list).")],
    cwd: Cwd = None,
) -> RunOut:
    """The card of a task run: title, goal, project, branch, open items, other sessions,
    connected integrations, rules and up to 5 memories about the task's files. Call it first
    when you were started for a task; `recall` for anything more."""
    app = app_of(ctx)
    with guarded(app):
        found = app.core.stores.work.task(app.core.workspace, task)
        if found is None or found.workspace != app.core.workspace:
            raise NotFound(f"task {task} does not exist", fix="ask the user for the task number")
        where = app.core.place(Path(found.cwd)) if found.cwd and Path(found.cwd).is_dir() else place(app, cwd)
        text = card.build(app.core, where, found)
    return RunOut(task=found.id, title=found.title, goal=found.goal, card=text)


def log_progress(
    ctx: Context,
    summary: Line,
    decisions: Annotated[list[Line], Field(max_length=10, description="Decisions made, each with its reason.")] = [],  # noqa: B006
    open_items: Annotated[list[Line], Field(max_length=10, description="What is left open on the branch.")] = [],  # noqa: B006
    goal: Annotated[str, Field(max_length=1000, description="The branch's goal (ignored on main/master/develop).")] = "",
    used: Refs = [],  # noqa: B006
    session: Session = "",
    source: Source = "",
    cwd: Cwd = None,
) -> ProgressOut:
    """Append a dated progress entry to the branch's log (main/master/develop keep the latest
    20). Use it during a task for milestones; the next session's brief shows the goal and
    open items. List refs that shaped the work in `used`."""
    app = app_of(ctx)
    with guarded(app):
        where = place(app, cwd)
        result = work.log_progress(app.core, where, summary, decisions=decisions, open_items_=open_items,
                                   goal_text=goal, by=writer(ctx, source), session=session)  # fmt: skip
        if used:
            app.core.use(used, session=session, tool=writer(ctx, source), branch=where.branch)
    note = "" if result.goal_set or not goal else "goal not set: a trunk branch keeps its own goal"
    return ProgressOut(entry=result.entry, branch=where.branch, kept=result.kept, goal_set=result.goal_set,
                       open_items_added=result.items_added, note=note)  # fmt: skip


def set_goal(ctx: Context, goal: Line, source: Source = "", cwd: Cwd = None) -> GoalOut:
    """Write down the current branch's goal (what the work on it should achieve)."""
    app = app_of(ctx)
    with guarded(app):
        where = place(app, cwd)
        saved = work.set_goal(app.core, where, goal, by=writer(ctx, source))
    return GoalOut(branch=where.branch, goal=saved)


def handoff(
    ctx: Context,
    note: Line,
    to: Annotated[str, Field(max_length=200, description="Only for this tool or session id (default: all).")] = "",
    session: Session = "",
    source: Source = "",
    cwd: Cwd = None,
) -> HandoffOut:
    """Leave a note for the other agents in this project (or one, with `to`); each is shown it
    once at its next prompt. Notes that only narrate work in progress are refused."""
    app = app_of(ctx)
    with guarded(app):
        where = place(app, cwd)
        note_id = work.handoff(app.core, where, note, from_session=session, from_tool=writer(ctx, source), to=to)
    return HandoffOut(note=note_id, to=to or "all")


def register(server: MCPServer[Any]) -> None:
    add_tool(server, get_agent_run, title="Get a task run's card", read_only=True, idempotent=True)
    add_tool(server, log_progress, title="Log progress on the branch", read_only=False)
    add_tool(server, set_goal, title="Set the branch's goal", read_only=False, idempotent=True)
    add_tool(server, handoff, title="Leave a note for other agents", read_only=False)
