"""Schema of the work store on PostgreSQL: branch goals, open items, progress, handoff notes and
tasks (as SQLite keeps them in its hooks set), with the workspace first in every primary key
and the workspace policy of :mod:`kenning.store.postgres.rls`. Ids are identity columns: the
order rows were written in, which listings and their ties follow, as SQLite's integer keys."""

from __future__ import annotations

from kenning.store.postgres import rls
from kenning.store.postgres.db import MigrationSet

MIGRATIONS = MigrationSet("work")

MIGRATIONS.add(
    "w001_work",
    """
    CREATE TABLE work_goals (
        workspace TEXT COLLATE "C" NOT NULL,
        project TEXT COLLATE "C" NOT NULL,
        branch TEXT COLLATE "C" NOT NULL,
        goal TEXT NOT NULL,
        set_by TEXT NOT NULL DEFAULT '',
        set_at TIMESTAMPTZ NOT NULL,
        retired_at TIMESTAMPTZ,
        retired_why TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (workspace, project, branch)
    );

    CREATE TABLE work_items (
        workspace TEXT COLLATE "C" NOT NULL,
        id BIGINT GENERATED ALWAYS AS IDENTITY,
        project TEXT COLLATE "C" NOT NULL,
        branch TEXT COLLATE "C" NOT NULL,
        text TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL,
        done_at TIMESTAMPTZ,
        retired_at TIMESTAMPTZ,
        by TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (workspace, id)
    );
    CREATE INDEX work_items_open ON work_items (workspace, project, branch) WHERE done_at IS NULL;

    CREATE TABLE work_progress (
        workspace TEXT COLLATE "C" NOT NULL,
        id BIGINT GENERATED ALWAYS AS IDENTITY,
        project TEXT COLLATE "C" NOT NULL,
        branch TEXT COLLATE "C" NOT NULL,
        summary TEXT NOT NULL,
        decisions TEXT[] NOT NULL DEFAULT '{}',
        at TIMESTAMPTZ NOT NULL,
        by TEXT NOT NULL DEFAULT '',
        session TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (workspace, id)
    );
    CREATE INDEX work_progress_branch ON work_progress (workspace, project, branch, at);

    CREATE TABLE work_handoffs (
        workspace TEXT COLLATE "C" NOT NULL,
        id BIGINT GENERATED ALWAYS AS IDENTITY,
        project TEXT COLLATE "C" NOT NULL,
        from_session TEXT NOT NULL DEFAULT '',
        from_tool TEXT NOT NULL DEFAULT '',
        to_agent TEXT NOT NULL DEFAULT '',  -- '' for every other agent, else a tool or session
        text TEXT NOT NULL,
        origin TEXT NOT NULL DEFAULT 'agent',
        created_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (workspace, id)
    );
    CREATE INDEX work_handoffs_project ON work_handoffs (workspace, project, created_at);

    CREATE TABLE work_tasks (
        workspace TEXT COLLATE "C" NOT NULL,
        id BIGINT GENERATED ALWAYS AS IDENTITY,
        project TEXT COLLATE "C" NOT NULL,
        branch TEXT NOT NULL DEFAULT '',
        cwd TEXT NOT NULL DEFAULT '',
        title TEXT NOT NULL,
        goal TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'started', 'done')),
        created_at TIMESTAMPTZ NOT NULL,
        started_at TIMESTAMPTZ,
        done_at TIMESTAMPTZ,
        session TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (workspace, id)
    );
    CREATE INDEX work_tasks_project ON work_tasks (workspace, project, status);
    CREATE INDEX work_tasks_started ON work_tasks (workspace, started_at) WHERE status = 'started' AND session = '';
    """
    + rls.protect("work_goals", "work_items", "work_progress", "work_handoffs", "work_tasks"),
)
