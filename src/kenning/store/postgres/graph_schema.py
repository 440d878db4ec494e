"""Schema of the knowledge graph on PostgreSQL: entities, temporal facts and how far extraction
and escalation got in each captured session (SQLite's graph tables, workspace first in every
primary key).

Times stay ISO text, as the protocol hands them over and SQLite keeps them: a window's bounds
are compared and sorted as text, and text the "C" collation orders byte by byte, as SQLite's
BINARY does, so ``as_of`` and every ORDER BY give the same answer on both engines.
"""

from __future__ import annotations

from kenning.store.postgres import rls
from kenning.store.postgres.db import MigrationSet

MIGRATIONS = MigrationSet("graph")

MIGRATIONS.add(
    "g001_graph",
    """
    CREATE TABLE graph_entities (
        workspace TEXT COLLATE "C" NOT NULL,
        id TEXT COLLATE "C" NOT NULL,         -- normalised name: lower case, spaces folded, symbols kept
        name TEXT COLLATE "C" NOT NULL,       -- as first written
        type TEXT COLLATE "C" NOT NULL DEFAULT 'unknown',
        created_at TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (workspace, id)
    );

    -- A fact holds over the half-open window [valid_from, valid_to); valid_to NULL = current.
    -- id: the order facts were written in (ties break on it, as SQLite's on its rowid).
    CREATE TABLE graph_facts (
        workspace TEXT COLLATE "C" NOT NULL,
        id BIGINT GENERATED ALWAYS AS IDENTITY,
        project TEXT COLLATE "C" NOT NULL DEFAULT '',
        subject TEXT COLLATE "C" NOT NULL,
        predicate TEXT COLLATE "C" NOT NULL,
        object TEXT COLLATE "C" NOT NULL,     -- entity id, or the text itself when object_kind = 'text'
        object_kind TEXT COLLATE "C" NOT NULL DEFAULT 'entity',
        area TEXT COLLATE "C" NOT NULL DEFAULT '',
        valid_from TEXT COLLATE "C" NOT NULL,
        valid_to TEXT COLLATE "C",
        confidence DOUBLE PRECISION NOT NULL DEFAULT 1.0,
        origin TEXT COLLATE "C" NOT NULL DEFAULT 'asserted',
        session TEXT COLLATE "C" NOT NULL DEFAULT '',
        memory_ref TEXT COLLATE "C" NOT NULL DEFAULT '',
        person TEXT NOT NULL DEFAULT '',
        evidence TEXT NOT NULL DEFAULT '',
        created_at TEXT COLLATE "C" NOT NULL,
        ended_by BIGINT,
        PRIMARY KEY (workspace, id)
    );
    -- At most one current copy of a fact. A text object can be a long sentence, longer than a
    -- B-tree entry may be: the key holds its digest.
    CREATE UNIQUE INDEX graph_facts_current ON graph_facts (workspace, subject, predicate, md5(object), area)
        WHERE valid_to IS NULL;
    CREATE INDEX graph_facts_subject ON graph_facts (workspace, subject, predicate, valid_from);
    CREATE INDEX graph_facts_object ON graph_facts (workspace, object, predicate, valid_from)
        WHERE object_kind = 'entity';
    CREATE INDEX graph_facts_project ON graph_facts (workspace, project, valid_to, valid_from);
    CREATE INDEX graph_facts_memory ON graph_facts (workspace, memory_ref) WHERE memory_ref != '';
    CREATE INDEX graph_facts_session ON graph_facts (workspace, session) WHERE session != '';

    -- How far extraction (kind 'extract') and escalation ('escalate') got in each session.
    CREATE TABLE graph_progress (
        workspace TEXT COLLATE "C" NOT NULL,
        session TEXT COLLATE "C" NOT NULL,
        kind TEXT COLLATE "C" NOT NULL,
        last_turn BIGINT NOT NULL DEFAULT 0,
        updated_at TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (workspace, session, kind)
    );
    """
    + rls.protect("graph_entities", "graph_facts", "graph_progress"),
)
