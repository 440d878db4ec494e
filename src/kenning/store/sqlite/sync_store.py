"""The machine's sync state in its SQLite store (kenning.store.syncstate.SyncStateStore).

It shares the store's connection, so the sync client moves a cursor, records what it applied
and changes memories in one transaction."""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager

from kenning.store.sqlite.db import Database
from kenning.store.syncstate import Outbox, SyncedRow


class SqliteSyncState:
    def __init__(self, db: Database) -> None:
        self.db = db

    def transaction(self) -> AbstractContextManager[object]:
        return self.db.transaction()

    def cursor(self, server: str, workspace: str) -> int:
        row = self.db.one("SELECT cursor FROM sync_cursors WHERE server = ? AND workspace = ?", (server, workspace))
        return int(row["cursor"]) if row else 0

    def set_cursor(self, server: str, workspace: str, cursor: int) -> None:
        self.db.execute("INSERT INTO sync_cursors (server, workspace, cursor) VALUES (?, ?, ?)"
                        " ON CONFLICT (server, workspace) DO UPDATE SET cursor = excluded.cursor",
                        (server, workspace, cursor))  # fmt: skip

    def rows(self, server: str, workspace: str) -> dict[tuple[str, str], SyncedRow]:
        found = self.db.query("SELECT * FROM sync_rows WHERE server = ? AND workspace = ?", (server, workspace))
        return {(r["kind"], r["key"]): _row(r) for r in found}

    def row(self, server: str, workspace: str, kind: str, key: str) -> SyncedRow | None:
        r = self.db.one("SELECT * FROM sync_rows WHERE server = ? AND workspace = ? AND kind = ? AND key = ?",
                        (server, workspace, kind, key))  # fmt: skip
        return _row(r) if r else None

    def set_row(self, server: str, workspace: str, row: SyncedRow) -> None:
        self.db.execute(
            "INSERT INTO sync_rows (server, workspace, kind, key, owner, digest, seq, deleted, local)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (server, workspace, kind, key) DO UPDATE SET"
            " owner = excluded.owner, digest = excluded.digest, seq = excluded.seq, deleted = excluded.deleted,"
            " local = excluded.local",
            (server, workspace, row.kind, row.key, row.owner, row.digest, row.seq, int(row.deleted), row.local),
        )

    def outbox(self, server: str, workspace: str) -> Outbox | None:
        r = self.db.one("SELECT batch_id, payload FROM sync_outbox WHERE server = ? AND workspace = ?",
                        (server, workspace))  # fmt: skip
        return Outbox(r["batch_id"], r["payload"]) if r else None

    def set_outbox(self, server: str, workspace: str, outbox: Outbox) -> None:
        self.db.execute("INSERT INTO sync_outbox (server, workspace, batch_id, payload) VALUES (?, ?, ?, ?)"
                        " ON CONFLICT (server, workspace) DO UPDATE SET batch_id = excluded.batch_id,"
                        " payload = excluded.payload", (server, workspace, outbox.batch_id, outbox.payload))  # fmt: skip

    def clear_outbox(self, server: str, workspace: str) -> None:
        self.db.execute("DELETE FROM sync_outbox WHERE server = ? AND workspace = ?", (server, workspace))

    def forget_server(self, server: str) -> None:
        with self.db.transaction():
            for table in ("sync_cursors", "sync_rows", "sync_outbox"):
                self.db.execute(f"DELETE FROM {table} WHERE server = ?", (server,))


def _row(r: sqlite3.Row) -> SyncedRow:
    return SyncedRow(r["kind"], r["key"], r["owner"], r["digest"], int(r["seq"]), bool(r["deleted"]), r["local"])
