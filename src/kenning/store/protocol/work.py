"""The work store: the work around a branch (its goal, open items and progress log), handoff
notes between agents, and tasks a session can be started from. Every method names its
workspace. Rows are typed named tuples (see :mod:`kenning.store.protocol.hooks`)."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple, Protocol

from kenning.redacted import Redacted

# What ``update_task`` may change.
TASK_FIELDS = frozenset({"status", "started_at", "done_at", "session", "cwd", "title", "goal"})


class TaskRow(NamedTuple):
    id: int
    workspace: str
    project: str
    branch: str
    cwd: str
    title: Redacted
    goal: Redacted
    status: str  # open | started | done
    created_at: datetime
    started_at: datetime | None
    done_at: datetime | None
    session: str  # the session that claimed it, "" while none has


class ItemRow(NamedTuple):
    id: int
    branch: str
    text: Redacted
    created_at: datetime
    done_at: datetime | None
    by: str = ""  # "person", or the agent tool that wrote it


class ProgressRow(NamedTuple):
    id: int
    branch: str
    summary: Redacted
    decisions: tuple[Redacted, ...]
    at: datetime
    by: str


class HandoffRow(NamedTuple):
    id: int
    project: str
    from_session: str
    from_tool: str
    to_agent: str  # "" for every other agent, else a tool or a session
    text: Redacted
    origin: str
    created_at: datetime


class WorkStore(Protocol):
    # goals
    def goal_by(self, workspace: str, project: str, branch: str) -> tuple[Redacted, str]:
        """The branch's goal (unless retired) and who set it ("person", or an agent's name);
        empty for none."""
        ...

    def set_goal(self, workspace: str, project: str, branch: str, goal: Redacted, by: str, at: datetime) -> None:
        """Set (or replace) the branch's goal; a retired goal comes back with it."""
        ...

    def work_branches(self, workspace: str, project: str) -> list[str]:
        """Branches that have a goal or an open item given out (neither done nor retired), sorted."""
        ...

    def retire_branch_work(self, workspace: str, project: str, branch: str, why: str, at: datetime
                           ) -> tuple[bool, int]:  # fmt: skip
        """Retire the branch's goal and open items: (goal retired, items retired)."""
        ...

    def bring_back_branch_work(self, workspace: str, project: str, branch: str) -> tuple[bool, int]:
        """Give a retired goal and its retired open items back: (goal back, items back)."""
        ...

    # open items
    def add_item(self, workspace: str, project: str, branch: str, text: Redacted, by: str, at: datetime) -> int: ...
    def items(self, workspace: str, project: str, branch: str | None, *, open_only: bool = True) -> list[ItemRow]:
        """A project's items (of one branch when given), by id; ``open_only``: not done, not retired."""
        ...

    def close_item(self, workspace: str, project: str, item_id: int, at: datetime) -> bool:
        """Mark an open item done; False when it is not open in this project."""
        ...

    # progress
    def add_progress(self, workspace: str, project: str, branch: str, summary: Redacted, decisions: list[Redacted],
                     by: str, session: str, at: datetime) -> int: ...  # fmt: skip
    def progress(self, workspace: str, project: str, branch: str, limit: int = 50) -> list[ProgressRow]:
        """The branch's entries, newest first."""
        ...

    def trim_progress(self, workspace: str, project: str, branch: str, keep: int) -> None:
        """Keep only the newest ``keep`` entries of the branch."""
        ...

    # handoffs
    def add_handoff(self, workspace: str, row: HandoffRow) -> int: ...
    def handoffs(self, workspace: str, project: str, since: datetime) -> list[HandoffRow]:
        """Notes left in a project since ``since``, oldest first."""
        ...

    # tasks
    def add_task(self, workspace: str, project: str, branch: str, cwd: str, title: Redacted, goal: Redacted,
                 at: datetime) -> int: ...  # fmt: skip
    def task(self, workspace: str, task_id: int) -> TaskRow | None: ...
    def tasks(self, workspace: str, project: str | None, statuses: tuple[str, ...]) -> list[TaskRow]:
        """Tasks in these statuses (of one project when given), by id."""
        ...

    def update_task(self, workspace: str, task_id: int, **fields: object) -> None:
        """Change the named fields (of :data:`TASK_FIELDS`) of one task."""
        ...

    def unclaimed_task(self, workspace: str, cwd: str, since: datetime) -> TaskRow | None:
        """The latest task started since ``since`` whose folder holds ``cwd`` and that no
        session has claimed yet."""
        ...
