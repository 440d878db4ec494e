"""Schema of the memory store on PostgreSQL: the tables of the SQLite set, with the workspace
first in every primary key, and postings in place of FTS5.

The full-text index is ours: ``memory_postings`` holds one row per (workspace, term, memory)
with the term's weighted frequency and the memory's length, ``memory_term_stats`` how many
memories of a workspace hold each term, ``memory_index_totals`` their count and total length.
Terms are produced in Python (kenning.store.indexing), so both engines index the same tokens
and rank with the same arithmetic. Text that is ordered or range-scanned (terms, keys) uses
the "C" collation: byte order, as SQLite's BINARY.
"""

from __future__ import annotations

from kenning.store.postgres import rls
from kenning.store.postgres.db import MigrationSet

MIGRATIONS = MigrationSet("memory")

_TABLES = ("scopes", "memories", "memory_terms", "memory_postings", "memory_term_stats", "memory_index_totals",
           "memory_events", "memory_uses", "decision_docs", "reviews", "policies", "meta", "tombstones")  # fmt: skip

MIGRATIONS.add(
    "m001_memories",
    """
    CREATE TABLE scopes (
        workspace TEXT COLLATE "C" NOT NULL,
        key TEXT COLLATE "C" NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('project', 'group', 'personal', 'global')),
        name TEXT NOT NULL DEFAULT '',
        root TEXT NOT NULL DEFAULT '',
        parent TEXT NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL,
        removed_at TIMESTAMPTZ,
        PRIMARY KEY (workspace, key)
    );

    -- id: the order memories were written in (search breaks ties by it, as SQLite by rowid).
    CREATE TABLE memories (
        workspace TEXT COLLATE "C" NOT NULL,
        id BIGINT GENERATED ALWAYS AS IDENTITY,
        ref TEXT COLLATE "C" NOT NULL,
        scope TEXT COLLATE "C" NOT NULL,
        text TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('decision', 'preference', 'state', 'fact', 'lesson')),
        reason TEXT NOT NULL DEFAULT '',
        rejected TEXT NOT NULL DEFAULT '',
        trigger TEXT,
        confidence DOUBLE PRECISION NOT NULL,
        status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded', 'retired')),
        status_at TIMESTAMPTZ,
        status_note TEXT NOT NULL DEFAULT '',
        subject TEXT COLLATE "C" NOT NULL DEFAULT '',
        origin TEXT COLLATE "C" NOT NULL,
        origin_tool TEXT COLLATE "C" NOT NULL DEFAULT '',
        session TEXT COLLATE "C" NOT NULL DEFAULT '',
        branch TEXT NOT NULL DEFAULT '',
        pinned BOOLEAN NOT NULL DEFAULT false,
        index_pinned BOOLEAN NOT NULL DEFAULT false,
        hidden BOOLEAN NOT NULL DEFAULT false,
        held BOOLEAN NOT NULL DEFAULT false,
        protected BOOLEAN NOT NULL DEFAULT false,
        source_ref TEXT NOT NULL DEFAULT '',
        source_hash TEXT NOT NULL DEFAULT '',
        citation TEXT NOT NULL DEFAULT 'unchecked',
        tags TEXT[] NOT NULL DEFAULT '{}',
        created_at TIMESTAMPTZ NOT NULL,
        confirmed_at TIMESTAMPTZ NOT NULL,
        last_used_at TIMESTAMPTZ,
        uses BIGINT NOT NULL DEFAULT 0,
        confirmations BIGINT NOT NULL DEFAULT 0,
        recalled BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (workspace, id),
        UNIQUE (workspace, ref)
    );
    CREATE INDEX memories_scope ON memories (workspace, scope, status, created_at);
    CREATE INDEX memories_subject ON memories (workspace, scope, subject) WHERE subject != '';
    CREATE INDEX memories_session ON memories (workspace, session) WHERE session != '';
    CREATE INDEX memories_trigger ON memories (workspace, scope) WHERE trigger IS NOT NULL;
    -- Calls that name a memory by its ref alone (the owner's view across workspaces).
    CREATE INDEX memories_ref ON memories (ref);

    -- The four stemmed fields (kenning.store.indexing.index_fields), as SQLite keeps them.
    CREATE TABLE memory_terms (
        workspace TEXT COLLATE "C" NOT NULL,
        memory BIGINT NOT NULL,
        text TEXT NOT NULL,
        reason TEXT NOT NULL,
        tags TEXT NOT NULL,
        citation TEXT NOT NULL,
        PRIMARY KEY (workspace, memory),
        FOREIGN KEY (workspace, memory) REFERENCES memories (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE
    );

    CREATE TABLE memory_postings (
        workspace TEXT COLLATE "C" NOT NULL,
        term TEXT COLLATE "C" NOT NULL,
        memory BIGINT NOT NULL,
        freq DOUBLE PRECISION NOT NULL,
        length INTEGER NOT NULL,
        PRIMARY KEY (workspace, term, memory) INCLUDE (freq, length),
        FOREIGN KEY (workspace, memory) REFERENCES memory_terms (workspace, memory) ON DELETE CASCADE ON UPDATE CASCADE
    );
    CREATE INDEX memory_postings_memory ON memory_postings (workspace, memory);

    CREATE TABLE memory_term_stats (
        workspace TEXT COLLATE "C" NOT NULL,
        term TEXT COLLATE "C" NOT NULL,
        docs INTEGER NOT NULL,
        PRIMARY KEY (workspace, term)
    );
    -- The owner's view across workspaces sums per term.
    CREATE INDEX memory_term_stats_term ON memory_term_stats (term);

    CREATE TABLE memory_index_totals (
        workspace TEXT COLLATE "C" NOT NULL PRIMARY KEY,
        docs BIGINT NOT NULL,
        tokens BIGINT NOT NULL
    );

    CREATE TABLE memory_events (
        workspace TEXT COLLATE "C" NOT NULL,
        id BIGINT GENERATED ALWAYS AS IDENTITY,
        ref TEXT COLLATE "C" NOT NULL,
        at TIMESTAMPTZ NOT NULL,
        event TEXT NOT NULL,
        detail TEXT NOT NULL DEFAULT '',
        other_ref TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (workspace, id),
        FOREIGN KEY (workspace, ref) REFERENCES memories (workspace, ref) ON DELETE CASCADE ON UPDATE CASCADE
    );
    CREATE INDEX memory_events_ref ON memory_events (workspace, ref, at);

    CREATE TABLE memory_uses (
        workspace TEXT COLLATE "C" NOT NULL,
        id BIGINT GENERATED ALWAYS AS IDENTITY,
        ref TEXT COLLATE "C" NOT NULL,
        session TEXT COLLATE "C" NOT NULL DEFAULT '',
        tool TEXT NOT NULL DEFAULT '',
        branch TEXT NOT NULL DEFAULT '',
        at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (workspace, id),
        FOREIGN KEY (workspace, ref) REFERENCES memories (workspace, ref) ON DELETE CASCADE ON UPDATE CASCADE
    );
    CREATE INDEX memory_uses_ref ON memory_uses (workspace, ref);
    CREATE INDEX memory_uses_session ON memory_uses (workspace, session);

    CREATE TABLE decision_docs (
        workspace TEXT COLLATE "C" NOT NULL,
        id BIGINT GENERATED ALWAYS AS IDENTITY,
        scope TEXT COLLATE "C" NOT NULL,
        title TEXT COLLATE "C" NOT NULL,
        decision TEXT NOT NULL,
        reason TEXT NOT NULL,
        rejected TEXT NOT NULL DEFAULT '',
        confidence DOUBLE PRECISION NOT NULL,
        source_ref TEXT NOT NULL DEFAULT '',
        outcome TEXT NOT NULL DEFAULT '[]',  -- JSON as written (key order kept)
        memory_ref TEXT COLLATE "C" NOT NULL DEFAULT '',
        author TEXT COLLATE "C" NOT NULL DEFAULT '',
        area TEXT NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (workspace, id),
        UNIQUE (workspace, scope, title, author)
    );
    CREATE INDEX decision_docs_memory ON decision_docs (workspace, memory_ref) WHERE memory_ref != '';
    CREATE INDEX decision_docs_id ON decision_docs (id);

    CREATE TABLE reviews (
        workspace TEXT COLLATE "C" NOT NULL,
        id BIGINT GENERATED ALWAYS AS IDENTITY,
        scope TEXT COLLATE "C" NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('contradiction', 'merge', 'retire', 'lesson')),
        payload TEXT NOT NULL,
        refs TEXT[] NOT NULL DEFAULT '{}',
        proposed_by TEXT NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL,
        resolved_at TIMESTAMPTZ,
        resolution TEXT NOT NULL DEFAULT '',
        batch TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (workspace, id)
    );
    CREATE INDEX reviews_open ON reviews (workspace, scope) WHERE resolved_at IS NULL;
    CREATE INDEX reviews_id ON reviews (id);

    CREATE TABLE policies (
        workspace TEXT COLLATE "C" NOT NULL,
        scope TEXT COLLATE "C" NOT NULL,  -- '' is the workspace itself
        setting TEXT COLLATE "C" NOT NULL,
        value TEXT NOT NULL,
        set_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (workspace, scope, setting)
    );

    CREATE TABLE meta (
        workspace TEXT COLLATE "C" NOT NULL,
        key TEXT COLLATE "C" NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (workspace, key)
    );

    -- What `kenning forget` deleted: a memory's ref and a hash of its normalised text (never
    -- the text), or a captured session's id, so a later sync or import does not bring it back.
    CREATE TABLE tombstones (
        workspace TEXT COLLATE "C" NOT NULL,
        kind TEXT COLLATE "C" NOT NULL CHECK (kind IN ('memory', 'session')),
        key TEXT COLLATE "C" NOT NULL,
        digest TEXT NOT NULL DEFAULT '',
        at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (workspace, kind, key)
    );
    """
    + rls.protect(*_TABLES),
)

