"""Schema of what the hooks see and the work around a branch: sessions, lesson deliveries,
branch goals, open items, progress, handoff notes, tasks, the user's rules, and a stamp that
tells the tool-call fast path when its compiled trigger file is out of date."""

from __future__ import annotations

import sqlite3

from kenning.store.sqlite import redaction
from kenning.store.sqlite.db import MigrationSet

MIGRATIONS = MigrationSet("hooks")

# What a change to a memory must touch for the compiled trigger file to be rebuilt: its
# trigger, its citation, or anything that decides whether it may be handed out.
_STAMP_COLUMNS_CHANGED = " OR ".join(
    f"old.{c} IS NOT new.{c}" for c in ("trigger", "source_ref", "status", "hidden", "held", "scope", "kind", "citation")
)
_CARRIES = "(new.trigger IS NOT NULL OR old.trigger IS NOT NULL OR new.source_ref != '' OR old.source_ref != '')"

MIGRATIONS.add(
    "m001_hooks",
    f"""
    CREATE TABLE hook_stamp (
        name TEXT PRIMARY KEY,
        n INTEGER NOT NULL
    );
    INSERT INTO hook_stamp (name, n) VALUES ('lessons', 1);
    CREATE TRIGGER hook_stamp_ai AFTER INSERT ON memories
        WHEN new.trigger IS NOT NULL OR new.source_ref != '' BEGIN
        UPDATE hook_stamp SET n = n + 1 WHERE name = 'lessons';
    END;
    CREATE TRIGGER hook_stamp_au AFTER UPDATE ON memories
        WHEN {_CARRIES} AND ({_STAMP_COLUMNS_CHANGED}) BEGIN
        UPDATE hook_stamp SET n = n + 1 WHERE name = 'lessons';
    END;
    CREATE TRIGGER hook_stamp_ad AFTER DELETE ON memories
        WHEN old.trigger IS NOT NULL OR old.source_ref != '' BEGIN
        UPDATE hook_stamp SET n = n + 1 WHERE name = 'lessons';
    END;

    CREATE TABLE hook_sessions (
        session TEXT PRIMARY KEY,            -- "<tool>:<the tool's session id>"
        tool TEXT NOT NULL,
        workspace TEXT NOT NULL,
        project TEXT NOT NULL DEFAULT '',
        branch TEXT NOT NULL DEFAULT '',
        cwd TEXT NOT NULL DEFAULT '',
        started_at TEXT NOT NULL,
        last_seen TEXT NOT NULL,
        ended_at TEXT,
        holdout INTEGER NOT NULL DEFAULT 0,
        task_id INTEGER,
        first_prompt_at TEXT,
        opening TEXT NOT NULL DEFAULT '',
        last_message TEXT NOT NULL DEFAULT '',
        recalled INTEGER NOT NULL DEFAULT 0,
        changed_files INTEGER NOT NULL DEFAULT 0,
        stop_asked INTEGER NOT NULL DEFAULT 0,
        prompts INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX hook_sessions_project ON hook_sessions (workspace, project, last_seen);

    -- What a session was already shown once: lessons (ref), other agents (session), notes.
    CREATE TABLE hook_shown (
        session TEXT NOT NULL,
        what TEXT NOT NULL,       -- 'lesson' | 'agent' | 'handoff'
        key TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (session, what, key)
    );

    CREATE TABLE hook_asks (
        workspace TEXT NOT NULL,
        project TEXT NOT NULL,
        what TEXT NOT NULL,       -- 'tidy'
        at TEXT NOT NULL,
        session TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (workspace, project, what)
    );

    CREATE TABLE work_goals (
        workspace TEXT NOT NULL,
        project TEXT NOT NULL,
        branch TEXT NOT NULL,
        goal TEXT NOT NULL,
        set_by TEXT NOT NULL DEFAULT '',
        set_at TEXT NOT NULL,
        PRIMARY KEY (workspace, project, branch)
    );

    CREATE TABLE work_items (
        id INTEGER PRIMARY KEY,
        workspace TEXT NOT NULL,
        project TEXT NOT NULL,
        branch TEXT NOT NULL,
        text TEXT NOT NULL,
        created_at TEXT NOT NULL,
        done_at TEXT,
        by TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX work_items_open ON work_items (workspace, project, branch) WHERE done_at IS NULL;

    CREATE TABLE work_progress (
        id INTEGER PRIMARY KEY,
        workspace TEXT NOT NULL,
        project TEXT NOT NULL,
        branch TEXT NOT NULL,
        summary TEXT NOT NULL,
        decisions TEXT NOT NULL DEFAULT '[]',
        at TEXT NOT NULL,
        by TEXT NOT NULL DEFAULT '',
        session TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX work_progress_branch ON work_progress (workspace, project, branch, at);

    CREATE TABLE work_handoffs (
        id INTEGER PRIMARY KEY,
        workspace TEXT NOT NULL,
        project TEXT NOT NULL,
        from_session TEXT NOT NULL DEFAULT '',
        from_tool TEXT NOT NULL DEFAULT '',
        to_agent TEXT NOT NULL DEFAULT '',  -- '' for every other agent, else a tool or session
        text TEXT NOT NULL,
        origin TEXT NOT NULL DEFAULT 'agent',
        created_at TEXT NOT NULL
    );
    CREATE INDEX work_handoffs_project ON work_handoffs (workspace, project, created_at);

    CREATE TABLE work_tasks (
        id INTEGER PRIMARY KEY,
        workspace TEXT NOT NULL,
        project TEXT NOT NULL,
        branch TEXT NOT NULL DEFAULT '',
        cwd TEXT NOT NULL DEFAULT '',
        title TEXT NOT NULL,
        goal TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'started', 'done')),
        created_at TEXT NOT NULL,
        started_at TEXT,
        done_at TEXT,
        session TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX work_tasks_project ON work_tasks (workspace, project, status);

    CREATE TABLE memory_rules (
        id INTEGER PRIMARY KEY,
        workspace TEXT NOT NULL,
        project TEXT NOT NULL DEFAULT '',   -- '' holds for all projects
        kind TEXT NOT NULL CHECK (kind IN ('unused', 'proven', 'shipped', 'undone', 'sentence')),
        n INTEGER NOT NULL DEFAULT 0,
        memory_kind TEXT NOT NULL DEFAULT '',
        text TEXT NOT NULL DEFAULT '',
        enabled INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    """,
)


