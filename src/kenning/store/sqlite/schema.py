"""Every migration set of the SQLite backend, in the order they are applied on open.

A subsystem adds its own set here (one line); its migrations live in its own module.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from kenning.store.sqlite.db import Database, MigrationSet, connect, migrate


def all_sets() -> list[MigrationSet]:
    from kenning.store.sqlite import memory_schema

    sets = [memory_schema.MIGRATIONS]
    sets.append(__import__("kenning.store.sqlite.hooks_schema", fromlist=["MIGRATIONS"]).MIGRATIONS)
    sets.append(importlib.import_module("kenning.store.sqlite.capture_schema").MIGRATIONS)
    sets.append(importlib.import_module("kenning.store.sqlite.graph_schema").MIGRATIONS)
    return sets


def open_database(path: Path | str) -> Database:
    """Connect and bring the schema up to date (migrations run on every open)."""
    conn = connect(path)
    migrate(conn, all_sets())
    return Database(conn, Path(path) if str(path) != ":memory:" else None)
