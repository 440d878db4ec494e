"""SQL of capture, behind one small typed class so another backend can implement the same
methods. Callers hand it redacted, chunked, classified rows; it only stores and reads them."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from kenning.redacted import Redacted, ensure
from kenning.store.sqlite.db import Database


@dataclass(frozen=True)
class LedgerEntry:
    key: str
    tool: str
    offset: int = 0
    size: int = 0
    mtime_ns: int = 0
    head_hash: str = ""
    fingerprint: str = ""
    context: dict[str, Any] = field(default_factory=dict)
    turns: int = 0


@dataclass(frozen=True)
class CapturedSession:
    """One session as a batch of newly read turns saw it: the span of their times, and the
    newest turn's folder and branch. Merged into the stored row (the span only widens)."""

    id: str
    workspace: str
    tool: str
    project: str
    project_name: str
    cwd: str
    branch: str
    first_at: str
    last_at: str


@dataclass(frozen=True)
class ChunkRow:
    part: int
    role: str
    body: Redacted
    context: Redacted
    type: str
    importance: int
    confidence: float
    rules_version: int


@dataclass(frozen=True)
class TurnRow:
    session: str
    uid: str
    role: str
    text: Redacted
    at: str
    tool_calls: list[dict[str, Redacted | str]]
    files: list[str]
    subagent: str
    project: str
    tool: str
    chunks: list[ChunkRow]


@dataclass(frozen=True)
class SearchFilters:
    workspace: str = ""
    project: str = ""
    tool: str = ""
    type: str = ""
    since: str = ""
    until: str = ""
    session: str = ""


def _dumps(value: list[Any]) -> str:
    # orjson is ~10x faster than json.dumps (two calls per turn); json handles what orjson
    # refuses (a lone surrogate from a \\ud800 escape in a transcript).
    if not value:
        return "[]"
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value)


def _guard_calls(calls: list[dict[str, Redacted | str]]) -> list[dict[str, str]]:
    """A call's input (a command, a path) is text someone wrote: redacted whatever the caller did."""
    return [{k: ensure(v) if k == "input" else v for k, v in call.items()} for call in calls]


class CaptureStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- ledger -------------------------------------------------------------------------
    def ledger(self, key: str) -> LedgerEntry | None:
        row = self.db.one("SELECT * FROM capture_ledger WHERE key = ?", (key,))
        if row is None:
            return None
        return LedgerEntry(row["key"], row["tool"], row["offset"], row["size"], row["mtime_ns"], row["head_hash"],
                           row["fingerprint"], json.loads(row["context"] or "{}"), row["turns"])

    def commit_file(self, entry: LedgerEntry, sessions: Sequence[CapturedSession], turns: Sequence[TurnRow], *,
                    replace: bool, now: str) -> int:
        """Store a file's new turns and advance its ledger in ONE transaction, so a crash at
        any point leaves either both or neither. Returns the number of turns added."""
        added = 0
        with self.db.transaction() as conn:
            if replace:
                conn.execute("DELETE FROM capture_chunks WHERE turn IN (SELECT id FROM capture_turns WHERE source = ?)",
                             (entry.key,))
                conn.execute("DELETE FROM capture_turns WHERE source = ?", (entry.key,))
            for s in sessions:
                conn.execute(
                    "INSERT INTO capture_sessions (id, workspace, tool, project, project_name, cwd, branch, first_at, last_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET"
                    " project = CASE WHEN capture_sessions.project = '' THEN excluded.project ELSE capture_sessions.project END,"
                    " project_name = CASE WHEN capture_sessions.project_name = '' THEN excluded.project_name"
                    " ELSE capture_sessions.project_name END,"
                    " cwd = CASE WHEN capture_sessions.cwd = '' THEN excluded.cwd ELSE capture_sessions.cwd END,"
                    " branch = CASE WHEN excluded.branch != '' THEN excluded.branch ELSE capture_sessions.branch END,"
                    " first_at = CASE WHEN capture_sessions.first_at = '' OR (excluded.first_at != ''"
                    " AND excluded.first_at < capture_sessions.first_at) THEN excluded.first_at ELSE capture_sessions.first_at END,"
                    " last_at = max(capture_sessions.last_at, excluded.last_at)",
                    (s.id, s.workspace, s.tool, s.project, s.project_name, s.cwd, s.branch, s.first_at, s.last_at),
                )
            # Which turns are new: one query per session instead of one insert attempt per turn,
            # then every new turn in one executemany with ids given here (the write lock is held).
            seen: set[tuple[str, str]] = set()
            by_session: dict[str, list[str]] = {}
            for t in turns:
                by_session.setdefault(t.session, []).append(t.uid)
            for sid, uids in by_session.items():
                for i in range(0, len(uids), 500):
                    part = uids[i:i + 500]
                    rows = conn.execute(
                        f"SELECT uid FROM capture_turns WHERE session = ? AND uid IN ({','.join('?' * len(part))})",
                        (sid, *part)).fetchall()
                    seen.update((sid, r[0]) for r in rows)
            next_id = int(conn.execute("SELECT coalesce(max(id), 0) FROM capture_turns").fetchone()[0]) + 1
            chunk_id = int(conn.execute("SELECT coalesce(max(id), 0) FROM capture_chunks").fetchone()[0])
            turn_rows: list[tuple[object, ...]] = []
            chunk_rows: list[tuple[object, ...]] = []
            fts_rows: list[tuple[int, str, str]] = []
            for t in turns:
                if (t.session, t.uid) in seen:
                    continue
                seen.add((t.session, t.uid))
                turn_id = next_id
                next_id += 1
                turn_rows.append((turn_id, t.session, t.uid, entry.key, t.role, ensure(t.text), t.at,
                                  _dumps(_guard_calls(t.tool_calls)), _dumps(t.files), t.subagent))
                for c in t.chunks:
                    chunk_id += 1
                    body, context = ensure(c.body), ensure(c.context)
                    chunk_rows.append((chunk_id, t.session, turn_id, c.part, c.role, body, context, t.at, t.project,
                                       t.tool, c.type, c.importance, c.confidence, c.rules_version))
                    fts_rows.append((chunk_id, body, context))
            conn.executemany(
                "INSERT INTO capture_turns (id, session, uid, source, role, text, at, tool_calls, files, subagent)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", turn_rows)
            added = len(turn_rows)
            conn.executemany(
                "INSERT INTO capture_chunks (id, session, turn, part, role, body, context, at, project, tool, type,"
                " importance, confidence, rules_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", chunk_rows)
            # Indexed here, in one statement, rather than by a trigger (see capture_schema m002).
            conn.executemany("INSERT INTO capture_fts (rowid, body, context) VALUES (?, ?, ?)", fts_rows)
            touched = {t.session for t in turns} | {s.id for s in sessions}
            for sid in touched:
                conn.execute(
                    "UPDATE capture_sessions SET turns = (SELECT count(*) FROM capture_turns WHERE session = ?),"
                    " title = CASE WHEN title = '' THEN coalesce((SELECT substr(text, 1, 120) FROM capture_turns"
                    " WHERE session = ? AND role = 'user' ORDER BY at, id LIMIT 1), '') ELSE title END WHERE id = ?",
                    (sid, sid, sid),
                )
            conn.execute(
                "INSERT INTO capture_ledger (key, tool, offset, size, mtime_ns, head_hash, fingerprint, context, turns,"
                " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET"
                " offset = excluded.offset, size = excluded.size, mtime_ns = excluded.mtime_ns,"
                " head_hash = excluded.head_hash, fingerprint = excluded.fingerprint, context = excluded.context,"
                " turns = CASE WHEN ? THEN excluded.turns ELSE capture_ledger.turns + excluded.turns END,"
                " updated_at = excluded.updated_at",
                (entry.key, entry.tool, entry.offset, entry.size, entry.mtime_ns, entry.head_hash, entry.fingerprint,
                 json.dumps(entry.context), added, now, 1 if replace else 0),
            )
        return added

    # -- classification sweep ---------------------------------------------------------------
    def chunks_to_reclassify(self, version: int, after: int, limit: int) -> list[tuple[int, str]]:
        rows = self.db.query(
            "SELECT id, body FROM capture_chunks WHERE rules_version != ? AND id > ? AND role != 'tool'"
            " ORDER BY id LIMIT ?", (version, after, limit))
        return [(r["id"], r["body"]) for r in rows]

    def set_classes(self, rows: Iterable[tuple[int, str, int, float, int]]) -> None:
        with self.db.transaction() as conn:
            conn.executemany(
                "UPDATE capture_chunks SET type = ?, importance = ?, confidence = ?, rules_version = ? WHERE id = ?",
                [(t, imp, conf, ver, cid) for cid, t, imp, conf, ver in rows])

    # -- reading ----------------------------------------------------------------------------
    def search(self, match: str, filters: SearchFilters, limit: int,
               weights: tuple[float, float] = (1.0, 0.5)) -> list[dict[str, Any]]:
        where = ["capture_fts MATCH ?"]
        params: list[object] = [match]
        for column, value in (("s.workspace", filters.workspace), ("c.project", filters.project),
                              ("c.tool", filters.tool), ("c.type", filters.type), ("c.session", filters.session)):
            if value:
                where.append(f"{column} = ?")
                params.append(value)
        if filters.since:
            where.append("c.at >= ?")
            params.append(filters.since)
        if filters.until:
            where.append("c.at <= ?")
            params.append(filters.until)
        sql = (
            f"SELECT c.id, c.session, c.turn, c.part, c.role, c.body, c.at, c.project, c.tool, c.type, c.importance,"
            f" bm25(capture_fts, {weights[0]}, {weights[1]}) AS rank, s.project_name, s.title"
            " FROM capture_fts JOIN capture_chunks c ON c.id = capture_fts.rowid"
            " JOIN capture_sessions s ON s.id = c.session"
            f" WHERE {' AND '.join(where)} ORDER BY rank LIMIT ?"
        )
        params.append(limit)
        return [dict(r) for r in self.db.query(sql, params)]

    def session(self, session_id: str) -> dict[str, Any] | None:
        row = self.db.one("SELECT * FROM capture_sessions WHERE id = ?", (session_id,))
        return dict(row) if row else None

    def find_sessions(self, prefix: str, limit: int = 5, workspace: str = "") -> list[dict[str, Any]]:
        """Sessions whose id, or id after its tool prefix, starts with ``prefix``; newest first."""
        like = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        sql = "SELECT * FROM capture_sessions WHERE (id LIKE ? ESCAPE '\\' OR id LIKE ? ESCAPE '\\')"
        params: list[object] = [like, "%:" + like]
        if workspace:
            sql += " AND workspace = ?"
            params.append(workspace)
        rows = self.db.query(sql + " ORDER BY last_at DESC LIMIT ?", (*params, limit))
        return [dict(r) for r in rows]

    def session_folders(self, workspace: str) -> list[str]:
        """The working folders captured sessions ran in."""
        rows = self.db.query("SELECT DISTINCT cwd FROM capture_sessions WHERE workspace = ? AND cwd != ''", (workspace,))
        return [str(r["cwd"]) for r in rows]

    def newest_session(self, workspace: str = "") -> dict[str, Any] | None:
        where, params = (" WHERE workspace = ?", (workspace,)) if workspace else ("", ())
        row = self.db.one("SELECT * FROM capture_sessions" + where + " ORDER BY last_at DESC, id LIMIT 1", params)
        return dict(row) if row else None

    def sessions(self, workspace: str, project: str = "", limit: int = 50) -> list[dict[str, Any]]:
        sql = "SELECT * FROM capture_sessions WHERE workspace = ?"
        params: list[object] = [workspace]
        if project:
            sql += " AND project = ?"
            params.append(project)
        sql += " ORDER BY last_at DESC LIMIT ?"
        params.append(limit)
        return [dict(r) for r in self.db.query(sql, params)]

    def turns(self, session_id: str, *, around: int | None = None, radius: int = 3,
              limit: int = 10_000) -> list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT id, uid, role, text, at, tool_calls, files, subagent FROM capture_turns WHERE session = ?"
            " ORDER BY at, id LIMIT ?", (session_id, limit))
        out = [dict(r) for r in rows]
        if around is None:
            return out
        index = next((i for i, r in enumerate(out) if r["id"] == around), None)
        if index is None:
            return []
        return out[max(0, index - radius): index + radius + 1]

    def chunk(self, chunk_id: int) -> dict[str, Any] | None:
        row = self.db.one("SELECT * FROM capture_chunks WHERE id = ?", (chunk_id,))
        return dict(row) if row else None

    def counts(self) -> dict[str, int]:
        row = self.db.one(
            "SELECT (SELECT count(*) FROM capture_sessions) AS sessions, (SELECT count(*) FROM capture_turns) AS turns,"
            " (SELECT count(*) FROM capture_chunks) AS chunks,"
            " (SELECT coalesce(sum(length(CAST(text AS BLOB))), 0) FROM capture_turns) AS text_bytes")
        return dict(row) if row else {}

    def all_turn_keys(self) -> list[tuple[str, str]]:
        return [(r["session"], r["uid"]) for r in self.db.query("SELECT session, uid FROM capture_turns")]

    # -- imported memory files -------------------------------------------------------------
    def memory_files(self, workspace: str) -> dict[str, tuple[str, str]]:
        rows = self.db.query("SELECT path, ref, hash FROM capture_memory_files WHERE workspace = ?", (workspace,))
        return {r["path"]: (r["ref"], r["hash"]) for r in rows}

    def set_memory_file(self, workspace: str, path: str, ref: str, digest: str, now: str) -> None:
        self.db.execute(
            "INSERT INTO capture_memory_files (path, workspace, ref, hash, updated_at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (path) DO UPDATE SET ref = excluded.ref, hash = excluded.hash, updated_at = excluded.updated_at",
            (path, workspace, ref, digest, now))

    def drop_memory_file(self, path: str) -> None:
        self.db.execute("DELETE FROM capture_memory_files WHERE path = ?", (path,))

    def meta(self, key: str) -> str | None:
        row = self.db.one("SELECT value FROM capture_meta WHERE key = ?", (key,))
        return str(row["value"]) if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT INTO capture_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET"
                        " value = excluded.value", (key, value))

    # -- erasure --------------------------------------------------------------------------
    def turn_count(self, session_id: str) -> int:
        row = self.db.one("SELECT count(*) AS n FROM capture_turns WHERE session = ?", (session_id,))
        return int(row["n"]) if row else 0

    def delete_session(self, session_id: str) -> None:
        """A captured session, deleted for real: its chunks (and their full-text entries, by
        trigger), turns and row, and what the hooks kept of it."""
        raw = session_id.split(":", 1)[-1]
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM capture_chunks WHERE session = ?", (session_id,))
            conn.execute("DELETE FROM capture_turns WHERE session = ?", (session_id,))
            conn.execute("DELETE FROM capture_sessions WHERE id = ?", (session_id,))
            conn.execute("DELETE FROM graph_progress WHERE session = ?", (session_id,))
            for table in ("hook_sessions", "hook_shown", "memory_deliveries"):
                conn.execute(f"DELETE FROM {table} WHERE session = ? OR session LIKE ?", (raw, "%:" + raw))

    def forgotten_sessions(self, workspace: str) -> frozenset[str]:
        """Sessions forgotten here: sync never captures them again."""
        rows = self.db.query("SELECT key FROM tombstones WHERE workspace = ? AND kind = 'session'", (workspace,))
        return frozenset(str(r["key"]) for r in rows)

    def forgotten_digests(self, workspace: str) -> frozenset[str]:
        """Hashes of forgotten memories' text: an imported file's rule with one is not imported again."""
        rows = self.db.query("SELECT digest FROM tombstones WHERE workspace = ? AND kind = 'memory' AND digest != ''",
                             (workspace,))  # fmt: skip
        return frozenset(str(r["digest"]) for r in rows)

    def forget_memory_file_ref(self, ref: str) -> None:
        """An imported file (or rule) whose memory was forgotten stays known with no memory, so
        the next sync leaves it out rather than import it again."""
        self.db.execute("UPDATE capture_memory_files SET ref = '' WHERE ref = ?", (ref,))
