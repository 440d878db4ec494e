"""Schema of captured transcripts: sessions, turns, chunks (+ FTS5), and the per-file ledger."""

from __future__ import annotations

import sqlite3

from kenning.store.sqlite import redaction
from kenning.store.sqlite.db import MigrationSet

MIGRATIONS = MigrationSet("capture")

MIGRATIONS.add(
    "m001_capture",
    """
    CREATE TABLE capture_sessions (
        id TEXT PRIMARY KEY,             -- tool-qualified: claude:<uuid>, codex:<uuid>, ...
        workspace TEXT NOT NULL,
        tool TEXT NOT NULL,
        project TEXT NOT NULL DEFAULT '',      -- scope key from gitinfo.project_for
        project_name TEXT NOT NULL DEFAULT '',
        cwd TEXT NOT NULL DEFAULT '',
        branch TEXT NOT NULL DEFAULT '',
        title TEXT NOT NULL DEFAULT '',
        first_at TEXT NOT NULL DEFAULT '',
        last_at TEXT NOT NULL DEFAULT '',
        turns INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX capture_sessions_project ON capture_sessions (workspace, project, last_at);

    CREATE TABLE capture_turns (
        id INTEGER PRIMARY KEY,
        session TEXT NOT NULL REFERENCES capture_sessions (id) ON DELETE CASCADE,
        uid TEXT NOT NULL,
        source TEXT NOT NULL,            -- ledger key of the file it came from
        role TEXT NOT NULL,
        text TEXT NOT NULL,              -- redacted before it is written
        at TEXT NOT NULL DEFAULT '',
        tool_calls TEXT NOT NULL DEFAULT '[]',
        files TEXT NOT NULL DEFAULT '[]',
        subagent TEXT NOT NULL DEFAULT '',
        UNIQUE (session, uid)
    );
    CREATE INDEX capture_turns_source ON capture_turns (source);
    CREATE INDEX capture_turns_session ON capture_turns (session, at, id);

    CREATE TABLE capture_chunks (
        id INTEGER PRIMARY KEY,
        session TEXT NOT NULL,
        turn INTEGER NOT NULL REFERENCES capture_turns (id) ON DELETE CASCADE,
        part INTEGER NOT NULL DEFAULT 0,      -- window number inside a long turn
        role TEXT NOT NULL,
        body TEXT NOT NULL,
        context TEXT NOT NULL DEFAULT '',     -- the turn before, so a reply matches its question
        at TEXT NOT NULL DEFAULT '',
        project TEXT NOT NULL DEFAULT '',
        tool TEXT NOT NULL DEFAULT '',
        type TEXT NOT NULL DEFAULT 'general',
        importance INTEGER NOT NULL DEFAULT 0,
        confidence REAL NOT NULL DEFAULT 0,
        rules_version INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX capture_chunks_session ON capture_chunks (session, id);
    CREATE INDEX capture_chunks_turn ON capture_chunks (turn);
    CREATE INDEX capture_chunks_rules ON capture_chunks (rules_version, id);
    CREATE INDEX capture_chunks_type ON capture_chunks (type, importance);

    -- Stemmed by FTS5's porter tokenizer: measured ~4x faster than stemming in Python, which
    -- keeps capture above 20 MB/s (bench/capture_throughput.py).
    CREATE VIRTUAL TABLE capture_fts USING fts5 (
        body, context, content='capture_chunks', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER capture_chunks_ai AFTER INSERT ON capture_chunks BEGIN
        INSERT INTO capture_fts (rowid, body, context) VALUES (new.id, new.body, new.context);
    END;
    CREATE TRIGGER capture_chunks_ad AFTER DELETE ON capture_chunks BEGIN
        INSERT INTO capture_fts (capture_fts, rowid, body, context) VALUES ('delete', old.id, old.body, old.context);
    END;

    CREATE TABLE capture_ledger (
        key TEXT PRIMARY KEY,            -- file path (or path#session for a database source)
        tool TEXT NOT NULL,
        offset INTEGER NOT NULL DEFAULT 0,
        size INTEGER NOT NULL DEFAULT 0,
        mtime_ns INTEGER NOT NULL DEFAULT 0,
        head_hash TEXT NOT NULL DEFAULT '',  -- hash of the first bytes, to notice a rewritten file
        fingerprint TEXT NOT NULL DEFAULT '',
        context TEXT NOT NULL DEFAULT '{}',
        turns INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT NOT NULL
    );

    CREATE TABLE capture_memory_files (
        path TEXT PRIMARY KEY,
        workspace TEXT NOT NULL,
        ref TEXT NOT NULL,
        hash TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );

    CREATE TABLE capture_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
)

# Chunks reach the index through commit_file's own executemany, not a per-row trigger: inside a
# trigger every row's FTS5 insert ends a statement savepoint, which flushes FTS5's pending-term
# buffer into a new segment per row (then merged again). Measured ~3x slower for the whole
# insert, ~a quarter of capture time. The delete trigger stays (deletes are rare).
MIGRATIONS.add("m002_fts_insert_without_trigger", "DROP TRIGGER IF EXISTS capture_chunks_ai;")


def _m003_redact(conn: sqlite3.Connection) -> None:
    # Capture always redacted a turn, but cut tool output and call inputs first, and an older
    # rule set missed formats the current one catches. A chunk that changes leaves the
    # full-text index under its old words and joins it under its new ones.
    def reindex(rowid: int, old: dict[str, str], new: dict[str, str]) -> None:
        conn.execute("INSERT INTO capture_fts (capture_fts, rowid, body, context) VALUES ('delete', ?, ?, ?)",
                     (rowid, old["body"], old["context"]))  # fmt: skip
        conn.execute("INSERT INTO capture_fts (rowid, body, context) VALUES (?, ?, ?)",
                     (rowid, new["body"], new["context"]))  # fmt: skip

    redaction.redact_table(conn, "capture_turns", ("text",), json_columns=("tool_calls",))
    touched = redaction.redact_table(conn, "capture_chunks", ("body", "context"), changed=reindex)
    redaction.redact_table(conn, "capture_sessions", ("title",))
    if touched:
        redaction.optimize_fts(conn, "capture_fts")


MIGRATIONS.add("m003_redact", _m003_redact)


# Sync wrote the newest turn's time into both first_at and last_at (0.1): give every session
# the time of its first turn back.
MIGRATIONS.add(
    "m004_session_first_at",
    """
    UPDATE capture_sessions SET first_at = (
        SELECT min(t.at) FROM capture_turns t WHERE t.session = capture_sessions.id AND t.at != ''
    ) WHERE EXISTS (SELECT 1 FROM capture_turns t WHERE t.session = capture_sessions.id AND t.at != '');
    """,
)
