"""The work around a branch and the sessions on it: the branch's goal, open items and
progress log, handoff notes for other agents, tasks a session can be started from, and the
registry of live sessions the hooks saw (with the holdout group each was put in).

Everything here is plain reads and writes of the hooks schema; no git, no model.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from kenning.domain import holdout, presence
from kenning.errors import Invalid, NotFound, Refused
from kenning.quoting import by_origin
from kenning.redacted import EMPTY, Redacted, one_line, redacted
from kenning.store.protocol import HandoffRow, SessionRow, TaskRow

if TYPE_CHECKING:
    from kenning.core.scopes import Place
    from kenning.core.service import Core

TRUNKS = presence.TRUNKS
TRUNK_PROGRESS_KEPT = 20
LIVE_WINDOW = timedelta(seconds=presence.LIVE_SECONDS)
HANDOFF_WINDOW = timedelta(seconds=presence.HANDOFF_SECONDS)
TASK_CLAIM_WINDOW = timedelta(seconds=presence.TASK_CLAIM_SECONDS)
MAX_TEXT = 1000
WORDS_KEPT = presence.WORDS_KEPT


def is_trunk(branch: str) -> bool:
    return presence.is_trunk(branch)


def _clean(text: str, what: str) -> Redacted:
    text = one_line(text or "")
    if not text:
        raise Invalid(f"{what} is empty", fix=f"give the {what} as one or two sentences")
    if len(text) > MAX_TEXT:
        raise Invalid(f"{what} is {len(text)} characters long", fix=f"keep it under {MAX_TEXT} characters")
    return redacted(text)


def session_words(text: str) -> Redacted:
    """A session's first prompt or last reply as other sessions may see it (see presence)."""
    return presence.session_words(text)


# ------------------------------------------------------------------------------ holdout


def holdout_by_hash(session_id: str) -> bool:
    """One session in four, decided from the session id alone so every hook run agrees."""
    return holdout.by_hash(session_id)


# ------------------------------------------------------------------------------ sessions


def session_key(tool: str, session_id: str) -> str:
    return f"{tool}:{session_id}"


def ensure_session(core: Core, place: Place, tool: str, session_id: str, cwd: str, *,
                   forced: bool | None = None) -> SessionRow:  # fmt: skip
    """The session's row, created on first sight. The holdout group is decided once (a forced
    group from the entry point wins, and is recorded)."""
    hooks, work, ws, now = core.stores.hooks, core.stores.work, core.workspace, core.now()
    key = session_key(tool, session_id)
    row = hooks.session(ws, key)
    if row is None:
        task = work.unclaimed_task(ws, cwd, now - TASK_CLAIM_WINDOW) if cwd else None
        group = forced if forced is not None else holdout_by_hash(session_id)
        with core.stores.transaction():
            hooks.add_session(SessionRow(
                session=key, tool=tool, workspace=core.workspace, project=place.project, branch=place.branch,
                cwd=cwd, started_at=now, last_seen=now, ended_at=None, holdout=group,
                task_id=task.id if task else None, first_prompt_at=None, opening=EMPTY, last_message=EMPTY,
                recalled=False, changed_files=False, stop_asked=False, prompts=0,
            ))  # fmt: skip
            if task is not None:
                work.update_task(ws, task.id, session=key)
        row = hooks.session(ws, key)
        assert row is not None
    elif forced is not None and row.holdout != forced:
        hooks.update_session(ws, key, holdout=forced)
        row = hooks.session(ws, key)
        assert row is not None
    return row


# ------------------------------------------------------------------------- goal and items


def goal(core: Core, place: Place, branch: str | None = None) -> Redacted:
    return core.stores.work.goal_by(core.workspace, place.project, place.branch if branch is None else branch)[0]


def set_goal(core: Core, place: Place, text: str, *, by: str = "person", branch: str | None = None) -> Redacted:
    target = place.branch if branch is None else branch
    if not target or target == "HEAD":
        raise Invalid("this folder is on no branch", fix="check out a branch, or pass --branch")
    cleaned = _clean(text, "goal")
    core.stores.work.set_goal(core.workspace, place.project, target, cleaned, by, core.now())
    return cleaned


def bring_back(core: Core, place: Place, branch: str | None = None) -> tuple[bool, int]:
    """Give back a branch's goal and open items retired when it landed or was removed."""
    target = place.branch if branch is None else branch
    back, items = core.stores.work.bring_back_branch_work(core.workspace, place.project, target)
    if not back and not items:
        raise NotFound(f"nothing of branch {target!r} was retired", fix="name the branch with --branch")
    return back, items


def add_open_item(core: Core, place: Place, text: str, *, by: str = "person", branch: str | None = None) -> int:
    return core.stores.work.add_item(core.workspace, place.project, place.branch if branch is None else branch,
                                   _clean(text, "open item"), by, core.now())  # fmt: skip


def close_open_item(core: Core, place: Place, item_id: int) -> None:
    if not core.stores.work.close_item(core.workspace, place.project, item_id, core.now()):
        raise NotFound(f"open item {item_id} is not open in this project", fix="list them with: kenning work open")


