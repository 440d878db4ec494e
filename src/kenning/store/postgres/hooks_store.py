"""PostgreSQL implementation of :class:`kenning.store.protocol.HookStateStore`: the sessions the
hooks saw, what each was shown once, what each channel delivered, asks, and the lesson stamp.

Hooks run on the machine's own SQLite store (their fast path, kenning.store.sqlite.hook_rows);
this store gives the same protocol on the team server's engine. Every statement names its
workspace and runs in a transaction that acts in it (row-level security,
:mod:`kenning.store.postgres.rls`); rows come back in the order the SQLite store gives them,
every tie broken explicitly.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from kenning.redacted import ensure, stored
from kenning.store.postgres.db import Database, Row
from kenning.store.protocol.hooks import CHANNELS, SESSION_FIELDS, DeliveryRow, SessionRow

# Columns that hold words someone wrote (redacted on the way in), and the yes/no columns (a
# caller may pass 0 or 1, as SQLite takes them).
_TEXT_FIELDS = frozenset({"opening", "last_message"})
_FLAGS = frozenset({"holdout", "recalled", "changed_files", "stop_asked"})


def _t(value: datetime | None) -> datetime | None:
    return None if value is None else value.astimezone(UTC)


def _session(row: Row) -> SessionRow:
    return SessionRow(
        session=row["session"], tool=row["tool"], workspace=row["workspace"], project=row["project"],
        branch=row["branch"], cwd=row["cwd"], started_at=row["started_at"].astimezone(UTC),
        last_seen=row["last_seen"].astimezone(UTC), ended_at=_t(row["ended_at"]), holdout=row["holdout"],
        task_id=row["task_id"], first_prompt_at=_t(row["first_prompt_at"]), opening=stored(row["opening"]),
        last_message=stored(row["last_message"]), recalled=row["recalled"], changed_files=row["changed_files"],
        stop_asked=row["stop_asked"], prompts=row["prompts"],
    )  # fmt: skip


def _value(name: str, value: object) -> object:
    if name in _TEXT_FIELDS and isinstance(value, str):
        return ensure(value)
    if name in _FLAGS and isinstance(value, int):
        return bool(value)
    return value


# A session named by its raw id or as "<tool>:<id>": the same match SQLite's store makes
# (kenning.store.sqlite.hooks_store.forget_session), exact, in either engine.
_NAMED = "(session = %(raw)s OR right(session, %(tail)s) = %(colon_raw)s)"


class PostgresHookStateStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def lesson_stamp(self, workspace: str) -> int:
        # One counter per workspace, bumped by the triggers of the hooks migration set.
        row = self.db.one(
            "SELECT n FROM hook_stamp WHERE workspace = %s AND name = 'lessons'", (workspace,), workspace=workspace
        )
        return int(row["n"]) if row else 0

    # -- sessions -------------------------------------------------------------------------
    def session(self, workspace: str, key: str) -> SessionRow | None:
        row = self.db.one(
            "SELECT * FROM hook_sessions WHERE workspace = %s AND session = %s", (workspace, key), workspace=workspace
        )
        return _session(row) if row else None

    def add_session(self, s: SessionRow) -> None:
        with self.db.transaction(s.workspace) as cur:
            cur.execute(
                b"INSERT INTO hook_sessions (workspace, session, tool, project, branch, cwd, started_at, last_seen,"
                b" holdout, task_id) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                b" ON CONFLICT (workspace, session) DO NOTHING",
                (s.workspace, s.session, s.tool, s.project, s.branch, s.cwd, s.started_at, s.started_at,
                 bool(s.holdout), s.task_id),
            )  # fmt: skip
            # As SQLite's store: a row whose last sighting is later than its start says so.
            if s.last_seen != s.started_at:
                self.update_session(s.workspace, s.session, last_seen=s.last_seen)

    def update_session(self, workspace: str, key: str, **fields: object) -> None:
        unknown = set(fields) - SESSION_FIELDS
        if unknown:
            raise ValueError(f"not a session field: {sorted(unknown)}")
        if not fields:
            return
        # The column names come from SESSION_FIELDS only (checked above), never from the caller.
        sets = ", ".join(f"{name} = %s" for name in fields)
        self.db.execute(
            f"UPDATE hook_sessions SET {sets} WHERE workspace = %s AND session = %s",
            [*(_value(k, v) for k, v in fields.items()), workspace, key],
            workspace=workspace,
        )

    def live_sessions(self, workspace: str, project: str, since: datetime) -> list[SessionRow]:
        rows = self.db.query(
            "SELECT * FROM hook_sessions WHERE workspace = %s AND project = %s AND ended_at IS NULL"
            " AND last_seen >= %s ORDER BY last_seen DESC, session",
            (workspace, project, since),
            workspace=workspace,
        )
        return [_session(r) for r in rows]

    def all_sessions(self, workspace: str) -> list[SessionRow]:
        rows = self.db.query(
            "SELECT * FROM hook_sessions WHERE workspace = %s ORDER BY started_at, session",
            (workspace,),
            workspace=workspace,
        )
        return [_session(r) for r in rows]

    def forget_session(self, workspace: str, session_id: str) -> None:
        raw = session_id.split(":", 1)[-1]
        named = {"ws": workspace, "raw": raw, "tail": len(raw) + 1, "colon_raw": ":" + raw}
        with self.db.transaction(workspace) as cur:
            keys = [r["session"] for r in cur.execute(
                f"SELECT session FROM hook_sessions WHERE workspace = %(ws)s AND {_NAMED}".encode(), named)]  # fmt: skip
            if keys:
                cur.execute(b"DELETE FROM hook_shown WHERE workspace = %s AND session = ANY(%s)", (workspace, keys))
                cur.execute(b"DELETE FROM hook_sessions WHERE workspace = %s AND session = ANY(%s)", (workspace, keys))
            # Deliveries may name a session the hooks never registered (an MCP call its hook logged).
            cur.execute(f"DELETE FROM memory_deliveries WHERE workspace = %(ws)s AND {_NAMED}".encode(), named)

    # -- shown once -----------------------------------------------------------------------
    def shown(self, workspace: str, session: str, what: str) -> set[str]:
        rows = self.db.query(
            "SELECT key FROM hook_shown WHERE workspace = %s AND session = %s AND what = %s",
            (workspace, session, what),
            workspace=workspace,
        )
        return {str(r["key"]) for r in rows}

    def shown_rows(self, workspace: str, session: str) -> list[tuple[str, str, datetime]]:
        rows = self.db.query(
            "SELECT what, key, at FROM hook_shown WHERE workspace = %s AND session = %s ORDER BY at, what, key",
            (workspace, session),
            workspace=workspace,
        )
        return [(r["what"], r["key"], r["at"].astimezone(UTC)) for r in rows]

    def mark_shown(self, workspace: str, session: str, what: str, keys: Iterable[str], at: datetime) -> None:
        rows = [(workspace, session, what, k, at) for k in keys]
        if not rows:
            return
        with self.db.transaction(workspace) as cur:
            cur.executemany(
                b"INSERT INTO hook_shown (workspace, session, what, key, at) VALUES (%s, %s, %s, %s, %s)"
                b" ON CONFLICT DO NOTHING",
                rows,
            )

    def shown_count(self, workspace: str, what: str, key: str) -> int:
        # Sessions the hooks registered only, as SQLite's store counts them.
        row = self.db.one(
            "SELECT count(*) AS n FROM hook_shown h JOIN hook_sessions s ON s.workspace = h.workspace"
            " AND s.session = h.session WHERE h.workspace = %s AND h.what = %s AND h.key = %s",
            (workspace, what, key),
            workspace=workspace,
        )
        return int(row["n"]) if row else 0

    # -- deliveries -----------------------------------------------------------------------
    def add_deliveries(self, workspace: str, session: str, channel: str, refs: Iterable[str], project: str, tool: str,
                       at: datetime) -> None:  # fmt: skip
        if channel not in CHANNELS:
            raise ValueError(f"not a delivery channel: {channel!r}")
        rows = [(workspace, session, channel, ref, project, tool, at) for ref in dict.fromkeys(refs)]
        if not rows:
            return
        with self.db.transaction(workspace) as cur:
            cur.executemany(
                b"INSERT INTO memory_deliveries (workspace, session, channel, ref, project, tool, at)"
                b" VALUES (%s, %s, %s, %s, %s, %s, %s)"
                b" ON CONFLICT (workspace, session, channel, ref) WHERE session != '' DO NOTHING",
                rows,
            )

    def deliveries(self, workspace: str, since: datetime, until: datetime | None = None) -> list[DeliveryRow]:
        sql = "SELECT * FROM memory_deliveries WHERE workspace = %s AND at >= %s"
        params: list[object] = [workspace, since]
        if until is not None:
            sql += " AND at < %s"
            params.append(until)
        rows = self.db.query(sql + " ORDER BY at, id", params, workspace=workspace)
        return [DeliveryRow(r["workspace"], r["session"], r["channel"], r["ref"], r["project"], r["tool"],
                            r["at"].astimezone(UTC)) for r in rows]  # fmt: skip

    # -- asks -----------------------------------------------------------------------------
    def last_ask(self, workspace: str, project: str, what: str) -> datetime | None:
        row = self.db.one(
            "SELECT at FROM hook_asks WHERE workspace = %s AND project = %s AND what = %s",
            (workspace, project, what),
            workspace=workspace,
        )
        return row["at"].astimezone(UTC) if row else None

    def set_ask(self, workspace: str, project: str, what: str, at: datetime, session: str) -> None:
        self.db.execute(
            "INSERT INTO hook_asks (workspace, project, what, at, session) VALUES (%s, %s, %s, %s, %s)"
            " ON CONFLICT (workspace, project, what) DO UPDATE SET at = excluded.at, session = excluded.session",
            (workspace, project, what, at, session),
            workspace=workspace,
        )
