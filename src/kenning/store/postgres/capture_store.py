"""PostgreSQL implementation of :class:`kenning.store.protocol.CaptureStore`.

Every statement names its workspace, and row-level security holds each transaction to the one
it acts in. A file's new turns, their chunks and the chunks' postings go in as one statement
per table (``INSERT ... SELECT FROM unnest(arrays)``: COPY is refused on tables under
row-level security); the search statistics change once per commit, in term order, so
concurrent writers lock them alike. Ranking: kenning.store.postgres.capture_search.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from kenning.redacted import Redacted, ensure, stored
from kenning.store.capture_rows import chunk_of, dumps, guard_calls, session_of, turn_of
from kenning.store.postgres import capture_search
from kenning.store.postgres.chunk_terms import postings
from kenning.store.postgres.db import Database
from kenning.store.protocol.capture import (
    CaptureCounts,
    CapturedSession,
    ChunkFilter,
    ChunkHit,
    LedgerEntry,
    SessionHead,
    StoredChunk,
    StoredSession,
    StoredTurn,
    TurnRow,
)

Cursor = capture_search.Cursor
Row = dict[str, Any]
BATCH = 5000  # rows per INSERT ... unnest statement

_UPSERT_SESSION = (
    "INSERT INTO capture_sessions (workspace, id, tool, project, project_name, cwd, branch, first_at, last_at)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (workspace, id) DO UPDATE SET"
    " project = CASE WHEN capture_sessions.project = '' THEN excluded.project ELSE capture_sessions.project END,"
    " project_name = CASE WHEN capture_sessions.project_name = '' THEN excluded.project_name"
    " ELSE capture_sessions.project_name END,"
    " cwd = CASE WHEN capture_sessions.cwd = '' THEN excluded.cwd ELSE capture_sessions.cwd END,"
    " branch = CASE WHEN excluded.branch != '' THEN excluded.branch ELSE capture_sessions.branch END,"
    " first_at = CASE WHEN capture_sessions.first_at = '' OR (excluded.first_at != ''"
    " AND excluded.first_at < capture_sessions.first_at) THEN excluded.first_at ELSE capture_sessions.first_at END,"
    " last_at = greatest(capture_sessions.last_at, excluded.last_at)"
)
_TURN_COLUMNS = "workspace, id, session, uid, source, role, text, at, tool_calls, files, subagent"
_TURN_TYPES = "text[], bigint[], text[], text[], text[], text[], text[], text[], text[], text[], text[]"
_CHUNK_COLUMNS = ("workspace, id, session, turn, part, role, body, context, at, project, tool, type, importance,"
                  " confidence, rules_version, tokens")  # fmt: skip
_CHUNK_TYPES = ("text[], bigint[], text[], bigint[], int[], text[], text[], text[], text[], text[], text[], text[],"
                " int[], float8[], int[], int[]")  # fmt: skip


_INSERT_POSTINGS = (
    b"WITH added AS (INSERT INTO capture_postings (workspace, term, chunk, body_n, context_n, length)"
    b" SELECT %(ws)s, * FROM unnest(string_to_array(%(terms)s, chr(31)), string_to_array(%(chunks)s, ',')::bigint[],"
    b" string_to_array(%(n0)s, ',')::int[], string_to_array(%(n1)s, ',')::int[], string_to_array(%(len)s, ',')::int[])"
    b" RETURNING term)"
    b" INSERT INTO capture_term_stats (workspace, term, docs) SELECT %(ws)s, term, count(*) FROM added"
    b" GROUP BY term ORDER BY term ON CONFLICT (workspace, term) DO UPDATE SET docs = capture_term_stats.docs + excluded.docs"
)


def _text(value: str) -> str:
    """Text as PostgreSQL can hold it: a NUL character (which a transcript may carry, and SQLite
    keeps) becomes U+FFFD. Both are separators to FTS5's tokenizer, so the chunk's tokens, and
    its rank, are the same."""
    return str(value).replace("\x00", "\ufffd")


def _insert(cur: Cursor, table: str, columns: str, types: str, rows: list[tuple[Any, ...]]) -> None:
    """Many rows in few statements: each column one array, unnested (sent in binary: no
    quoting and escaping of every element in Python)."""
    placeholders = ", ".join(f"%b::{t}" for t in types.split(", "))
    sql = f"INSERT INTO {table} ({columns}) SELECT * FROM unnest({placeholders})".encode()
    for i in range(0, len(rows), BATCH):
        part = rows[i:i + BATCH]
        cur.execute(sql, [list(col) for col in zip(*part, strict=True)])


def _reserve(cur: Cursor, sequence: str, n: int) -> list[int]:
    """``n`` ids drawn ahead, ascending (so ids follow the order rows are written in)."""
    if n <= 0:
        return []
    rows = cur.execute(b"SELECT nextval(%s::regclass) AS id FROM generate_series(1, %s)", (sequence, n)).fetchall()
    return sorted(int(r["id"]) for r in rows)


def _count_in(cur: Cursor, workspace: str, terms: dict[str, int], docs: int, tokens: int) -> None:
    """Add to the workspace's search statistics (negative to take out), terms in order."""
    changed = sorted((t, d) for t, d in terms.items() if d)
    if changed:
        cur.execute(
            b"INSERT INTO capture_term_stats (workspace, term, docs) SELECT %s, * FROM unnest(%s::text[], %s::int[])"
            b" ON CONFLICT (workspace, term) DO UPDATE SET docs = capture_term_stats.docs + excluded.docs",
            (workspace, [t for t, _ in changed], [d for _, d in changed]),
        )
        fewer = [t for t, d in changed if d < 0]
        if fewer:
            cur.execute(b"DELETE FROM capture_term_stats WHERE workspace = %s AND term = ANY(%s) AND docs <= 0",
                        (workspace, fewer))  # fmt: skip
    if docs or tokens:
        cur.execute(
            b"INSERT INTO capture_index_totals (workspace, docs, tokens) VALUES (%s, %s, %s)"
            b" ON CONFLICT (workspace) DO UPDATE SET docs = capture_index_totals.docs + excluded.docs,"
            b" tokens = capture_index_totals.tokens + excluded.tokens",
            (workspace, docs, tokens),
        )


