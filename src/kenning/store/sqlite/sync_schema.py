"""Schema of a machine's sync state (kenning.store.syncstate)."""

from __future__ import annotations

from kenning.store.sqlite.db import MigrationSet

MIGRATIONS = MigrationSet("sync")
MIGRATIONS.add(
    "m001_sync_state",
    """
    CREATE TABLE sync_cursors (
        server TEXT NOT NULL,
        workspace TEXT NOT NULL,
        cursor INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (server, workspace)
    );
    CREATE TABLE sync_rows (
        server TEXT NOT NULL,
        workspace TEXT NOT NULL,
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        owner TEXT NOT NULL,
        digest TEXT NOT NULL,
        seq INTEGER NOT NULL DEFAULT 0,
        deleted INTEGER NOT NULL DEFAULT 0,
        local TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (server, workspace, kind, key)
    );
    CREATE TABLE sync_outbox (
        server TEXT NOT NULL,
        workspace TEXT NOT NULL,
        batch_id TEXT NOT NULL,
        payload TEXT NOT NULL,
        PRIMARY KEY (server, workspace)
    );
    """,
)
