"""SQLite implementation of :class:`kenning.store.protocol.NotesStore`."""

from __future__ import annotations

from kenning.redacted import Redacted, ensure
from kenning.store.graph_rows import diary_entry_of, value_of
from kenning.store.protocol.notes import DiaryEntry, NoteValue
from kenning.store.sqlite.db import Database


class SqliteNotesStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def diary_add(self, workspace: str, project: str, agent: Redacted, at: str, text: Redacted) -> int:
        cur = self.db.execute("INSERT INTO notes_diary (workspace, project, agent, at, text) VALUES (?, ?, ?, ?, ?)",
                              (workspace, project, ensure(agent), at, ensure(text)))
        return int(cur.lastrowid or 0)

    def diary(self, workspace: str, project: str, agent: str = "", since: str = "", limit: int = 20
              ) -> list[DiaryEntry]:  # fmt: skip
        where, params = ["workspace = ?", "project = ?"], [workspace, project]
        if agent:
            where.append("agent = ?")
            params.append(agent)
        if since:
            where.append("at >= ?")
            params.append(since)
        rows = self.db.query(f"SELECT * FROM notes_diary WHERE {' AND '.join(where)} ORDER BY at DESC, id DESC"
                             " LIMIT ?", [*params, limit])
        return [diary_entry_of(r) for r in rows]

    def all_diary(self, workspace: str) -> list[DiaryEntry]:
        rows = self.db.query("SELECT * FROM notes_diary WHERE workspace = ? ORDER BY at, id", (workspace,))
        return [diary_entry_of(r) for r in rows]

    def diary_count(self, workspace: str, project: str, agent: str, at: str, text: str) -> int:
        row = self.db.one("SELECT count(*) AS n FROM notes_diary WHERE workspace = ? AND project = ? AND agent = ?"
                          " AND at = ? AND text = ?", (workspace, project, agent, at, text))  # fmt: skip
        return int(row["n"]) if row else 0

    def set_value(self, workspace: str, project: str, key: str, value: Redacted, now: str) -> None:
        self.db.execute(
            "INSERT INTO notes_values (workspace, project, key, value, updated_at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (workspace, project, key) DO UPDATE SET value = excluded.value,"
            " updated_at = excluded.updated_at", (workspace, project, ensure(key), ensure(value), now))

    def value(self, workspace: str, project: str, key: str) -> NoteValue | None:
        row = self.db.one("SELECT * FROM notes_values WHERE workspace = ? AND project = ? AND key = ?",
                          (workspace, project, key))
        return value_of(row) if row else None

    def values(self, workspace: str, project: str) -> list[NoteValue]:
        rows = self.db.query("SELECT * FROM notes_values WHERE workspace = ? AND project = ? ORDER BY key",
                             (workspace, project))
        return [value_of(r) for r in rows]

    def all_values(self, workspace: str) -> list[NoteValue]:
        rows = self.db.query("SELECT * FROM notes_values WHERE workspace = ? ORDER BY project, key", (workspace,))
        return [value_of(r) for r in rows]