def _drop_chunks(cur: Cursor, workspace: str, cond: str, params: dict[str, object]) -> None:
    """Delete the chunks of ``workspace`` matching ``cond`` (SQL over alias ``c``), their
    postings, and their part of the statistics."""
    gone = cur.execute(f"SELECT c.id, c.tokens FROM capture_chunks c WHERE c.workspace = %(ws)s AND {cond}".encode(),
                       {**params, "ws": workspace}).fetchall()  # fmt: skip
    if not gone:
        return
    ids = [int(r["id"]) for r in gone]
    terms = cur.execute(b"SELECT term, count(*) AS n FROM capture_postings WHERE workspace = %s AND chunk = ANY(%s)"
                        b" GROUP BY term", (workspace, ids)).fetchall()  # fmt: skip
    _count_in(cur, workspace, {r["term"]: -int(r["n"]) for r in terms}, -len(ids), -sum(int(r["tokens"]) for r in gone))
    cur.execute(b"DELETE FROM capture_postings WHERE workspace = %s AND chunk = ANY(%s)", (workspace, ids))
    cur.execute(b"DELETE FROM capture_chunks WHERE workspace = %s AND id = ANY(%s)", (workspace, ids))


class PostgresCaptureStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- ledger -------------------------------------------------------------------------
    def ledger(self, workspace: str, key: str) -> LedgerEntry | None:
        row = self.db.one("SELECT * FROM capture_ledger WHERE workspace = %s AND key = %s", (workspace, key),
                          workspace=workspace)  # fmt: skip
        if row is None:
            return None
        return LedgerEntry(row["key"], row["tool"], int(row["offset"]), int(row["size"]), int(row["mtime_ns"]),
                           row["head_hash"], row["fingerprint"], json.loads(row["context"] or "{}"), int(row["turns"]))

    def commit_file(self, workspace: str, entry: LedgerEntry, sessions: Sequence[CapturedSession],
                    turns: Sequence[TurnRow], *, replace: bool, now: str) -> int:  # fmt: skip
        with self.db.transaction(workspace) as cur:
            if replace:
                _drop_chunks(cur, workspace, "c.turn IN (SELECT t.id FROM capture_turns t WHERE t.workspace = %(ws)s"
                             " AND t.source = %(source)s)", {"source": entry.key})  # fmt: skip
                cur.execute(b"DELETE FROM capture_turns WHERE workspace = %s AND source = %s", (workspace, entry.key))
            if sessions:
                cur.executemany(_UPSERT_SESSION.encode(), [
                    (workspace, s.id, s.tool, s.project, s.project_name, s.cwd, s.branch, s.first_at, s.last_at)
                    for s in sessions])  # fmt: skip
            seen: set[tuple[str, str]] = set()
            if turns:
                rows = cur.execute(
                    b"SELECT session, uid FROM capture_turns WHERE workspace = %s AND (session, uid) IN"
                    b" (SELECT * FROM unnest(%s::text[], %s::text[]))",
                    (workspace, [t.session for t in turns], [t.uid for t in turns])).fetchall()  # fmt: skip
                seen = {(r["session"], r["uid"]) for r in rows}
            new: list[TurnRow] = []
            for t in turns:
                if (t.session, t.uid) not in seen:
                    seen.add((t.session, t.uid))
                    new.append(t)
            turn_ids = _reserve(cur, "capture_turns_id_seq", len(new))
            chunk_ids = iter(_reserve(cur, "capture_chunks_id_seq", sum(len(t.chunks) for t in new)))
            turn_rows: list[tuple[Any, ...]] = []
            chunk_rows: list[tuple[Any, ...]] = []
            for t, turn_id in zip(new, turn_ids, strict=True):
                turn_rows.append((workspace, turn_id, t.session, t.uid, entry.key, t.role, _text(ensure(t.text)), t.at,
                                  dumps(guard_calls(t.tool_calls)), dumps(t.files), t.subagent))
                chunk_rows.extend((workspace, next(chunk_ids), t.session, turn_id, c.part, c.role,
                                   _text(ensure(c.body)), _text(ensure(c.context)), t.at, t.project, t.tool, c.type,
                                   c.importance, c.confidence, c.rules_version) for c in t.chunks)
            found = postings([(r[1], r[6], r[7]) for r in chunk_rows])
            _insert(cur, "capture_turns", _TURN_COLUMNS, _TURN_TYPES, turn_rows)
            _insert(cur, "capture_chunks", _CHUNK_COLUMNS, _CHUNK_TYPES,
                    [(*r, found.lengths.get(r[1], 0)) for r in chunk_rows])  # fmt: skip
            if found.count:
                # The postings, and the count of chunks holding each term, in one statement
                # (terms in order, so concurrent writers lock the statistics rows alike).
                cur.execute(_INSERT_POSTINGS, {"ws": workspace, "terms": found.terms, "chunks": found.chunks,
                                               "n0": found.body_counts, "n1": found.context_counts,
                                               "len": found.chunk_lengths})  # fmt: skip
            _count_in(cur, workspace, {}, len(chunk_rows), sum(found.lengths.values()))
            touched = sorted({t.session for t in turns} | {s.id for s in sessions})
            if touched:
                cur.execute(
                    b"UPDATE capture_sessions s SET turns = (SELECT count(*) FROM capture_turns t"
                    b" WHERE t.workspace = s.workspace AND t.session = s.id),"
                    b" title = CASE WHEN s.title = '' THEN coalesce((SELECT substr(t.text, 1, 120) FROM capture_turns t"
                    b" WHERE t.workspace = s.workspace AND t.session = s.id AND t.role = 'user' ORDER BY t.at, t.id"
                    b" LIMIT 1), '') ELSE s.title END WHERE s.workspace = %s AND s.id = ANY(%s)",
                    (workspace, touched),
                )
            cur.execute(
                b'INSERT INTO capture_ledger (workspace, key, tool, "offset", size, mtime_ns, head_hash, fingerprint,'
                b" context, turns, updated_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                b' ON CONFLICT (workspace, key) DO UPDATE SET "offset" = excluded."offset", size = excluded.size,'
                b" mtime_ns = excluded.mtime_ns, head_hash = excluded.head_hash, fingerprint = excluded.fingerprint,"
                b" context = excluded.context,"
                b" turns = CASE WHEN %s THEN excluded.turns ELSE capture_ledger.turns + excluded.turns END,"
                b" updated_at = excluded.updated_at",
                (workspace, entry.key, entry.tool, entry.offset, entry.size, entry.mtime_ns, entry.head_hash,
                 entry.fingerprint, json.dumps(entry.context), len(turn_rows), now, replace),
            )
        return len(turn_rows)

    # -- classification sweep ---------------------------------------------------------------
    def chunks_to_reclassify(self, workspace: str, version: int, after: int, limit: int) -> list[tuple[int, Redacted]]:
        rows = self.db.query(
            "SELECT id, body FROM capture_chunks WHERE workspace = %s AND rules_version != %s AND id > %s"
            " AND role != 'tool' ORDER BY id LIMIT %s", (workspace, version, after, limit), workspace=workspace)  # fmt: skip
        return [(int(r["id"]), stored(r["body"])) for r in rows]

    def set_classes(self, workspace: str, rows: Iterable[tuple[int, str, int, float, int]]) -> None:
        rows = list(rows)
        if not rows:
            return
        with self.db.transaction(workspace) as cur:
            cur.execute(
                b"UPDATE capture_chunks c SET type = u.type, importance = u.importance, confidence = u.confidence,"
                b" rules_version = u.version FROM unnest(%s::bigint[], %s::text[], %s::int[], %s::float8[], %s::int[])"
                b" AS u(id, type, importance, confidence, version) WHERE c.workspace = %s AND c.id = u.id",
                ([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows],
                 [r[4] for r in rows], workspace),
            )  # fmt: skip

    # -- reading ----------------------------------------------------------------------------
    def search(self, workspace: str, terms: Sequence[str], flt: ChunkFilter, limit: int,
               weights: tuple[float, float]) -> list[ChunkHit]:  # fmt: skip
        if not terms:
            return []
        with self.db.transaction(workspace) as cur:
            found = capture_search.rank(cur, workspace, terms, flt, limit, weights)
        return [ChunkHit(chunk_of(s.row), s.score, s.row["project_name"], stored(s.row["title"] or "")) for s in found]

    def session(self, workspace: str, session_id: str) -> StoredSession | None:
        row = self.db.one("SELECT * FROM capture_sessions WHERE workspace = %s AND id = %s", (workspace, session_id),
                          workspace=workspace)  # fmt: skip
        return session_of(row) if row else None

    def find_sessions(self, workspace: str, prefix: str, limit: int = 5) -> list[StoredSession]:
        # ILIKE: SQLite's LIKE ignores the case of ASCII letters.
        like = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = self.db.query(
            "SELECT * FROM capture_sessions WHERE workspace = %s AND (id ILIKE %s ESCAPE '\\' OR id ILIKE %s ESCAPE '\\')"
            " ORDER BY last_at DESC, id LIMIT %s", (workspace, like, "%:" + like, limit), workspace=workspace)  # fmt: skip
        return [session_of(r) for r in rows]

    def newest_session(self, workspace: str, project: str = "", branch: str = "") -> StoredSession | None:
        sql, params = "SELECT * FROM capture_sessions WHERE workspace = %s", [workspace]
        if project:
            sql += " AND project = %s"
            params.append(project)
        if branch:
            sql += " AND branch = %s"
            params.append(branch)
        row = self.db.one(sql + " ORDER BY last_at DESC, id LIMIT 1", params, workspace=workspace)
        return session_of(row) if row else None

    def sessions(self, workspace: str, project: str = "", limit: int = 50) -> list[StoredSession]:
        sql, params = "SELECT * FROM capture_sessions WHERE workspace = %s", [workspace]
        if project:
            sql += " AND project = %s"
            params.append(project)
        rows = self.db.query(sql + " ORDER BY last_at DESC, id LIMIT %s", [*params, limit], workspace=workspace)
        return [session_of(r) for r in rows]

    def all_sessions(self, workspace: str) -> list[StoredSession]:
        rows = self.db.query("SELECT * FROM capture_sessions WHERE workspace = %s ORDER BY first_at, id", (workspace,),
                             workspace=workspace)  # fmt: skip
        return [session_of(r) for r in rows]

    def session_folders(self, workspace: str) -> list[str]:
        rows = self.db.query("SELECT DISTINCT cwd FROM capture_sessions WHERE workspace = %s AND cwd != ''"
                             " ORDER BY cwd", (workspace,), workspace=workspace)  # fmt: skip
        return [str(r["cwd"]) for r in rows]

    def session_heads(self, workspace: str) -> list[SessionHead]:
        rows = self.db.query(
            "SELECT s.id, (SELECT max(t.id) FROM capture_turns t WHERE t.workspace = s.workspace AND t.session = s.id)"
            " AS newest FROM capture_sessions s WHERE s.workspace = %s AND s.project != '' ORDER BY s.last_at, s.id",
            (workspace,), workspace=workspace)  # fmt: skip
        return [SessionHead(r["id"], int(r["newest"] or 0)) for r in rows]

    def turns(self, workspace: str, session_id: str, *, talk_only: bool = False, limit: int = 10_000
              ) -> list[StoredTurn]:  # fmt: skip
        talk = " AND subagent = '' AND role IN ('user', 'assistant')" if talk_only else ""
        rows = self.db.query(
            f"SELECT * FROM capture_turns WHERE workspace = %s AND session = %s{talk} ORDER BY at, id LIMIT %s",
            (workspace, session_id, limit), workspace=workspace)  # fmt: skip
        return [turn_of(r) for r in rows]

    def last_turn(self, workspace: str, session_id: str) -> StoredTurn | None:
        row = self.db.one("SELECT * FROM capture_turns WHERE workspace = %s AND session = %s ORDER BY id DESC LIMIT 1",
                          (workspace, session_id), workspace=workspace)  # fmt: skip
        return turn_of(row) if row else None

    def turn_count(self, workspace: str, session_id: str) -> int:
        row = self.db.one("SELECT count(*) AS n FROM capture_turns WHERE workspace = %s AND session = %s",
                          (workspace, session_id), workspace=workspace)  # fmt: skip
        return int(row["n"]) if row else 0

    def important_chunks(self, workspace: str, project: str, types: Sequence[str], *, min_importance: int,
                         limit: int) -> list[StoredChunk]:  # fmt: skip
        if not types:
            return []
        rows = self.db.query(
            "SELECT * FROM capture_chunks WHERE workspace = %s AND project = %s AND type = ANY(%s)"
            " AND importance >= %s AND role != 'tool' ORDER BY at DESC, id DESC LIMIT %s",
            (workspace, project, list(types), min_importance, limit), workspace=workspace)  # fmt: skip
        return [chunk_of(r) for r in rows]

    def chunk(self, workspace: str, chunk_id: int) -> StoredChunk | None:
        row = self.db.one("SELECT * FROM capture_chunks WHERE workspace = %s AND id = %s", (workspace, chunk_id),
                          workspace=workspace)  # fmt: skip
        return chunk_of(row) if row else None

    def counts(self, workspace: str) -> CaptureCounts:
        row = self.db.one(
            "SELECT (SELECT count(*) FROM capture_sessions WHERE workspace = %(ws)s) AS sessions,"
            " (SELECT count(*) FROM capture_turns WHERE workspace = %(ws)s) AS turns,"
            " (SELECT count(*) FROM capture_chunks WHERE workspace = %(ws)s) AS chunks,"
            " (SELECT coalesce(sum(octet_length(text)), 0) FROM capture_turns WHERE workspace = %(ws)s) AS bytes",
            {"ws": workspace}, workspace=workspace)  # fmt: skip
        assert row is not None
        return CaptureCounts(int(row["sessions"]), int(row["turns"]), int(row["chunks"]), int(row["bytes"]))

    # -- imported memory files -------------------------------------------------------------
    def memory_files(self, workspace: str) -> dict[str, tuple[str, str]]:
        rows = self.db.query("SELECT path, ref, hash FROM capture_memory_files WHERE workspace = %s", (workspace,),
                             workspace=workspace)  # fmt: skip
        return {r["path"]: (r["ref"], r["hash"]) for r in rows}

    def set_memory_file(self, workspace: str, path: str, ref: str, digest: str, now: str) -> None:
        self.db.execute(
            "INSERT INTO capture_memory_files (workspace, path, ref, hash, updated_at) VALUES (%s, %s, %s, %s, %s)"
            " ON CONFLICT (workspace, path) DO UPDATE SET ref = excluded.ref, hash = excluded.hash,"
            " updated_at = excluded.updated_at", (workspace, path, ref, digest, now), workspace=workspace)  # fmt: skip

    def drop_memory_file(self, workspace: str, path: str) -> None:
        self.db.execute("DELETE FROM capture_memory_files WHERE workspace = %s AND path = %s", (workspace, path),
                        workspace=workspace)  # fmt: skip

    def forget_memory_file_ref(self, workspace: str, ref: str) -> None:
        self.db.execute("UPDATE capture_memory_files SET ref = '' WHERE workspace = %s AND ref = %s", (workspace, ref),
                        workspace=workspace)  # fmt: skip

    # -- small state ------------------------------------------------------------------------
    def get_meta(self, workspace: str, key: str) -> str | None:
        row = self.db.one("SELECT value FROM capture_meta WHERE workspace = %s AND key = %s", (workspace, key),
                          workspace=workspace)  # fmt: skip
        return str(row["value"]) if row else None

    def set_meta(self, workspace: str, key: str, value: str) -> None:
        self.db.execute("INSERT INTO capture_meta (workspace, key, value) VALUES (%s, %s, %s)"
                        " ON CONFLICT (workspace, key) DO UPDATE SET value = excluded.value", (workspace, key, value),
                        workspace=workspace)  # fmt: skip

    # -- erasure ----------------------------------------------------------------------------
    def delete_session(self, workspace: str, session_id: str) -> None:
        with self.db.transaction(workspace) as cur:
            _drop_chunks(cur, workspace, "c.session = %(sid)s", {"sid": session_id})
            cur.execute(b"DELETE FROM capture_turns WHERE workspace = %s AND session = %s", (workspace, session_id))
            cur.execute(b"DELETE FROM capture_sessions WHERE workspace = %s AND id = %s", (workspace, session_id))
