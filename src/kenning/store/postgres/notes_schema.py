"""Schema of notes on PostgreSQL: diary entries agents write per project, and small named
values per project (SQLite's notes tables, workspace first in every primary key). Times stay
ISO text in the "C" collation, compared and sorted byte by byte as SQLite does."""

from __future__ import annotations

from kenning.store.postgres import rls
from kenning.store.postgres.db import MigrationSet

MIGRATIONS = MigrationSet("notes")

MIGRATIONS.add(
    "n001_notes",
    """
    -- id: the order entries were written in (entries of one moment are ordered by it).
    CREATE TABLE notes_diary (
        workspace TEXT COLLATE "C" NOT NULL,
        id BIGINT GENERATED ALWAYS AS IDENTITY,
        project TEXT COLLATE "C" NOT NULL,
        agent TEXT COLLATE "C" NOT NULL DEFAULT '',
        at TEXT COLLATE "C" NOT NULL,
        text TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (workspace, id)
    );
    CREATE INDEX notes_diary_project ON notes_diary (workspace, project, agent, at);
    CREATE INDEX notes_diary_at ON notes_diary (workspace, project, at, id);

    CREATE TABLE notes_values (
        workspace TEXT COLLATE "C" NOT NULL,
        project TEXT COLLATE "C" NOT NULL,
        key TEXT COLLATE "C" NOT NULL,
        value TEXT NOT NULL,
        updated_at TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (workspace, project, key)
    );
    """
    + rls.protect("notes_diary", "notes_values"),
)
