"""PostgreSQL implementation of :class:`kenning.store.protocol.NotesStore`: the SQLite store's
statements (:mod:`kenning.store.sqlite.notes_store`) with the same orders and ties, each in the
workspace it names (row-level security)."""

from __future__ import annotations

from kenning.redacted import Redacted, ensure
from kenning.store.graph_rows import diary_entry_of, value_of
from kenning.store.postgres.db import Database
from kenning.store.protocol.notes import DiaryEntry, NoteValue


class PostgresNotesStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def diary_add(self, workspace: str, project: str, agent: Redacted, at: str, text: Redacted) -> int:
        row = self.db.one(
            "INSERT INTO notes_diary (workspace, project, agent, at, text) VALUES (%s, %s, %s, %s, %s) RETURNING id",
            (workspace, project, ensure(agent), at, ensure(text)), workspace=workspace)  # fmt: skip
        return int(row["id"]) if row else 0

    def diary(self, workspace: str, project: str, agent: str = "", since: str = "", limit: int = 20
              ) -> list[DiaryEntry]:  # fmt: skip
        where, params = ["workspace = %s", "project = %s"], [workspace, project]
        if agent:
            where.append("agent = %s")
            params.append(agent)
        if since:
            where.append("at >= %s")
            params.append(since)
        rows = self.db.query(f"SELECT * FROM notes_diary WHERE {' AND '.join(where)} ORDER BY at DESC, id DESC"
                             " LIMIT %s", [*params, limit], workspace=workspace)  # fmt: skip
        return [diary_entry_of(r) for r in rows]

    def all_diary(self, workspace: str) -> list[DiaryEntry]:
        rows = self.db.query("SELECT * FROM notes_diary WHERE workspace = %s ORDER BY at, id", (workspace,),
                             workspace=workspace)  # fmt: skip
        return [diary_entry_of(r) for r in rows]

    def diary_count(self, workspace: str, project: str, agent: str, at: str, text: str) -> int:
        row = self.db.one("SELECT count(*) AS n FROM notes_diary WHERE workspace = %s AND project = %s"
                          " AND agent = %s AND at = %s AND text = %s", (workspace, project, agent, at, text),
                          workspace=workspace)  # fmt: skip
        return int(row["n"]) if row else 0

    def set_value(self, workspace: str, project: str, key: str, value: Redacted, now: str) -> None:
        self.db.execute(
            "INSERT INTO notes_values (workspace, project, key, value, updated_at) VALUES (%s, %s, %s, %s, %s)"
            " ON CONFLICT (workspace, project, key) DO UPDATE SET value = excluded.value,"
            " updated_at = excluded.updated_at", (workspace, project, ensure(key), ensure(value), now),
            workspace=workspace)  # fmt: skip

    def value(self, workspace: str, project: str, key: str) -> NoteValue | None:
        row = self.db.one("SELECT * FROM notes_values WHERE workspace = %s AND project = %s AND key = %s",
                          (workspace, project, key), workspace=workspace)  # fmt: skip
        return value_of(row) if row else None

    def values(self, workspace: str, project: str) -> list[NoteValue]:
        rows = self.db.query("SELECT * FROM notes_values WHERE workspace = %s AND project = %s ORDER BY key",
                             (workspace, project), workspace=workspace)  # fmt: skip
        return [value_of(r) for r in rows]

    def all_values(self, workspace: str) -> list[NoteValue]:
        rows = self.db.query("SELECT * FROM notes_values WHERE workspace = %s ORDER BY project, key", (workspace,),
                             workspace=workspace)  # fmt: skip
        return [value_of(r) for r in rows]
