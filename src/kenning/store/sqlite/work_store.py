"""SQLite implementation of :class:`kenning.store.protocol.WorkStore`: branch goals, open items,
progress, handoff notes and tasks. The statements the hooks' fast path runs too (the brief's
goal and items, a prompt's notes, a start claiming a task) live once, in
:mod:`kenning.store.sqlite.hook_rows`."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime

from kenning.clock import from_iso, to_iso
from kenning.redacted import Redacted, ensure, stored
from kenning.store.protocol.work import TASK_FIELDS, HandoffRow, ItemRow, ProgressRow, TaskRow
from kenning.store.sqlite import hook_rows
from kenning.store.sqlite.db import Database

# Columns that hold words someone wrote: written only as Redacted (typed methods below), and
# redacted at run time when they come through a generic update.
_TEXT_COLUMNS = frozenset({"title", "goal", "text"})


def _guard(fields: dict[str, object]) -> dict[str, object]:
    return {k: ensure(v) if k in _TEXT_COLUMNS and isinstance(v, str) else v for k, v in fields.items()}


def _t(value: str | None) -> datetime | None:
    return from_iso(value) if value else None


def _task(row: sqlite3.Row) -> TaskRow:
    return TaskRow(
        id=row["id"], workspace=row["workspace"], project=row["project"], branch=row["branch"], cwd=row["cwd"],
        title=stored(row["title"]), goal=stored(row["goal"]), status=row["status"], created_at=from_iso(row["created_at"]),
        started_at=_t(row["started_at"]), done_at=_t(row["done_at"]), session=row["session"],
    )  # fmt: skip


class SqliteWorkStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- goals, items, progress -----------------------------------------------------------
    def goal_by(self, workspace: str, project: str, branch: str) -> tuple[Redacted, str]:
        return self.db.using(hook_rows.goal_by, workspace, project, branch)

    def work_branches(self, workspace: str, project: str) -> list[str]:
        rows = self.db.query(
            "SELECT branch FROM work_goals WHERE workspace = ? AND project = ? AND retired_at IS NULL"
            " UNION SELECT branch FROM work_items WHERE workspace = ? AND project = ? AND done_at IS NULL"
            " AND retired_at IS NULL ORDER BY 1", (workspace, project, workspace, project))
        return [str(r[0]) for r in rows]

    def retire_branch_work(self, workspace: str, project: str, branch: str, why: str, at: datetime) -> tuple[bool, int]:
        with self.db.transaction() as conn:
            goal = conn.execute(
                "UPDATE work_goals SET retired_at = ?, retired_why = ? WHERE workspace = ? AND project = ?"
                " AND branch = ? AND retired_at IS NULL", (to_iso(at), why, workspace, project, branch)).rowcount
            items = conn.execute(
                "UPDATE work_items SET retired_at = ? WHERE workspace = ? AND project = ? AND branch = ?"
                " AND done_at IS NULL AND retired_at IS NULL", (to_iso(at), workspace, project, branch)).rowcount
        return goal > 0, items

    def bring_back_branch_work(self, workspace: str, project: str, branch: str) -> tuple[bool, int]:
        with self.db.transaction() as conn:
            goal = conn.execute(
                "UPDATE work_goals SET retired_at = NULL, retired_why = '' WHERE workspace = ? AND project = ?"
                " AND branch = ? AND retired_at IS NOT NULL", (workspace, project, branch)).rowcount
            items = conn.execute(
                "UPDATE work_items SET retired_at = NULL WHERE workspace = ? AND project = ? AND branch = ?"
                " AND retired_at IS NOT NULL", (workspace, project, branch)).rowcount
        return goal > 0, items

    def set_goal(self, workspace: str, project: str, branch: str, goal: Redacted, by: str, at: datetime) -> None:
        self.db.execute(
            "INSERT INTO work_goals (workspace, project, branch, goal, set_by, set_at) VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (workspace, project, branch) DO UPDATE SET goal = excluded.goal,"
            " set_by = excluded.set_by, set_at = excluded.set_at, retired_at = NULL, retired_why = ''",
            (workspace, project, branch, ensure(goal), by, to_iso(at)),
        )

    def add_item(self, workspace: str, project: str, branch: str, text: Redacted, by: str, at: datetime) -> int:
        cur = self.db.execute(
            "INSERT INTO work_items (workspace, project, branch, text, created_at, by) VALUES (?, ?, ?, ?, ?, ?)",
            (workspace, project, branch, ensure(text), to_iso(at), by),
        )
        return int(cur.lastrowid or 0)

    def items(self, workspace: str, project: str, branch: str | None, *, open_only: bool = True) -> list[ItemRow]:
        sql = "SELECT * FROM work_items WHERE workspace = ? AND project = ?"
        params: list[object] = [workspace, project]
        if branch is not None:
            sql += " AND branch = ?"
            params.append(branch)
        if open_only:
            sql += " AND done_at IS NULL AND retired_at IS NULL"
        rows = self.db.query(sql + " ORDER BY id", params)
        return [ItemRow(r["id"], r["branch"], stored(r["text"]), from_iso(r["created_at"]), _t(r["done_at"]), r["by"])
                for r in rows]  # fmt: skip

    def close_item(self, workspace: str, project: str, item_id: int, at: datetime) -> bool:
        cur = self.db.execute(
            "UPDATE work_items SET done_at = ? WHERE id = ? AND workspace = ? AND project = ? AND done_at IS NULL"
            " AND retired_at IS NULL",
            (to_iso(at), item_id, workspace, project),
        )
        return cur.rowcount > 0

    def add_progress(self, workspace: str, project: str, branch: str, summary: Redacted, decisions: list[Redacted],
                     by: str, session: str, at: datetime) -> int:  # fmt: skip
        cur = self.db.execute(
            "INSERT INTO work_progress (workspace, project, branch, summary, decisions, at, by, session)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (workspace, project, branch, ensure(summary), json.dumps([ensure(d) for d in decisions]), to_iso(at),
             by, session),
        )
        return int(cur.lastrowid or 0)

    def progress(self, workspace: str, project: str, branch: str, limit: int = 50) -> list[ProgressRow]:
        rows = self.db.query(
            "SELECT * FROM work_progress WHERE workspace = ? AND project = ? AND branch = ?"
            " ORDER BY at DESC, id DESC LIMIT ?",
            (workspace, project, branch, limit),
        )
        return [ProgressRow(r["id"], r["branch"], stored(r["summary"]), tuple(stored(d) for d in json.loads(r["decisions"])),
                            from_iso(r["at"]), r["by"]) for r in rows]  # fmt: skip

    def trim_progress(self, workspace: str, project: str, branch: str, keep: int) -> None:
        self.db.execute(
            "DELETE FROM work_progress WHERE workspace = ? AND project = ? AND branch = ? AND id NOT IN"
            " (SELECT id FROM work_progress WHERE workspace = ? AND project = ? AND branch = ?"
            " ORDER BY at DESC, id DESC LIMIT ?)",
            (workspace, project, branch, workspace, project, branch, keep),
        )

    # -- handoffs -------------------------------------------------------------------------
    def add_handoff(self, workspace: str, h: HandoffRow) -> int:
        cur = self.db.execute(
            "INSERT INTO work_handoffs (workspace, project, from_session, from_tool, to_agent, text, origin,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (workspace, h.project, h.from_session, h.from_tool, h.to_agent, ensure(h.text), h.origin,
             to_iso(h.created_at)),
        )  # fmt: skip
        return int(cur.lastrowid or 0)

    def handoffs(self, workspace: str, project: str, since: datetime) -> list[HandoffRow]:
        rows = self.db.using(hook_rows.handoffs, workspace, project, to_iso(since))
        return [HandoffRow(r["id"], r["project"], r["from_session"], r["from_tool"], r["to_agent"], stored(r["text"]),
                           r["origin"], from_iso(r["created_at"])) for r in rows]  # fmt: skip

    # -- tasks ----------------------------------------------------------------------------
    def add_task(self, workspace: str, project: str, branch: str, cwd: str, title: Redacted, goal: Redacted,
                 at: datetime) -> int:  # fmt: skip
        cur = self.db.execute(
            "INSERT INTO work_tasks (workspace, project, branch, cwd, title, goal, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (workspace, project, branch, cwd, ensure(title), ensure(goal), to_iso(at)),
        )
        return int(cur.lastrowid or 0)

    def task(self, workspace: str, task_id: int) -> TaskRow | None:
        row = self.db.one("SELECT * FROM work_tasks WHERE workspace = ? AND id = ?", (workspace, task_id))
        return _task(row) if row else None

    def tasks(self, workspace: str, project: str | None, statuses: tuple[str, ...]) -> list[TaskRow]:
        marks = ",".join("?" for _ in statuses)
        sql = f"SELECT * FROM work_tasks WHERE workspace = ? AND status IN ({marks})"
        params: list[object] = [workspace, *statuses]
        if project is not None:
            sql += " AND project = ?"
            params.append(project)
        return [_task(r) for r in self.db.query(sql + " ORDER BY id", params)]

    def update_task(self, workspace: str, task_id: int, **fields: object) -> None:
        unknown = set(fields) - TASK_FIELDS
        if unknown:
            raise ValueError(f"not a task field: {sorted(unknown)}")
        if not fields:
            return
        fields = _guard(fields)
        values = [to_iso(v) if isinstance(v, datetime) else v for v in fields.values()]
        sets = ", ".join(f"{name} = ?" for name in fields)
        self.db.execute(f"UPDATE work_tasks SET {sets} WHERE workspace = ? AND id = ?", [*values, workspace, task_id])

    def unclaimed_task(self, workspace: str, cwd: str, since: datetime) -> TaskRow | None:
        row = self.db.using(hook_rows.unclaimed_task, workspace, cwd, to_iso(since))
        return _task(row) if row is not None else None
