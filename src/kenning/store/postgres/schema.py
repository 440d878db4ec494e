"""Every migration set of the PostgreSQL backend, in the order they are applied, and opening it.

A subsystem adds its own set here (one line); its migrations live in its own module.
"""

from __future__ import annotations

import importlib
from typing import Any

import psycopg

from kenning.store.postgres import rls
from kenning.store.postgres.db import (
    Database,
    MigrationSet,
    connect_pool,
    migrate,
    require_current,
    under_policy,
)

FOUNDATION = MigrationSet("foundation")
FOUNDATION.add("f001_roles_and_policy_function", rls.FOUNDATION)


def all_sets() -> list[MigrationSet]:
    sets = [FOUNDATION]
    sets.append(importlib.import_module("kenning.store.postgres.memory_schema").MIGRATIONS)
    sets.append(importlib.import_module("kenning.store.postgres.rules_schema").MIGRATIONS)
    sets.append(importlib.import_module("kenning.store.postgres.capture_schema").MIGRATIONS)
    sets.append(importlib.import_module("kenning.store.postgres.graph_schema").MIGRATIONS)
    sets.append(importlib.import_module("kenning.store.postgres.notes_schema").MIGRATIONS)
    sets.append(importlib.import_module("kenning.store.postgres.work_schema").MIGRATIONS)
    sets.append(importlib.import_module("kenning.store.postgres.hooks_schema").MIGRATIONS)
    return sets


def migrate_schema(dsn: str, *, stop_before: dict[str, str] | None = None) -> list[str]:
    """Bring the schema ``dsn`` points at up to date, connected as its owner; ``set/name`` of
    each migration applied."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        return migrate(conn, all_sets(), stop_before=stop_before)


def open_database(
    dsn: str, *, workspace: str | None = None, run_migrations: bool = True, min_size: int = 1, max_size: int = 8
) -> Database:
    """A pool on ``dsn`` with the schema up to date.

    ``run_migrations`` (the schema's owner): apply what is pending first. Off (the
    application role, which may not change the schema): refuse a schema that is behind.
    ``workspace`` binds every transaction to that workspace (see kenning.store.postgres.rls).
    """
    with psycopg.connect(dsn, autocommit=True) as conn:
        if run_migrations:
            migrate(conn, all_sets())
        else:
            require_current(conn, all_sets())
        policy = under_policy(conn, "memories")
    pool = connect_pool(dsn, workspace=workspace, min_size=min_size, max_size=max_size)
    return Database(pool, workspace, under_policy=policy)


def tables(conn: psycopg.Connection[Any]) -> list[str]:
    """kenning's tables in the connection's schema (the ledger aside)."""
    rows = conn.execute(
        "SELECT c.relname FROM pg_class c WHERE c.relkind IN ('r', 'p') AND c.relnamespace = current_schema()::regnamespace"
        " AND c.relname != '_migrations' ORDER BY c.relname"
    ).fetchall()
    return [r[0] if isinstance(r, tuple) else r["relname"] for r in rows]
