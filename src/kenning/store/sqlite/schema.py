"""Every migration set of the SQLite backend, in the order they are applied on open.

A subsystem adds its own set here (one line); its migrations live in its own module.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from kenning.store.sqlite.db import BUSY_TIMEOUT_MS, Database, MigrationSet, connect, migrate


def all_sets() -> list[MigrationSet]:
    from kenning.store.sqlite import memory_schema

    sets = [memory_schema.MIGRATIONS]
    sets.append(__import__("kenning.store.sqlite.hooks_schema", fromlist=["MIGRATIONS"]).MIGRATIONS)
    sets.append(importlib.import_module("kenning.store.sqlite.capture_schema").MIGRATIONS)
    sets.append(importlib.import_module("kenning.store.sqlite.graph_schema").MIGRATIONS)
    return sets


def open_database(path: Path | str, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> Database:
    """Connect and bring the schema up to date (migrations run on every open).

    ``busy_timeout_ms`` bounds every wait for another process's write lock on this
    connection; hooks pass one that fits inside their own time budget.
    """
    conn = connect(path, busy_timeout_ms=busy_timeout_ms)
    try:
        if migrate(conn, all_sets()) and str(path) != ":memory:":
            # Migrations rewrote rows (some to redact them): the WAL still holds the old pages
            # until it is checkpointed and cut back to nothing. Best effort: a reader elsewhere
            # can keep part of it until its next checkpoint.
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except BaseException:
        conn.close()
        raise
    return Database(conn, Path(path) if str(path) != ":memory:" else None)