def _m002_redact(conn: sqlite3.Connection) -> None:
    # Before the one door the prompt hook kept a session's first prompt and the Stop hook its
    # last reply as typed, and other sessions were shown them: redact what is there.
    redaction.redact_table(conn, "hook_sessions", ("opening", "last_message"))
    redaction.redact_table(conn, "work_goals", ("goal", "set_by"))
    redaction.redact_table(conn, "work_items", ("text", "by"))
    redaction.redact_table(conn, "work_progress", ("summary", "by"), json_columns=("decisions",))
    redaction.redact_table(conn, "work_handoffs", ("text", "from_tool", "to_agent"))
    redaction.redact_table(conn, "work_tasks", ("title", "goal"))
    redaction.redact_table(conn, "memory_rules", ("text",))


MIGRATIONS.add("m002_redact", _m002_redact)

# A branch that landed or was removed takes its goal and open items with it, the way its state
# memory is retired: kept (bring-back-able), given to no session.
MIGRATIONS.add(
    "m003_work_retired",
    """
    ALTER TABLE work_goals ADD COLUMN retired_at TEXT;
    ALTER TABLE work_goals ADD COLUMN retired_why TEXT NOT NULL DEFAULT '';
    ALTER TABLE work_items ADD COLUMN retired_at TEXT;
    """,
)

# What each channel handed each session (kenning.core.deliveries): the memory report counts
# memories given per channel and judges which were used. Refs, ids and names only: no words.
# Lessons delivered before this table existed are read back from hook_shown.
MIGRATIONS.add(
    "m004_deliveries",
    """
    CREATE TABLE memory_deliveries (
        id INTEGER PRIMARY KEY,
        workspace TEXT NOT NULL,
        session TEXT NOT NULL DEFAULT '',   -- "<tool>:<id>" as the hooks key it; '' when unknown
        channel TEXT NOT NULL CHECK (channel IN ('brief', 'card', 'index', 'lesson', 'recall', 'note')),
        ref TEXT NOT NULL,
        project TEXT NOT NULL DEFAULT '',
        tool TEXT NOT NULL DEFAULT '',
        at TEXT NOT NULL
    );
    CREATE UNIQUE INDEX memory_deliveries_once ON memory_deliveries (session, channel, ref) WHERE session != '';
    CREATE INDEX memory_deliveries_at ON memory_deliveries (workspace, at);
    INSERT OR IGNORE INTO memory_deliveries (workspace, session, channel, ref, project, tool, at)
        SELECT s.workspace, h.session, 'lesson', h.key, s.project, s.tool, h.at
        FROM hook_shown h JOIN hook_sessions s ON s.session = h.session WHERE h.what = 'lesson';
    """,
)

def _m005_redact_cut(conn: sqlite3.Connection) -> None:
    # The hooks of 0.1 kept the first prompt and the last reply cut at 300 characters with no
    # mark (m002 redacted them whole): a token astride the cut left a piece too short for its
    # rule. Read as cut, the piece is masked too.
    redaction.redact_table(conn, "hook_sessions", ("opening", "last_message"),
                           cut_columns=("opening", "last_message"))  # fmt: skip


MIGRATIONS.add("m005_redact_cut", _m005_redact_cut)