# Where a person decided a memory goes (kenning.model.Placement); as SQLite's m006.
MIGRATIONS.add(
    "m002_placements",
    """
    CREATE TABLE memory_placements (
        workspace TEXT COLLATE "C" NOT NULL,
        ref TEXT COLLATE "C" NOT NULL,
        decision TEXT COLLATE "C" NOT NULL CHECK (decision IN ('always', 'not-here', 'no-agent-runs')),
        place TEXT COLLATE "C" NOT NULL DEFAULT '',  -- a project or group key; '' for no-agent-runs
        created_at TIMESTAMPTZ NOT NULL,
        by TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (workspace, ref, decision, place)
    );
    CREATE INDEX memory_placements_place ON memory_placements (workspace, decision, place);
    """
    + rls.protect("memory_placements"),
)

# A counter per workspace that moves whenever one of its memories or scopes changes, by any
# writer; long-lived readers (the web app's Health page) key what they computed over every
# memory on it (as SQLite's m008_store_revision).
MIGRATIONS.add(
    "m003_store_revision",
    """
    CREATE TABLE store_revision (
        workspace TEXT COLLATE "C" NOT NULL,
        n BIGINT NOT NULL,
        PRIMARY KEY (workspace)
    );
    CREATE FUNCTION kenning_store_revision() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
        INSERT INTO store_revision (workspace, n)
        VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.workspace ELSE NEW.workspace END, 1)
        ON CONFLICT (workspace) DO UPDATE SET n = store_revision.n + 1;
        RETURN NULL;
    END
    $fn$;
    CREATE TRIGGER memories_revision AFTER INSERT OR UPDATE OR DELETE ON memories
        FOR EACH ROW EXECUTE FUNCTION kenning_store_revision();
    CREATE TRIGGER scopes_revision AFTER INSERT OR UPDATE OR DELETE ON scopes
        FOR EACH ROW EXECUTE FUNCTION kenning_store_revision();
    """
    + rls.protect("store_revision"),
)
