"""SQLite implementation of :class:`kenning.store.protocol.HookStateStore`: the sessions the hooks
saw, what each was shown once, asks, and the lesson stamp. The statements the hooks' fast path
runs too live once, in :mod:`kenning.store.sqlite.hook_rows`."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import datetime

from kenning.clock import from_iso, to_iso
from kenning.store.protocol.hooks import SESSION_FIELDS, DeliveryRow, SessionRow
from kenning.store.sqlite import hook_rows
from kenning.store.sqlite.db import Database


def _t(value: str | None) -> datetime | None:
    return from_iso(value) if value else None


def session_row(row: sqlite3.Row) -> SessionRow:
    return SessionRow(
        session=row["session"], tool=row["tool"], workspace=row["workspace"], project=row["project"],
        branch=row["branch"], cwd=row["cwd"], started_at=from_iso(row["started_at"]),
        last_seen=from_iso(row["last_seen"]), ended_at=_t(row["ended_at"]), holdout=bool(row["holdout"]),
        task_id=row["task_id"], first_prompt_at=_t(row["first_prompt_at"]), opening=hook_rows.text(row, "opening"),
        last_message=hook_rows.text(row, "last_message"), recalled=bool(row["recalled"]),
        changed_files=bool(row["changed_files"]), stop_asked=bool(row["stop_asked"]), prompts=row["prompts"],
    )  # fmt: skip


def _plain(value: object) -> object:
    return to_iso(value) if isinstance(value, datetime) else value


_NAMED = "(session = ? OR substr(session, -?) = ?)"


class SqliteHookStateStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def lesson_stamp(self, workspace: str) -> int:
        # One counter for the file, bumped by SQL triggers on any memory that carries a trigger
        # or a citation: it moves for every workspace's change, which only costs a rebuild.
        return self.db.using(hook_rows.lesson_stamp)

    # -- sessions -------------------------------------------------------------------------
    def session(self, workspace: str, key: str) -> SessionRow | None:
        row = self.db.using(hook_rows.session, workspace, key)
        return session_row(row) if row else None

    def add_session(self, s: SessionRow) -> None:
        self.db.using(hook_rows.add_session, s.session, s.tool, s.workspace, s.project, s.branch, s.cwd,
                      to_iso(s.started_at), s.holdout, s.task_id)  # fmt: skip
        if s.last_seen != s.started_at:
            self.update_session(s.workspace, s.session, last_seen=s.last_seen)

    def update_session(self, workspace: str, key: str, **fields: object) -> None:
        unknown = set(fields) - SESSION_FIELDS
        if unknown:
            raise ValueError(f"not a session field: {sorted(unknown)}")
        self.db.using(hook_rows.update_session, workspace, key, {k: _plain(v) for k, v in fields.items()})

    def live_sessions(self, workspace: str, project: str, since: datetime) -> list[SessionRow]:
        return [session_row(r) for r in self.db.using(hook_rows.live_sessions, workspace, project, to_iso(since))]

    def all_sessions(self, workspace: str) -> list[SessionRow]:
        rows = self.db.query("SELECT * FROM hook_sessions WHERE workspace = ? ORDER BY started_at, session",
                             (workspace,))  # fmt: skip
        return [session_row(r) for r in rows]

    def forget_session(self, workspace: str, session_id: str) -> None:
        raw = session_id.split(":", 1)[-1]
        # The raw id, or "<tool>:" and it, matched exactly (LIKE would fold case and read _ and %).
        named = (raw, len(raw) + 1, ":" + raw)
        with self.db.transaction() as conn:
            keys = [r[0] for r in conn.execute(
                f"SELECT session FROM hook_sessions WHERE workspace = ? AND {_NAMED}", (workspace, *named))]  # fmt: skip
            for key in keys:
                conn.execute("DELETE FROM hook_shown WHERE session = ?", (key,))
                conn.execute("DELETE FROM hook_sessions WHERE workspace = ? AND session = ?", (workspace, key))
            # Deliveries may name a session the hooks never registered (an MCP call its hook logged).
            conn.execute(f"DELETE FROM memory_deliveries WHERE workspace = ? AND {_NAMED}", (workspace, *named))

    # -- shown once -----------------------------------------------------------------------
    def shown(self, workspace: str, session: str, what: str) -> set[str]:
        return self.db.using(hook_rows.shown, session, what)

    def shown_rows(self, workspace: str, session: str) -> list[tuple[str, str, datetime]]:
        rows = self.db.query("SELECT what, key, at FROM hook_shown WHERE session = ? ORDER BY at, what, key",
                             (session,))  # fmt: skip
        return [(r["what"], r["key"], from_iso(r["at"])) for r in rows]

    def mark_shown(self, workspace: str, session: str, what: str, keys: Iterable[str], at: datetime) -> None:
        self.db.using(hook_rows.mark_shown, session, what, list(keys), to_iso(at))

    def shown_count(self, workspace: str, what: str, key: str) -> int:
        row = self.db.one(
            "SELECT count(*) FROM hook_shown h JOIN hook_sessions s ON s.session = h.session"
            " WHERE s.workspace = ? AND h.what = ? AND h.key = ?", (workspace, what, key))  # fmt: skip
        return int(row[0]) if row else 0

    # -- deliveries -----------------------------------------------------------------------
    def add_deliveries(self, workspace: str, session: str, channel: str, refs: Iterable[str], project: str, tool: str,
                       at: datetime) -> None:  # fmt: skip
        self.db.using(hook_rows.add_deliveries, workspace, session, channel, list(refs), project, tool, to_iso(at))

    def deliveries(self, workspace: str, since: datetime, until: datetime | None = None) -> list[DeliveryRow]:
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
