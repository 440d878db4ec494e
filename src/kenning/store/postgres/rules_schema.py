"""Schema of the rule store on PostgreSQL: the user's rules about which memories agents get
(as SQLite keeps them in its hooks set, ``memory_rules``), with the workspace first in the
primary key and the workspace policy of :mod:`kenning.store.postgres.rls`."""

from __future__ import annotations

from kenning.store.postgres import rls
from kenning.store.postgres.db import MigrationSet

MIGRATIONS = MigrationSet("rules")

MIGRATIONS.add(
    "r001_rules",
    """
    -- id: the order rules were written in (listings are newest first, the brief's sentence
    -- rules break ties by it, as SQLite by its integer key).
    CREATE TABLE memory_rules (
        workspace TEXT COLLATE "C" NOT NULL,
        id BIGINT GENERATED ALWAYS AS IDENTITY,
        project TEXT COLLATE "C" NOT NULL DEFAULT '',  -- '' holds for all projects
        kind TEXT NOT NULL CHECK (kind IN ('unused', 'proven', 'shipped', 'undone', 'sentence')),
        n BIGINT NOT NULL DEFAULT 0,
        memory_kind TEXT NOT NULL DEFAULT '',
        text TEXT NOT NULL DEFAULT '',
        enabled BOOLEAN NOT NULL DEFAULT true,
        created_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (workspace, id)
    );
    CREATE INDEX memory_rules_project ON memory_rules (workspace, project);
    """
    + rls.protect("memory_rules"),
)
