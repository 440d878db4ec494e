"""Schema of the memory store (memories, their index, events, uses, decisions, reviews, policies)."""

from __future__ import annotations

import sqlite3

from kenning.store.sqlite import memory_search, redaction
from kenning.store.sqlite.db import MigrationSet
from kenning.text import index_text

MIGRATIONS = MigrationSet("memory")

MIGRATIONS.add(
    "m001_memories",
    """
    CREATE TABLE scopes (
        workspace TEXT NOT NULL,
        key TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('project', 'group', 'personal', 'global')),
        name TEXT NOT NULL DEFAULT '',
        root TEXT NOT NULL DEFAULT '',
        parent TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL,
        removed_at TEXT,
        PRIMARY KEY (workspace, key)
    );

    -- An explicit integer key: external-content FTS is keyed by rowid, and implicit rowids
    -- are not stable across VACUUM.
    CREATE TABLE memories (
        id INTEGER PRIMARY KEY,
        ref TEXT NOT NULL UNIQUE,
        workspace TEXT NOT NULL,
        scope TEXT NOT NULL,
        text TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('decision', 'preference', 'state', 'fact', 'lesson')),
        reason TEXT NOT NULL DEFAULT '',
        rejected TEXT NOT NULL DEFAULT '',
        trigger TEXT,
        confidence REAL NOT NULL,
        status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded', 'retired')),
        status_at TEXT,
        status_note TEXT NOT NULL DEFAULT '',
        subject TEXT NOT NULL DEFAULT '',
        origin TEXT NOT NULL,
        origin_tool TEXT NOT NULL DEFAULT '',
        session TEXT NOT NULL DEFAULT '',
        branch TEXT NOT NULL DEFAULT '',
        pinned INTEGER NOT NULL DEFAULT 0,
        index_pinned INTEGER NOT NULL DEFAULT 0,
        hidden INTEGER NOT NULL DEFAULT 0,
        held INTEGER NOT NULL DEFAULT 0,
        protected INTEGER NOT NULL DEFAULT 0,
        source_ref TEXT NOT NULL DEFAULT '',
        source_hash TEXT NOT NULL DEFAULT '',
        citation TEXT NOT NULL DEFAULT 'unchecked',
        tags TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL,
        confirmed_at TEXT NOT NULL,
        last_used_at TEXT,
        uses INTEGER NOT NULL DEFAULT 0,
        confirmations INTEGER NOT NULL DEFAULT 0,
        recalled INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX memories_scope ON memories (workspace, scope, status);
    CREATE INDEX memories_subject ON memories (workspace, scope, subject) WHERE subject != '';
    CREATE INDEX memories_session ON memories (session) WHERE session != '';
    CREATE INDEX memories_trigger ON memories (workspace, scope) WHERE trigger IS NOT NULL;

    -- Stemmed terms (kenning.text.index_text) of each field: the FTS index reads these, so
    -- every backend indexes exactly the tokens Python produced.
    CREATE TABLE memory_terms (
        id INTEGER PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
        text TEXT NOT NULL,
        reason TEXT NOT NULL,
        tags TEXT NOT NULL,
        citation TEXT NOT NULL
    );
    CREATE VIRTUAL TABLE memories_fts USING fts5 (
        text, reason, tags, citation,
        content = 'memory_terms', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 0'
    );
    CREATE TRIGGER memory_terms_ai AFTER INSERT ON memory_terms BEGIN
        INSERT INTO memories_fts (rowid, text, reason, tags, citation)
        VALUES (new.id, new.text, new.reason, new.tags, new.citation);
    END;
    CREATE TRIGGER memory_terms_ad AFTER DELETE ON memory_terms BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, text, reason, tags, citation)
        VALUES ('delete', old.id, old.text, old.reason, old.tags, old.citation);
    END;
    CREATE TRIGGER memory_terms_au AFTER UPDATE ON memory_terms BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, text, reason, tags, citation)
        VALUES ('delete', old.id, old.text, old.reason, old.tags, old.citation);
        INSERT INTO memories_fts (rowid, text, reason, tags, citation)
        VALUES (new.id, new.text, new.reason, new.tags, new.citation);
    END;
    CREATE VIRTUAL TABLE memories_vocab USING fts5vocab (memories_fts, 'row');

    CREATE TABLE memory_events (
        id INTEGER PRIMARY KEY,
        ref TEXT NOT NULL REFERENCES memories (ref) ON DELETE CASCADE,
        at TEXT NOT NULL,
        event TEXT NOT NULL,
        detail TEXT NOT NULL DEFAULT '',
        other_ref TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX memory_events_ref ON memory_events (ref, at);

    CREATE TABLE memory_uses (
        id INTEGER PRIMARY KEY,
        ref TEXT NOT NULL REFERENCES memories (ref) ON DELETE CASCADE,
        session TEXT NOT NULL DEFAULT '',
        tool TEXT NOT NULL DEFAULT '',
        branch TEXT NOT NULL DEFAULT '',
        at TEXT NOT NULL
    );
    CREATE INDEX memory_uses_ref ON memory_uses (ref);
    CREATE INDEX memory_uses_session ON memory_uses (session);

    CREATE TABLE decision_docs (
        id INTEGER PRIMARY KEY,
        workspace TEXT NOT NULL,
        scope TEXT NOT NULL,
        title TEXT NOT NULL,
        decision TEXT NOT NULL,
        reason TEXT NOT NULL,
        rejected TEXT NOT NULL DEFAULT '',
        confidence REAL NOT NULL,
        source_ref TEXT NOT NULL DEFAULT '',
        outcome TEXT NOT NULL DEFAULT '[]',
        memory_ref TEXT NOT NULL DEFAULT '',
        author TEXT NOT NULL DEFAULT '',
        area TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (workspace, scope, title, author)
    );

    CREATE TABLE reviews (
        id INTEGER PRIMARY KEY,
        workspace TEXT NOT NULL,
        scope TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('contradiction', 'merge', 'retire', 'lesson')),
        payload TEXT NOT NULL,
        refs TEXT NOT NULL DEFAULT '',
        proposed_by TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL,
        resolved_at TEXT,
        resolution TEXT NOT NULL DEFAULT '',
        batch TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX reviews_open ON reviews (workspace, scope) WHERE resolved_at IS NULL;

    CREATE TABLE policies (
        workspace TEXT NOT NULL,
        scope TEXT NOT NULL,  -- '' is the workspace itself
        setting TEXT NOT NULL,
        value TEXT NOT NULL,
        set_at TEXT NOT NULL,
        PRIMARY KEY (workspace, scope, setting)
    );

    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
)


def _m002_term_stats(conn: sqlite3.Connection) -> None:
    # Document frequency, the bounds that make search's top-k pruning exact, and the totals
    # BM25 needs (memories indexed, tokens in them), kept by the store beside memory_terms.
    conn.execute(
        """CREATE TABLE memory_term_stats (
            term TEXT PRIMARY KEY,
            docs INTEGER NOT NULL,
            max_freq REAL NOT NULL,
            min_len INTEGER NOT NULL
        ) WITHOUT ROWID"""
    )
    conn.execute("CREATE TABLE memory_index_totals (name TEXT PRIMARY KEY, value INTEGER NOT NULL)")
    memory_search.backfill(conn)


MIGRATIONS.add("m002_term_stats", _m002_term_stats)


def _m003_redact(conn: sqlite3.Connection) -> None:
    # Everything a writer names freely, in every table of this set; a memory whose indexed
    # fields changed is indexed again (its old terms leave the full-text index and the stats).
    def reindex(rowid: int, old: dict[str, str], new: dict[str, str]) -> None:
        if not {"text", "reason", "tags", "source_ref"} & {c for c in new if new[c] != old[c]}:
            return
        row = conn.execute("SELECT text, reason, tags, source_ref FROM memories WHERE id = ?", (rowid,)).fetchone()
        before = conn.execute("SELECT text, reason, tags, citation FROM memory_terms WHERE id = ?", (rowid,)).fetchone()
        fields = [index_text(str(v)) for v in row]
        conn.execute("UPDATE memory_terms SET text = ?, reason = ?, tags = ?, citation = ? WHERE id = ?",
                     [*fields, rowid])  # fmt: skip
        if before is not None:
            memory_search.stats_add(conn, [str(v) for v in before], -1)
        memory_search.stats_add(conn, fields)

    touched = redaction.redact_table(
        conn, "memories",
        ("text", "reason", "rejected", "trigger", "status_note", "subject", "origin_tool", "session", "branch",
         "source_ref", "tags"),
        changed=reindex,
    )  # fmt: skip
    redaction.redact_table(conn, "memory_events", ("detail",))
    redaction.redact_table(conn, "memory_uses", ("session", "tool", "branch"))
    redaction.redact_table(
        conn, "decision_docs", ("title", "decision", "reason", "rejected", "source_ref", "author"),
        json_columns=("outcome",), on_conflict=_retitle,
    )  # fmt: skip
    redaction.redact_table(conn, "reviews", ("proposed_by",), json_columns=("payload",))
    # Small state kenning keeps (e.g. the pull request titles waiting on you) is JSON or text.
    redaction.redact_table(conn, "meta", (), json_columns=("value",))
    if touched:
        redaction.optimize_fts(conn, "memories_fts")


def _retitle(conn: sqlite3.Connection, rowid: int, values: dict[str, object]) -> None:
    """Two docs whose titles redact alike: the later one keeps its own by its id."""
    values = {**values, "title": f"{values['title']} (#{rowid})"}
    sets = ", ".join(f'"{c}" = ?' for c in values)
    conn.execute(f"UPDATE decision_docs SET {sets} WHERE rowid = ?", [*values.values(), rowid])


MIGRATIONS.add("m003_redact", _m003_redact)


def _m004_reindex(conn: sqlite3.Connection) -> None:
    # camelCase identifiers split into their parts, the slot key and trigger indexed with the
    # tags and what a decision turned down with its reason, equal column weights.
    memory_search.reindex(conn)


MIGRATIONS.add("m004_identifier_terms", _m004_reindex)


def _m007_reindex(conn: sqlite3.Connection) -> None:
    # Terms as kenning.text.memory_terms makes them since: an acronym's plural is the acronym
    # ("PRs" -> pr, no longer "rs"), a camelCase part that stems like the whole word adds
    # nothing ("APIs" no longer adds "ap"), and the redaction mask "[secret]" is no term.
    memory_search.reindex(conn)


# What `kenning forget` deleted: a memory's ref and a hash of its normalised text (never the
# text), or a captured session's id, so a later sync or import does not bring it back.
MIGRATIONS.add(
    "m005_tombstones",
    """
    CREATE TABLE tombstones (
        workspace TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('memory', 'session')),
        key TEXT NOT NULL,
        digest TEXT NOT NULL DEFAULT '',
        at TEXT NOT NULL,
        PRIMARY KEY (workspace, kind, key)
    );
    """,
)

# Where a person decided a memory goes (kenning.model.Placement). A memory that replaces
# another takes its placements over (kenning.core.placements.carry_over).
MIGRATIONS.add(
    "m006_placements",
    """
    CREATE TABLE memory_placements (
        workspace TEXT NOT NULL,
        ref TEXT NOT NULL,
        decision TEXT NOT NULL CHECK (decision IN ('always', 'not-here', 'no-agent-runs')),
        place TEXT NOT NULL DEFAULT '',   -- a project or group key; '' for no-agent-runs
        created_at TEXT NOT NULL,
        by TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (workspace, ref, decision, place)
    );
    CREATE INDEX memory_placements_place ON memory_placements (workspace, decision, place);
    """,
)


MIGRATIONS.add("m007_term_pieces", _m007_reindex)

# A counter that moves whenever a memory or a scope changes, in any process (the triggers see
# every writer: CLI, hooks, MCP, sync, a migration). Long-lived readers (the web app) key what
# they computed over every memory on it, so a repeat look is cheap and a change is seen at
# once. The 'instance' row tells two stores apart (a random number made here).
MIGRATIONS.add(
    "m008_store_revision",
    """
    CREATE TABLE store_revision (
        name TEXT PRIMARY KEY,
        n INTEGER NOT NULL
    );
    INSERT INTO store_revision (name, n) VALUES ('instance', abs(random())), ('memories', 0);
    CREATE TRIGGER memories_revision_insert AFTER INSERT ON memories BEGIN
        UPDATE store_revision SET n = n + 1 WHERE name = 'memories';
    END;
    CREATE TRIGGER memories_revision_update AFTER UPDATE ON memories BEGIN
        UPDATE store_revision SET n = n + 1 WHERE name = 'memories';
    END;
    CREATE TRIGGER memories_revision_delete AFTER DELETE ON memories BEGIN
        UPDATE store_revision SET n = n + 1 WHERE name = 'memories';
    END;
    CREATE TRIGGER scopes_revision_insert AFTER INSERT ON scopes BEGIN
        UPDATE store_revision SET n = n + 1 WHERE name = 'memories';
    END;
    CREATE TRIGGER scopes_revision_update AFTER UPDATE ON scopes BEGIN
        UPDATE store_revision SET n = n + 1 WHERE name = 'memories';
    END;
    CREATE TRIGGER scopes_revision_delete AFTER DELETE ON scopes BEGIN
        UPDATE store_revision SET n = n + 1 WHERE name = 'memories';
    END;
    """,
)


# The listing's counts (kind, status, origin, writer over a project or all of them) read from
# the index alone: a third of the time of reading every row at 10k memories. It leads with the
# columns of the index it replaces, so every query that used that one uses this one.
MIGRATIONS.add(
    "m009_listing_counts_index",
    """
    DROP INDEX memories_scope;
    CREATE INDEX memories_listing ON memories (workspace, scope, status, kind, origin, origin_tool);
    """,
)
