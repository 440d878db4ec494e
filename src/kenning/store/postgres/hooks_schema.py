"""Schema of the hook state store on PostgreSQL: the sessions the hooks saw, what each was shown
once, asks, what each channel delivered, and the lesson stamp (as SQLite keeps them in its
hooks set), with the workspace first in every primary key and the workspace policy of
:mod:`kenning.store.postgres.rls`.

Hooks always run on the machine's own SQLite store; this set gives the team server the same
store on its engine. Two differences from SQLite, both from the workspace in every key: a
session, a shown-once mark and a delivery belong to one workspace (SQLite keys the first two
by session alone), and the lesson stamp is one counter per workspace, bumped by the same
changes to a memory as SQLite's single counter.
"""

from __future__ import annotations

from kenning.store.postgres import rls
from kenning.store.postgres.db import MigrationSet

MIGRATIONS = MigrationSet("hooks")

# What a change to a memory must touch for the compiled trigger file to be rebuilt: its
# trigger, its citation, or anything that decides whether it may be handed out (as SQLite's
# hook_stamp triggers, kenning.store.sqlite.hooks_schema).
_CHANGED = " OR ".join(
    f"OLD.{c} IS DISTINCT FROM NEW.{c}"
    for c in ("trigger", "source_ref", "status", "hidden", "held", "scope", "kind", "citation", "workspace")
)
_CARRIES = "(NEW.trigger IS NOT NULL OR OLD.trigger IS NOT NULL OR NEW.source_ref != '' OR OLD.source_ref != '')"

MIGRATIONS.add(
    "h001_hooks",
    f"""
    CREATE TABLE hook_stamp (
        workspace TEXT COLLATE "C" NOT NULL,
        name TEXT COLLATE "C" NOT NULL,
        n BIGINT NOT NULL,
        PRIMARY KEY (workspace, name)
    );
    CREATE FUNCTION kenning_lesson_stamp() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
        IF TG_OP != 'INSERT' THEN
            INSERT INTO hook_stamp (workspace, name, n) VALUES (OLD.workspace, 'lessons', 1)
            ON CONFLICT (workspace, name) DO UPDATE SET n = hook_stamp.n + 1;
        END IF;
        -- A memory moved to another workspace (the owner's doing) changes both files.
        IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.workspace IS DISTINCT FROM OLD.workspace) THEN
            INSERT INTO hook_stamp (workspace, name, n) VALUES (NEW.workspace, 'lessons', 1)
            ON CONFLICT (workspace, name) DO UPDATE SET n = hook_stamp.n + 1;
        END IF;
        RETURN NULL;
    END
    $fn$;
    CREATE TRIGGER hook_stamp_ai AFTER INSERT ON memories FOR EACH ROW
        WHEN (NEW.trigger IS NOT NULL OR NEW.source_ref != '') EXECUTE FUNCTION kenning_lesson_stamp();
    CREATE TRIGGER hook_stamp_au AFTER UPDATE ON memories FOR EACH ROW
        WHEN ({_CARRIES} AND ({_CHANGED})) EXECUTE FUNCTION kenning_lesson_stamp();
    CREATE TRIGGER hook_stamp_ad AFTER DELETE ON memories FOR EACH ROW
        WHEN (OLD.trigger IS NOT NULL OR OLD.source_ref != '') EXECUTE FUNCTION kenning_lesson_stamp();

    CREATE TABLE hook_sessions (
        workspace TEXT COLLATE "C" NOT NULL,
        session TEXT COLLATE "C" NOT NULL,  -- "<tool>:<the tool's session id>"
        tool TEXT NOT NULL,
        project TEXT COLLATE "C" NOT NULL DEFAULT '',
        branch TEXT NOT NULL DEFAULT '',
        cwd TEXT NOT NULL DEFAULT '',
        started_at TIMESTAMPTZ NOT NULL,
        last_seen TIMESTAMPTZ NOT NULL,
        ended_at TIMESTAMPTZ,
        holdout BOOLEAN NOT NULL DEFAULT false,
        task_id BIGINT,
        first_prompt_at TIMESTAMPTZ,
        opening TEXT NOT NULL DEFAULT '',
        last_message TEXT NOT NULL DEFAULT '',
        recalled BOOLEAN NOT NULL DEFAULT false,
        changed_files BOOLEAN NOT NULL DEFAULT false,
        stop_asked BOOLEAN NOT NULL DEFAULT false,
        prompts BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (workspace, session)
    );
    CREATE INDEX hook_sessions_project ON hook_sessions (workspace, project, last_seen);

    -- What a session was already shown once: lessons (ref), other agents (session), notes.
    CREATE TABLE hook_shown (
        workspace TEXT COLLATE "C" NOT NULL,
        session TEXT COLLATE "C" NOT NULL,
        what TEXT COLLATE "C" NOT NULL,  -- 'lesson' | 'agent' | 'handoff' | ...
        key TEXT COLLATE "C" NOT NULL,
        at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (workspace, session, what, key)
    );
    CREATE INDEX hook_shown_key ON hook_shown (workspace, what, key);

    CREATE TABLE hook_asks (
        workspace TEXT COLLATE "C" NOT NULL,
        project TEXT COLLATE "C" NOT NULL,
        what TEXT COLLATE "C" NOT NULL,  -- 'tidy'
        at TIMESTAMPTZ NOT NULL,
        session TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (workspace, project, what)
    );

    -- What each channel handed each session (kenning.core.deliveries). Refs, ids and names
    -- only: no words.
    CREATE TABLE memory_deliveries (
        workspace TEXT COLLATE "C" NOT NULL,
        id BIGINT GENERATED ALWAYS AS IDENTITY,
        session TEXT COLLATE "C" NOT NULL DEFAULT '',  -- "<tool>:<id>" as the hooks key it; '' when unknown
        channel TEXT COLLATE "C" NOT NULL CHECK (channel IN ('brief', 'card', 'index', 'lesson', 'recall', 'note')),
        ref TEXT COLLATE "C" NOT NULL,
        project TEXT NOT NULL DEFAULT '',
        tool TEXT NOT NULL DEFAULT '',
        at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (workspace, id)
    );
    CREATE UNIQUE INDEX memory_deliveries_once ON memory_deliveries (workspace, session, channel, ref)
        WHERE session != '';
    CREATE INDEX memory_deliveries_at ON memory_deliveries (workspace, at);
    CREATE INDEX memory_deliveries_ref ON memory_deliveries (workspace, ref);
    """
    + rls.protect("hook_stamp", "hook_sessions", "hook_shown", "hook_asks", "memory_deliveries"),
)