def open_items(core: Core, place: Place, branch: str | None = None) -> list[str]:
    """Each open item as ``#id text``, an agent's quoted as data (the person's as written)."""
    rows = core.stores.work.items(core.workspace, place.project, place.branch if branch is None else branch)
    return [f"#{r.id} {by_origin(r.text, _origin(r.by))}" for r in rows]


def goal_shown(core: Core, place: Place, branch: str | None = None) -> str:
    """The branch's goal as it may be shown: an agent's quoted as data ("" when none)."""
    text, by = core.stores.work.goal_by(core.workspace, place.project, place.branch if branch is None else branch)
    return by_origin(text, _origin(by)) if text else ""


def _origin(by: str) -> str:
    """Goals and items record who wrote them: "person" (the kenning command) or an agent's name."""
    return "person" if by == "person" else "agent"


@dataclass(frozen=True)
class ProgressResult:
    entry: int
    kept: int
    goal_set: bool
    items_added: list[int]


def log_progress(core: Core, place: Place, summary: str, *, decisions: list[str] | None = None,
                 open_items_: list[str] | None = None, goal_text: str = "", by: str = "agent",
                 session: str = "", branch: str | None = None) -> ProgressResult:  # fmt: skip
    """Append a dated progress entry for the branch. On a trunk branch only the latest 20
    entries are kept and ``goal`` does not replace the branch's own goal."""
    target = place.branch if branch is None else branch
    hooks, now = core.stores.work, core.now()
    text = _clean(summary, "summary")
    made = [_clean(d, "decision") for d in decisions or []]
    with core.stores.transaction():
        entry = hooks.add_progress(core.workspace, place.project, target, text, made, by, session, now)
        items = [hooks.add_item(core.workspace, place.project, target, _clean(t, "open item"), by, now)
                 for t in open_items_ or []]  # fmt: skip
        goal_set = False
        if goal_text.strip() and not is_trunk(target):
            hooks.set_goal(core.workspace, place.project, target, _clean(goal_text, "goal"), by, now)
            goal_set = True
        if is_trunk(target):
            hooks.trim_progress(core.workspace, place.project, target, TRUNK_PROGRESS_KEPT)
    kept = len(hooks.progress(core.workspace, place.project, target, limit=1000))
    return ProgressResult(entry, kept, goal_set, items)


# ------------------------------------------------------------------------------ handoffs


def handoff(core: Core, place: Place, text: str, *, from_session: str = "", from_tool: str = "",
            to: str = "", origin: str = "agent") -> int:  # fmt: skip
    """A note for the other agents in the project (or for one tool/session with ``to``),
    shown to each once. Notes that only narrate work in progress are refused."""
    from kenning.domain.write_rules import is_transient

    cleaned = _clean(text, "note")
    if is_transient(cleaned):
        raise Refused(
            "this note only narrates work in progress",
            fix="say what the other agent should know or do (a warning, a request, where you left a thing)",
        )
    row = HandoffRow(0, place.project, from_session, from_tool, to.strip(), cleaned, origin, core.now())
    return core.stores.work.add_handoff(core.workspace, row)


# --------------------------------------------------------------------------------- tasks


def add_task(core: Core, place: Place, title: str, goal_text: str = "", *, cwd: str = "") -> int:
    root = cwd or (str(place.root) if place.root else "")
    goal_words = redacted(one_line(goal_text)) if goal_text.strip() else EMPTY
    return core.stores.work.add_task(core.workspace, place.project, place.branch, root, _clean(title, "title"),
                                   goal_words, core.now())  # fmt: skip


def start_task(core: Core, task_id: int, *, cwd: str = "") -> TaskRow:
    """Mark a task started; the next session opened in its folder is the run and gets the card."""
    work = core.stores.work
    task = work.task(core.workspace, task_id)
    if task is None:
        raise NotFound(f"task {task_id} does not exist", fix="list tasks with: kenning work task list")
    if task.status == "done":
        raise Refused(f"task {task_id} is done", fix="add a new task with: kenning work task add")
    work.update_task(core.workspace, task_id, status="started", started_at=core.now(), session="", cwd=cwd or task.cwd)
    started = work.task(core.workspace, task_id)
    assert started is not None
    return started


def finish_task(core: Core, task_id: int) -> TaskRow:
    work = core.stores.work
    task = work.task(core.workspace, task_id)
    if task is None:
        raise NotFound(f"task {task_id} does not exist", fix="list tasks with: kenning work task list")
    work.update_task(core.workspace, task_id, status="done", done_at=core.now())
    done = work.task(core.workspace, task_id)
    assert done is not None
    return done


def tasks(core: Core, place: Place | None, *, include_done: bool = False) -> list[TaskRow]:
    statuses = ("open", "started", "done") if include_done else ("open", "started")
    return core.stores.work.tasks(core.workspace, place.project if place else None, statuses)


def task_of(core: Core, session: SessionRow) -> TaskRow | None:
    return core.stores.work.task(core.workspace, session.task_id) if session.task_id is not None else None
