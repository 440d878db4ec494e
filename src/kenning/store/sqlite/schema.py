"""Every migration set of the SQLite backend, in the order they are applied on open.

A subsystem adds its own set here (one line); its migrations live in its own module.
"""

from __future__ import annotations

import importlib
import os
import sqlite3
from pathlib import Path

from kenning.store.protocol.bundle import StoreCheck
from kenning.store.sqlite.db import BUSY_TIMEOUT_MS, Database, MigrationSet, connect, migrate


def all_sets() -> list[MigrationSet]:
    from kenning.store.sqlite import memory_schema

    sets = [memory_schema.MIGRATIONS]
    sets.append(__import__("kenning.store.sqlite.hooks_schema", fromlist=["MIGRATIONS"]).MIGRATIONS)
    sets.append(importlib.import_module("kenning.store.sqlite.capture_schema").MIGRATIONS)
    sets.append(importlib.import_module("kenning.store.sqlite.graph_schema").MIGRATIONS)
    sets.append(importlib.import_module("kenning.store.sqlite.sync_schema").MIGRATIONS)
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


def check_store(path: Path, *, wait_ms: int = 300) -> StoreCheck:
    """Look at the store without changing it (no migration, nothing created): can it be read,
    is its content intact, is another process holding its write lock."""
    where = str(path)
    if not path.exists():
        return StoreCheck("missing", where, "no store yet", "it is made on first use (kenning status)")
    if not os.access(path, os.R_OK) or (path.parent.exists() and not os.access(path.parent, os.R_OK | os.X_OK)):
        return StoreCheck("unreadable", where, "this user cannot read it", f"check the owner and mode of {where}")
    quoted = where.replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    try:
        conn = sqlite3.connect(f"file:{quoted}?mode=ro", uri=True, timeout=wait_ms / 1000)
    except sqlite3.Error as exc:
        return StoreCheck("unreadable", where, str(exc), f"check the owner and mode of {where}")
    try:  # connect's timeout is the wait (pragmas are set in one place only: store/sqlite/pragmas.py)
        verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
        if verdict != "ok":
            return StoreCheck("corrupt", where, f"quick_check: {verdict}",
                              "restore a backup, or move the file aside to start a new store")  # fmt: skip
        memories = conn.execute("SELECT count(*) FROM memories").fetchone()[0] if _has(conn, "memories") else 0
    except sqlite3.DatabaseError as exc:
        text = str(exc)
        if "locked" in text or "busy" in text:
            return StoreCheck("locked", where, f"another process holds it ({text})",
                              "wait for the sync or migration to finish; if none runs, find the process holding it")  # fmt: skip
        return StoreCheck("corrupt", where, text, "restore a backup, or move the file aside to start a new store")
    finally:
        conn.close()
    writer = sqlite3.connect(where, timeout=wait_ms / 1000, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("ROLLBACK")
    except sqlite3.OperationalError as exc:
        return StoreCheck("locked", where, f"its write lock is held by another process ({exc})",
                          "hooks answer without the store meanwhile; wait for the writer (a sync, a migration) to end")  # fmt: skip
    finally:
        writer.close()
    return StoreCheck("ok", where, f"{memories} memories")


def _has(conn: sqlite3.Connection, table: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone() is not None
