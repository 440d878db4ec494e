"""PostgreSQL implementation of :class:`kenning.store.protocol.WorkStore`: branch goals, open
items, progress, handoff notes and tasks.

Every statement names its workspace and runs in a transaction that acts in it (row-level
security, :mod:`kenning.store.postgres.rls`); rows come back in the order the SQLite store
gives them (kenning.store.sqlite.work_store), every tie broken by id.
"""

from __future__ import annotations

from datetime import UTC, datetime

from kenning.redacted import Redacted, ensure, stored
from kenning.store.postgres.db import Database, Row
from kenning.store.protocol.work import TASK_FIELDS, HandoffRow, ItemRow, ProgressRow, TaskRow

# Columns that hold words someone wrote: written only as Redacted (typed methods below), and
# redacted at run time when they come through a generic update.
_TEXT_COLUMNS = frozenset({"title", "goal", "text"})


def _t(value: datetime | None) -> datetime | None:
    return None if value is None else value.astimezone(UTC)


def _at(value: datetime) -> datetime:
    return value.astimezone(UTC)


def _task(row: Row) -> TaskRow:
    return TaskRow(
        id=row["id"], workspace=row["workspace"], project=row["project"], branch=row["branch"], cwd=row["cwd"],
        title=stored(row["title"]), goal=stored(row["goal"]), status=row["status"], created_at=_at(row["created_at"]),
        started_at=_t(row["started_at"]), done_at=_t(row["done_at"]), session=row["session"],
    )  # fmt: skip


class PostgresWorkStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- goals ----------------------------------------------------------------------------
    def goal_by(self, workspace: str, project: str, branch: str) -> tuple[Redacted, str]:
        row = self.db.one(
            "SELECT goal, set_by FROM work_goals WHERE workspace = %s AND project = %s AND branch = %s"
            " AND retired_at IS NULL",
            (workspace, project, branch),
            workspace=workspace,
        )
        return (stored(row["goal"]), str(row["set_by"])) if row else (stored(""), "")

    def set_goal(self, workspace: str, project: str, branch: str, goal: Redacted, by: str, at: datetime) -> None:
        self.db.execute(
            "INSERT INTO work_goals (workspace, project, branch, goal, set_by, set_at) VALUES (%s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (workspace, project, branch) DO UPDATE SET goal = excluded.goal,"
            " set_by = excluded.set_by, set_at = excluded.set_at, retired_at = NULL, retired_why = ''",
            (workspace, project, branch, ensure(goal), by, at),
            workspace=workspace,
        )

    def work_branches(self, workspace: str, project: str) -> list[str]:
        rows = self.db.query(
            "SELECT branch FROM work_goals WHERE workspace = %(ws)s AND project = %(p)s AND retired_at IS NULL"
            " UNION SELECT branch FROM work_items WHERE workspace = %(ws)s AND project = %(p)s AND done_at IS NULL"
            " AND retired_at IS NULL ORDER BY 1",
            {"ws": workspace, "p": project},
            workspace=workspace,
        )
        return [str(r["branch"]) for r in rows]

    def retire_branch_work(self, workspace: str, project: str, branch: str, why: str, at: datetime
                           ) -> tuple[bool, int]:  # fmt: skip
        with self.db.transaction(workspace) as cur:
            goal = cur.execute(
                b"UPDATE work_goals SET retired_at = %s, retired_why = %s WHERE workspace = %s AND project = %s"
                b" AND branch = %s AND retired_at IS NULL", (at, why, workspace, project, branch)).rowcount  # fmt: skip
            items = cur.execute(
                b"UPDATE work_items SET retired_at = %s WHERE workspace = %s AND project = %s AND branch = %s"
                b" AND done_at IS NULL AND retired_at IS NULL", (at, workspace, project, branch)).rowcount  # fmt: skip
        return goal > 0, items

    def bring_back_branch_work(self, workspace: str, project: str, branch: str) -> tuple[bool, int]:
        with self.db.transaction(workspace) as cur:
            goal = cur.execute(
                b"UPDATE work_goals SET retired_at = NULL, retired_why = '' WHERE workspace = %s AND project = %s"
                b" AND branch = %s AND retired_at IS NOT NULL", (workspace, project, branch)).rowcount  # fmt: skip
            items = cur.execute(
                b"UPDATE work_items SET retired_at = NULL WHERE workspace = %s AND project = %s AND branch = %s"
                b" AND retired_at IS NOT NULL", (workspace, project, branch)).rowcount  # fmt: skip
        return goal > 0, items

    # -- open items -----------------------------------------------------------------------
    def add_item(self, workspace: str, project: str, branch: str, text: Redacted, by: str, at: datetime) -> int:
        row = self.db.one(
            "INSERT INTO work_items (workspace, project, branch, text, created_at, by) VALUES (%s, %s, %s, %s, %s, %s)"
            " RETURNING id",
            (workspace, project, branch, ensure(text), at, by),
            workspace=workspace,
        )
        return int(row["id"]) if row else 0

    def items(self, workspace: str, project: str, branch: str | None, *, open_only: bool = True) -> list[ItemRow]:
        sql = "SELECT * FROM work_items WHERE workspace = %s AND project = %s"
        params: list[object] = [workspace, project]
        if branch is not None:
            sql += " AND branch = %s"
            params.append(branch)
        if open_only:
            sql += " AND done_at IS NULL AND retired_at IS NULL"
        rows = self.db.query(sql + " ORDER BY id", params, workspace=workspace)
        return [ItemRow(r["id"], r["branch"], stored(r["text"]), _at(r["created_at"]), _t(r["done_at"]), r["by"])
                for r in rows]  # fmt: skip

    def close_item(self, workspace: str, project: str, item_id: int, at: datetime) -> bool:
        done = self.db.execute(
            "UPDATE work_items SET done_at = %s WHERE workspace = %s AND id = %s AND project = %s"
            " AND done_at IS NULL AND retired_at IS NULL",
            (at, workspace, item_id, project),
            workspace=workspace,
        )
        return done > 0

    # -- progress -------------------------------------------------------------------------
    def add_progress(self, workspace: str, project: str, branch: str, summary: Redacted, decisions: list[Redacted],
                     by: str, session: str, at: datetime) -> int:  # fmt: skip
        row = self.db.one(
            "INSERT INTO work_progress (workspace, project, branch, summary, decisions, at, by, session)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (workspace, project, branch, ensure(summary), [str(ensure(d)) for d in decisions], at, by, session),
            workspace=workspace,
        )
        return int(row["id"]) if row else 0

    def progress(self, workspace: str, project: str, branch: str, limit: int = 50) -> list[ProgressRow]:
        rows = self.db.query(
            "SELECT * FROM work_progress WHERE workspace = %s AND project = %s AND branch = %s"
            " ORDER BY at DESC, id DESC LIMIT %s",
            (workspace, project, branch, limit),
            workspace=workspace,
        )
        return [ProgressRow(r["id"], r["branch"], stored(r["summary"]), tuple(stored(d) for d in r["decisions"]),
                            _at(r["at"]), r["by"]) for r in rows]  # fmt: skip

    def trim_progress(self, workspace: str, project: str, branch: str, keep: int) -> None:
        self.db.execute(
            "DELETE FROM work_progress WHERE workspace = %(ws)s AND project = %(p)s AND branch = %(b)s AND id NOT IN"
            " (SELECT id FROM work_progress WHERE workspace = %(ws)s AND project = %(p)s AND branch = %(b)s"
            " ORDER BY at DESC, id DESC LIMIT %(keep)s)",
            {"ws": workspace, "p": project, "b": branch, "keep": keep},
            workspace=workspace,
        )

    # -- handoffs -------------------------------------------------------------------------
    def add_handoff(self, workspace: str, h: HandoffRow) -> int:
        row = self.db.one(
            "INSERT INTO work_handoffs (workspace, project, from_session, from_tool, to_agent, text, origin,"
            " created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (workspace, h.project, h.from_session, h.from_tool, h.to_agent, ensure(h.text), h.origin, h.created_at),
            workspace=workspace,
        )
        return int(row["id"]) if row else 0

    def handoffs(self, workspace: str, project: str, since: datetime) -> list[HandoffRow]:
        rows = self.db.query(
            "SELECT * FROM work_handoffs WHERE workspace = %s AND project = %s AND created_at >= %s ORDER BY id",
            (workspace, project, since),
            workspace=workspace,
        )
        return [HandoffRow(r["id"], r["project"], r["from_session"], r["from_tool"], r["to_agent"], stored(r["text"]),
                           r["origin"], _at(r["created_at"])) for r in rows]  # fmt: skip

    # -- tasks ----------------------------------------------------------------------------
    def add_task(self, workspace: str, project: str, branch: str, cwd: str, title: Redacted, goal: Redacted,
                 at: datetime) -> int:  # fmt: skip
        row = self.db.one(
            "INSERT INTO work_tasks (workspace, project, branch, cwd, title, goal, created_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (workspace, project, branch, cwd, ensure(title), ensure(goal), at),
            workspace=workspace,
        )
        return int(row["id"]) if row else 0

    def task(self, workspace: str, task_id: int) -> TaskRow | None:
        row = self.db.one(
            "SELECT * FROM work_tasks WHERE workspace = %s AND id = %s", (workspace, task_id), workspace=workspace
        )
        return _task(row) if row else None

    def tasks(self, workspace: str, project: str | None, statuses: tuple[str, ...]) -> list[TaskRow]:
        sql = "SELECT * FROM work_tasks WHERE workspace = %s AND status = ANY(%s)"
        params: list[object] = [workspace, list(statuses)]
        if project is not None:
            sql += " AND project = %s"
            params.append(project)
        return [_task(r) for r in self.db.query(sql + " ORDER BY id", params, workspace=workspace)]

    def update_task(self, workspace: str, task_id: int, **fields: object) -> None:
        unknown = set(fields) - TASK_FIELDS
        if unknown:
            raise ValueError(f"not a task field: {sorted(unknown)}")
        if not fields:
            return
        # The column names come from TASK_FIELDS only (checked above), never from the caller.
        values = [ensure(v) if k in _TEXT_COLUMNS and isinstance(v, str) else v for k, v in fields.items()]
        sets = ", ".join(f"{name} = %s" for name in fields)
        self.db.execute(f"UPDATE work_tasks SET {sets} WHERE workspace = %s AND id = %s",
                        [*values, workspace, task_id], workspace=workspace)  # fmt: skip

    def unclaimed_task(self, workspace: str, cwd: str, since: datetime) -> TaskRow | None:
        # The folder test is the SQLite store's (kenning.store.sqlite.hook_rows.unclaimed_task),
        # in Python so both engines agree on what "holds" means.
        rows = self.db.query(
            "SELECT * FROM work_tasks WHERE workspace = %s AND status = 'started' AND session = ''"
            " AND started_at >= %s ORDER BY started_at DESC, id DESC",
            (workspace, since),
            workspace=workspace,
        )
        for row in rows:
            folder = str(row["cwd"]).rstrip("/")
            if folder and (cwd == folder or cwd.startswith(folder + "/")):
                return _task(row)
        return None
