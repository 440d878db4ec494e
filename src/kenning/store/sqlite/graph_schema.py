"""Schema of the knowledge graph and of notes: entities, temporal facts, extraction progress,
diary entries and small per-project values."""

from __future__ import annotations

import sqlite3

from kenning.config import DEFAULT_WORKSPACE
from kenning.store.sqlite import redaction
from kenning.store.sqlite.db import MigrationSet

MIGRATIONS = MigrationSet("graph")

MIGRATIONS.add(
    "m001_graph",
    """
    CREATE TABLE graph_entities (
        workspace TEXT NOT NULL,
        id TEXT NOT NULL,                 -- normalised name: lower case, spaces folded, symbols kept (c++ != c#)
        name TEXT NOT NULL,               -- as first written
        type TEXT NOT NULL DEFAULT 'unknown',
        created_at TEXT NOT NULL,
        PRIMARY KEY (workspace, id)
    );

    -- A fact holds over the half-open window [valid_from, valid_to): at valid_to the next one
    -- holds, so an old and a new fact never overlap. valid_to NULL = still current.
    CREATE TABLE graph_facts (
        id INTEGER PRIMARY KEY,
        workspace TEXT NOT NULL,
        project TEXT NOT NULL DEFAULT '',     -- scope key of the project the fact belongs to
        subject TEXT NOT NULL,                -- entity id
        predicate TEXT NOT NULL,
        object TEXT NOT NULL,                 -- entity id, or the text itself when object_kind = 'text'
        object_kind TEXT NOT NULL DEFAULT 'entity',
        area TEXT NOT NULL DEFAULT '',        -- decisions: a later one in the same area closes this one
        valid_from TEXT NOT NULL,
        valid_to TEXT,
        confidence REAL NOT NULL DEFAULT 1.0,
        origin TEXT NOT NULL DEFAULT 'asserted',  -- asserted | recorded | extracted | escalated
        session TEXT NOT NULL DEFAULT '',
        memory_ref TEXT NOT NULL DEFAULT '',
        person TEXT NOT NULL DEFAULT '',
        evidence TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL,
        ended_by INTEGER
    );
    -- At most one current copy of a fact: re-syncing a session can never duplicate it.
    CREATE UNIQUE INDEX graph_facts_current ON graph_facts (workspace, subject, predicate, object, area)
        WHERE valid_to IS NULL;
    CREATE INDEX graph_facts_subject ON graph_facts (workspace, subject, predicate, valid_from);
    CREATE INDEX graph_facts_object ON graph_facts (workspace, object, predicate, valid_from);
    CREATE INDEX graph_facts_project ON graph_facts (workspace, project, valid_to, valid_from);

    -- How far extraction and escalation got in each captured session.
    CREATE TABLE graph_progress (
        session TEXT NOT NULL,
        kind TEXT NOT NULL,                   -- extract | escalate
        last_turn INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (session, kind)
    );

    CREATE TABLE notes_diary (
        id INTEGER PRIMARY KEY,
        workspace TEXT NOT NULL,
        project TEXT NOT NULL,
        agent TEXT NOT NULL DEFAULT '',
        at TEXT NOT NULL,
        text TEXT NOT NULL
    );
    CREATE INDEX notes_diary_project ON notes_diary (workspace, project, agent, at);

    CREATE TABLE notes_values (
        workspace TEXT NOT NULL,
        project TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (workspace, project, key)
    );
    """,
)


def _m002_redact(conn: sqlite3.Connection) -> None:
    # Entity names, text objects and evidence come from transcripts and from agents; notes and
    # values from agents. An entity id or a fact that redacts to the same as another one
    # (two secrets, one mask) is folded into it rather than breaking a unique key.
    redaction.redact_table(conn, "graph_entities", ("id", "name"), on_conflict=_drop_entity)
    redaction.redact_table(conn, "graph_facts", ("subject", "object", "evidence", "person"), on_conflict=_end_fact)
    redaction.redact_table(conn, "notes_diary", ("agent", "text"))
    redaction.redact_table(conn, "notes_values", ("value",))


def _drop_entity(conn: sqlite3.Connection, rowid: int, values: dict[str, object]) -> None:
    conn.execute("DELETE FROM graph_entities WHERE rowid = ?", (rowid,))


def _end_fact(conn: sqlite3.Connection, rowid: int, values: dict[str, object]) -> None:
    # The same current fact exists already: this copy holds no longer (it ends where it began).
    conn.execute("UPDATE graph_facts SET valid_to = valid_from WHERE rowid = ?", (rowid,))
    sets = ", ".join(f'"{c}" = ?' for c in values)
    conn.execute(f"UPDATE graph_facts SET {sets} WHERE rowid = ?", [*values.values(), rowid])


MIGRATIONS.add("m002_redact", _m002_redact)


# Progress was keyed by session alone, so ``progress_of`` answered for the whole file rather than
# one workspace (PostgreSQL's table has had the workspace from its start). Each row goes to the
# workspace its session was captured in, else to that of a fact the session gave, else to the
# default one: such a session is captured nowhere here, so nothing reads its progress, but no
# row is dropped.
MIGRATIONS.add(
    "m003_progress_workspace",
    f"""
    CREATE TABLE graph_progress_new (
        workspace TEXT NOT NULL,
        session TEXT NOT NULL,
        kind TEXT NOT NULL,                   -- extract | escalate
        last_turn INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (workspace, session, kind)
    );
    INSERT INTO graph_progress_new (workspace, session, kind, last_turn, updated_at)
        SELECT coalesce(
                   (SELECT s.workspace FROM capture_sessions s WHERE s.id = p.session),
                   (SELECT min(f.workspace) FROM graph_facts f WHERE f.session = p.session),
                   '{DEFAULT_WORKSPACE}'),
               p.session, p.kind, p.last_turn, p.updated_at
        FROM graph_progress p;
    DROP TABLE graph_progress;
    ALTER TABLE graph_progress_new RENAME TO graph_progress;
    """,
)
