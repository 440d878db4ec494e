"""SQL of the hooks schema: sessions the hooks saw, what each was shown, branch goals, open
items, progress, handoff notes, tasks and rules. Plain rows in, named tuples out (a start hook
imports this module; a frozen dataclass costs ~1.5 ms to define, a named tuple a tenth)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

from kenning.clock import from_iso, to_iso
from kenning.redacted import Redacted, ensure, stored
from kenning.store.sqlite import hook_rows
from kenning.store.sqlite.db import Database

# Columns that hold words someone wrote: written only as Redacted (typed methods below), and
# redacted at run time when they come through a generic update.
_TEXT_COLUMNS = frozenset({"opening", "last_message", "title", "goal", "text"})


def _guard(fields: dict[str, object]) -> dict[str, object]:
    return {k: ensure(v) if k in _TEXT_COLUMNS and isinstance(v, str) else v for k, v in fields.items()}


def _t(value: str | None) -> datetime | None:
    return from_iso(value) if value else None


class SessionRow(NamedTuple):
    session: str
    tool: str
    workspace: str
    project: str
    branch: str
    cwd: str
    started_at: datetime
    last_seen: datetime
    ended_at: datetime | None
    holdout: bool
    task_id: int | None
    first_prompt_at: datetime | None
    opening: Redacted
    last_message: Redacted
    recalled: bool
    changed_files: bool
    stop_asked: bool
    prompts: int


class TaskRow(NamedTuple):
    id: int
    workspace: str
    project: str
    branch: str
    cwd: str
    title: Redacted
    goal: Redacted
    status: str
    created_at: datetime
    started_at: datetime | None
    done_at: datetime | None
    session: str


class ItemRow(NamedTuple):
    id: int
    branch: str
    text: Redacted
    created_at: datetime
    done_at: datetime | None
    by: str = ""


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
    to_agent: str
    text: Redacted
    origin: str
    created_at: datetime


class DeliveryRow(NamedTuple):
    workspace: str
    session: str  # "<tool>:<id>" as the hooks key it; "" when the session was not known
    channel: str
    ref: str
    project: str
    tool: str
    at: datetime


class RuleRow(NamedTuple):
    id: int
    workspace: str
    project: str
    kind: str
    n: int
    memory_kind: str
    text: Redacted
    enabled: bool
    created_at: datetime


def _session(row: sqlite3.Row) -> SessionRow:
    return SessionRow(
        session=row["session"], tool=row["tool"], workspace=row["workspace"], project=row["project"],
        branch=row["branch"], cwd=row["cwd"], started_at=from_iso(row["started_at"]),
        last_seen=from_iso(row["last_seen"]), ended_at=_t(row["ended_at"]), holdout=bool(row["holdout"]),
        task_id=row["task_id"], first_prompt_at=_t(row["first_prompt_at"]), opening=stored(row["opening"]),
        last_message=stored(row["last_message"]), recalled=bool(row["recalled"]),
        changed_files=bool(row["changed_files"]), stop_asked=bool(row["stop_asked"]), prompts=row["prompts"],
    )  # fmt: skip


def _task(row: sqlite3.Row) -> TaskRow:
    return TaskRow(
        id=row["id"], workspace=row["workspace"], project=row["project"], branch=row["branch"], cwd=row["cwd"],
        title=stored(row["title"]), goal=stored(row["goal"]), status=row["status"], created_at=from_iso(row["created_at"]),
        started_at=_t(row["started_at"]), done_at=_t(row["done_at"]), session=row["session"],
    )  # fmt: skip


def _rule(row: sqlite3.Row) -> RuleRow:
    return RuleRow(row["id"], row["workspace"], row["project"], row["kind"], row["n"], row["memory_kind"],
                   stored(row["text"]), bool(row["enabled"]), from_iso(row["created_at"]))  # fmt: skip


class HookStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- stamp ----------------------------------------------------------------------------
    def lesson_stamp(self) -> int:
        return self.db.using(hook_rows.lesson_stamp)

    def trigger_rows(self) -> list[sqlite3.Row]:
        """Active lessons with a trigger, and lessons/decisions citing a file (every workspace):
        ref, trigger, source_ref, kind, workspace, scope, created_at, id."""
        return self.db.query(
            "SELECT ref, trigger, source_ref, kind, workspace, scope, created_at, id FROM memories"
            " WHERE status = 'active' AND hidden = 0 AND held = 0 AND citation != 'gone' AND (trigger IS NOT NULL"
            " OR (source_ref != '' AND kind IN ('lesson', 'decision')))"
        )

    # -- sessions -------------------------------------------------------------------------
    def session(self, key: str) -> SessionRow | None:
        row = self.db.using(hook_rows.session, key)
        return _session(row) if row else None

    def add_session(self, s: SessionRow) -> None:
        self.db.execute(
            "INSERT INTO hook_sessions (session, tool, workspace, project, branch, cwd, started_at, last_seen,"
            " holdout, task_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session) DO NOTHING",
            (s.session, s.tool, s.workspace, s.project, s.branch, s.cwd, to_iso(s.started_at),
             to_iso(s.last_seen), int(s.holdout), s.task_id),
        )  # fmt: skip

    def update_session(self, key: str, **fields: object) -> None:
        if not fields:
            return
        fields = _guard(fields)
        values = [to_iso(v) if isinstance(v, datetime) else (int(v) if isinstance(v, bool) else v)
                  for v in fields.values()]  # fmt: skip
        sets = ", ".join(f"{name} = ?" for name in fields)
        self.db.execute(f"UPDATE hook_sessions SET {sets} WHERE session = ?", [*values, key])

    def live_sessions(self, workspace: str, project: str, since: datetime) -> list[SessionRow]:
        return [_session(r) for r in self.db.using(hook_rows.live_sessions, workspace, project, to_iso(since))]

    def all_sessions(self, workspace: str) -> list[SessionRow]:
        rows = self.db.query("SELECT * FROM hook_sessions WHERE workspace = ? ORDER BY started_at", (workspace,))
        return [_session(r) for r in rows]

    # -- shown once -----------------------------------------------------------------------
    def shown(self, session: str, what: str) -> set[str]:
        return self.db.using(hook_rows.shown, session, what)

    def shown_rows(self, session: str) -> list[tuple[str, str, datetime]]:
        """Everything the session was shown once: ``(what, key, at)``, oldest first."""
        rows = self.db.query("SELECT what, key, at FROM hook_shown WHERE session = ? ORDER BY at, what, key",
                             (session,))  # fmt: skip
        return [(r["what"], r["key"], from_iso(r["at"])) for r in rows]

    def mark_shown(self, session: str, what: str, keys: list[str], at: datetime) -> None:
        self.db.using(hook_rows.mark_shown, session, what, keys, to_iso(at))

    def shown_count(self, what: str, key: str) -> int:
        row = self.db.one("SELECT count(*) FROM hook_shown WHERE what = ? AND key = ?", (what, key))
        return int(row[0]) if row else 0

    # -- deliveries -----------------------------------------------------------------------
    def add_deliveries(self, workspace: str, session: str, channel: str, refs: list[str], project: str, tool: str,
                       at: datetime) -> None:  # fmt: skip
        self.db.using(hook_rows.add_deliveries, workspace, session, channel, refs, project, tool, to_iso(at))

    def deliveries(self, workspace: str, since: datetime, until: datetime | None = None) -> list[DeliveryRow]:
        """Every memory handed out in ``workspace`` from ``since`` (to ``until``), oldest first."""
        sql = "SELECT * FROM memory_deliveries WHERE workspace = ? AND at >= ?"
        params: list[object] = [workspace, to_iso(since)]
        if until is not None:
            sql += " AND at < ?"
            params.append(to_iso(until))
        rows = self.db.query(sql + " ORDER BY at, id", params)
        return [DeliveryRow(r["workspace"], r["session"], r["channel"], r["ref"], r["project"], r["tool"],
                            from_iso(r["at"])) for r in rows]  # fmt: skip

    # -- asks -----------------------------------------------------------------------------
    def last_ask(self, workspace: str, project: str, what: str) -> datetime | None:
        at = self.db.using(hook_rows.last_ask, workspace, project, what)
        return from_iso(at) if at else None

    def set_ask(self, workspace: str, project: str, what: str, at: datetime, session: str) -> None:
        self.db.using(hook_rows.set_ask, workspace, project, what, to_iso(at), session)

    # -- goals, items, progress -----------------------------------------------------------
    def goal(self, workspace: str, project: str, branch: str) -> Redacted:
        return self.db.using(hook_rows.goal, workspace, project, branch)

    def goal_by(self, workspace: str, project: str, branch: str) -> tuple[Redacted, str]:
        """The branch's goal and who set it ("person", or the agent tool's name)."""
        return self.db.using(hook_rows.goal_by, workspace, project, branch)

    def work_branches(self, workspace: str, project: str) -> list[str]:
        """Branches that have a goal or an open item given out (neither done nor retired)."""
        rows = self.db.query(
            "SELECT branch FROM work_goals WHERE workspace = ? AND project = ? AND retired_at IS NULL"
            " UNION SELECT branch FROM work_items WHERE workspace = ? AND project = ? AND done_at IS NULL"
            " AND retired_at IS NULL ORDER BY 1", (workspace, project, workspace, project))
        return [str(r[0]) for r in rows]

    def retire_branch_work(self, workspace: str, project: str, branch: str, why: str, at: datetime) -> tuple[bool, int]:
        """Retire the branch's goal and open items; (goal retired, items retired)."""
        with self.db.transaction() as conn:
            goal = conn.execute(
                "UPDATE work_goals SET retired_at = ?, retired_why = ? WHERE workspace = ? AND project = ?"
                " AND branch = ? AND retired_at IS NULL", (to_iso(at), why, workspace, project, branch)).rowcount
            items = conn.execute(
                "UPDATE work_items SET retired_at = ? WHERE workspace = ? AND project = ? AND branch = ?"
                " AND done_at IS NULL AND retired_at IS NULL", (to_iso(at), workspace, project, branch)).rowcount
        return goal > 0, items

    def bring_back_branch_work(self, workspace: str, project: str, branch: str) -> tuple[bool, int]:
        """Give a retired goal and its retired open items back; (goal back, items back)."""
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
            "UPDATE work_items SET done_at = ? WHERE id = ? AND workspace = ? AND project = ? AND done_at IS NULL",
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
    def add_handoff(self, h: HandoffRow, workspace: str) -> int:
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

    def task(self, task_id: int) -> TaskRow | None:
        row = self.db.one("SELECT * FROM work_tasks WHERE id = ?", (task_id,))
        return _task(row) if row else None

    def tasks(self, workspace: str, project: str | None, statuses: tuple[str, ...]) -> list[TaskRow]:
        marks = ",".join("?" for _ in statuses)
        sql = f"SELECT * FROM work_tasks WHERE workspace = ? AND status IN ({marks})"
        params: list[object] = [workspace, *statuses]
        if project is not None:
            sql += " AND project = ?"
            params.append(project)
        return [_task(r) for r in self.db.query(sql + " ORDER BY id", params)]

    def update_task(self, task_id: int, **fields: object) -> None:
        fields = _guard(fields)
        values = [to_iso(v) if isinstance(v, datetime) else v for v in fields.values()]
        sets = ", ".join(f"{name} = ?" for name in fields)
        self.db.execute(f"UPDATE work_tasks SET {sets} WHERE id = ?", [*values, task_id])

    def unclaimed_task(self, workspace: str, cwd: str, since: datetime) -> TaskRow | None:
        """The latest task started since ``since`` whose folder holds ``cwd`` and that no
        session has claimed yet."""
        row = self.db.using(hook_rows.unclaimed_task, workspace, cwd, to_iso(since))
        return _task(row) if row is not None else None

    # -- rules ----------------------------------------------------------------------------
    def add_rule(self, workspace: str, project: str, kind: str, n: int, memory_kind: str, text: Redacted,
                 at: datetime) -> int:  # fmt: skip
        cur = self.db.execute(
            "INSERT INTO memory_rules (workspace, project, kind, n, memory_kind, text, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (workspace, project, kind, n, memory_kind, ensure(text), to_iso(at), to_iso(at)),
        )
        return int(cur.lastrowid or 0)

    def rules(self, workspace: str, project: str | None = None, *, enabled_only: bool = False) -> list[RuleRow]:
        sql = "SELECT * FROM memory_rules WHERE workspace = ?"
        params: list[object] = [workspace]
        if project is not None:
            sql += " AND project IN ('', ?)"
            params.append(project)
        if enabled_only:
            sql += " AND enabled = 1"
        return [_rule(r) for r in self.db.query(sql + " ORDER BY id DESC", params)]

    def rule(self, rule_id: int) -> RuleRow | None:
        row = self.db.one("SELECT * FROM memory_rules WHERE id = ?", (rule_id,))
        return _rule(row) if row else None

    def update_rule(self, rule_id: int, at: datetime, **fields: object) -> None:
        fields = _guard(fields)
        values = [int(v) if isinstance(v, bool) else v for v in fields.values()]
        sets = ", ".join(f"{name} = ?" for name in fields)
        self.db.execute(f"UPDATE memory_rules SET {sets}, updated_at = ? WHERE id = ?", [*values, to_iso(at), rule_id])

    def delete_rule(self, rule_id: int) -> None:
        self.db.execute("DELETE FROM memory_rules WHERE id = ?", (rule_id,))

    # -- reads for rules ------------------------------------------------------------------
    def use_sessions(self, refs: list[str]) -> dict[str, int]:
        if not refs:
            return {}
        marks = ",".join("?" for _ in refs)
        rows = self.db.query(
            f"SELECT ref, count(DISTINCT session) FROM memory_uses WHERE ref IN ({marks}) AND session != ''"
            " GROUP BY ref",
            refs,
        )
        return {r[0]: int(r[1]) for r in rows}

    def outcomes(self, refs: list[str]) -> dict[str, tuple[str, ...]]:
        if not refs:
            return {}
        marks = ",".join("?" for _ in refs)
        rows = self.db.query(f"SELECT memory_ref, outcome FROM decision_docs WHERE memory_ref IN ({marks})", refs)
        found: dict[str, tuple[str, ...]] = {}
        for r in rows:
            found[r[0]] = found.get(r[0], ()) + tuple(json.loads(r[1]))
        return found

    def count_unproven(self, workspace: str, scopes: Sequence[str], n: int) -> int:
        """Active lessons of ``scopes`` used in fewer than ``n`` distinct sessions (the proven
        rule's count, without reading the lessons)."""
        marks = ",".join("?" for _ in scopes)
        row = self.db.one(
            f"SELECT count(*) FROM memories m WHERE m.workspace = ? AND m.scope IN ({marks}) AND m.status = 'active'"
            " AND m.kind = 'lesson' AND (SELECT count(DISTINCT u.session) FROM memory_uses u"
            " WHERE u.ref = m.ref AND u.session != '') < ?",
            [workspace, *scopes, n],
        )  # fmt: skip
        return int(row[0]) if row else 0

    def count_decisions_by_outcome(self, workspace: str, scopes: Sequence[str], word: str, *, having: bool) -> int:
        """Active decisions of ``scopes`` with (``having``) or without an Outcome line of their
        decision doc that starts with ``word`` (ASCII, any case): the shipped and undone rules."""
        marks = ",".join("?" for _ in scopes)
        row = self.db.one(
            f"SELECT count(*) FROM memories m WHERE m.workspace = ? AND m.scope IN ({marks}) AND m.status = 'active'"
            f" AND m.kind = 'decision' AND {'' if having else 'NOT '}EXISTS (SELECT 1 FROM decision_docs d,"
            " json_each(d.outcome) o WHERE d.memory_ref = m.ref AND substr(lower(o.value), 1, ?) = ?)",
            [workspace, *scopes, len(word), word.lower()],
        )  # fmt: skip
        return int(row[0]) if row else 0

    def tidy_counts(self, workspace: str, project: str, rest_cutoff: datetime) -> tuple[int, int, int]:
        """(non-resting memories, preferences + decisions, lessons with a trigger) of a project."""
        cut = to_iso(rest_cutoff)
        row = self.db.one(
            "SELECT sum(kind = 'preference' OR pinned = 1 OR index_pinned = 1 OR created_at >= ?"
            " OR confirmed_at >= ? OR coalesce(last_used_at, '') >= ?),"
            " sum(kind IN ('preference', 'decision')), sum(kind = 'lesson' AND trigger IS NOT NULL)"
            " FROM memories WHERE workspace = ? AND scope = ? AND status = 'active'",
            (cut, cut, cut, workspace, project),
        )
        if row is None:
            return 0, 0, 0
        return int(row[0] or 0), int(row[1] or 0), int(row[2] or 0)

    def open_proposals(self, workspace: str, project: str) -> int:
        row = self.db.one(
            "SELECT count(*) FROM reviews WHERE workspace = ? AND scope = ? AND resolved_at IS NULL",
            (workspace, project),
        )
        return int(row[0]) if row else 0
