"""SQLite implementation of :class:`kenning.store.protocol.MemoryStore`."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from functools import partial

from kenning.clock import from_iso, to_iso
from kenning.model import (
    DecisionDoc,
    Kind,
    Memory,
    MemoryEvent,
    Placement,
    Placing,
    ReviewItem,
)
from kenning.redacted import ensure, stored
from kenning.store.guard import guarded, guarded_payload
from kenning.store.memory_rows import KINDS, Decoders, decision_doc_of, memory_of, review_of, scope_of
from kenning.store.protocol import (
    FACETS,
    Glance,
    Hit,
    IndexStats,
    MemoryFilter,
    ScopeRow,
    SessionWrites,
    TidyCounts,
    Tombstone,
    TriggerRow,
    UseRow,
)
from kenning.store.sqlite import hook_rows, memory_search
from kenning.store.sqlite.db import Database

PAGE = 500  # rows per read of a paged walk

_COLUMNS = [
    "ref",
    "workspace",
    "scope",
    "text",
    "kind",
    "reason",
    "rejected",
    "trigger",
    "confidence",
    "status",
    "status_at",
    "status_note",
    "subject",
    "origin",
    "origin_tool",
    "session",
    "branch",
    "pinned",
    "index_pinned",
    "hidden",
    "held",
    "protected",
    "source_ref",
    "source_hash",
    "citation",
    "tags",
    "created_at",
    "confirmed_at",
    "last_used_at",
    "uses",
    "confirmations",
    "recalled",
]


def _words(value: str) -> tuple[str, ...]:
    return tuple(w for w in value.split(" ") if w)


# Rows read back through the shared mappers (kenning.store.memory_rows): times are ISO text here,
# tags and refs space-separated words.
DECODE = Decoders(time=from_iso, words=_words)
_row_to_memory = partial(memory_of, decode=DECODE)
_row_to_doc = partial(decision_doc_of, decode=DECODE)
_row_to_review = partial(review_of, decode=DECODE)
_scope = partial(scope_of, decode=DECODE)


def _memory_values(m: Memory) -> list[object]:
    return [
        m.ref, m.workspace, m.scope, m.text, m.kind.value, m.reason, m.rejected,
        m.trigger.to_text() if m.trigger else None, m.confidence, m.status.value,
        to_iso(m.status_at) if m.status_at else None, m.status_note, m.subject, m.origin.value,
        m.origin_tool, m.session, m.branch, int(m.pinned), int(m.index_pinned), int(m.hidden),
        int(m.held), int(m.protected), m.source_ref, m.source_hash, m.citation.value,
        " ".join(m.tags), to_iso(m.created_at), to_iso(m.confirmed_at),
        to_iso(m.last_used_at) if m.last_used_at else None, m.uses, m.confirmations, m.recalled,
    ]  # fmt: skip


def _term_values(m: Memory) -> list[str]:
    return memory_search.index_fields(
        m.text, m.reason, m.rejected, m.tags, m.subject, m.trigger.pattern if m.trigger else "", m.source_ref
    )


def _in(values: Sequence[object]) -> str:
    return ",".join("?" for _ in values) or "NULL"


# A memory's ref is unique, so a lookup by ref goes through that index and checks the workspace
# on the row. Written as ``+workspace`` (SQLite's way to keep a term off an index) because,
# without ANALYZE statistics, the planner preferred the listing index that starts with the
# workspace and read every memory of it: 112 ms instead of 0.1 ms at 100k memories
# (bench/recall_latency.py).
class SqliteMemoryStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def transaction(self) -> AbstractContextManager[object]:
        return self.db.transaction()

    # -- scopes -------------------------------------------------------------------------
    def upsert_scope(self, scope: ScopeRow) -> None:
        self.db.execute(
            "INSERT INTO scopes (workspace, key, kind, name, root, parent, created_at, removed_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (workspace, key) DO UPDATE SET kind = excluded.kind, name = excluded.name,"
            " root = CASE WHEN excluded.root != '' THEN excluded.root ELSE scopes.root END,"
            " parent = CASE WHEN excluded.parent != '' THEN excluded.parent ELSE scopes.parent END,"
            " removed_at = excluded.removed_at",
            (scope.workspace, scope.key, scope.kind, scope.name, scope.root, scope.parent,
             to_iso(scope.created_at), to_iso(scope.removed_at) if scope.removed_at else None),
        )  # fmt: skip

    def get_scope(self, workspace: str, key: str) -> ScopeRow | None:
        row = self.db.one("SELECT * FROM scopes WHERE workspace = ? AND key = ?", (workspace, key))
        return _scope(row) if row else None

    def list_scopes(self, workspace: str) -> list[ScopeRow]:
        return [
            _scope(r)
            for r in self.db.query("SELECT * FROM scopes WHERE workspace = ? ORDER BY key", (workspace,))
        ]

    # -- memories -----------------------------------------------------------------------
    def insert(self, memory: Memory) -> None:
        memory = guarded(memory)
        with self.db.transaction() as conn:
            cur = conn.execute(
                f"INSERT INTO memories ({', '.join(_COLUMNS)}) VALUES ({_in(_COLUMNS)})",
                _memory_values(memory),
            )
            fields = _term_values(memory)
            conn.execute(
                "INSERT INTO memory_terms (id, text, reason, tags, citation) VALUES (?, ?, ?, ?, ?)",
                [cur.lastrowid, *fields],
            )
            memory_search.stats_add(conn, fields)

    def update(self, memory: Memory) -> None:
        memory = guarded(memory)
        with self.db.transaction() as conn:
            row = conn.execute(
                "SELECT id, text, reason, rejected, tags, subject, trigger, source_ref FROM memories"
                " WHERE +workspace = ? AND ref = ?",
                (memory.workspace, memory.ref),
            ).fetchone()
            if row is None:
                raise KeyError(memory.ref)
            sets = ", ".join(f"{c} = ?" for c in _COLUMNS[1:])
            conn.execute(
                f"UPDATE memories SET {sets} WHERE id = ?", [*_memory_values(memory)[1:], row["id"]]
            )
            if (row["text"], row["reason"], row["rejected"], row["tags"], row["subject"], row["trigger"],
                row["source_ref"]) != (memory.text, memory.reason, memory.rejected, " ".join(memory.tags),
                memory.subject, memory.trigger.to_text() if memory.trigger else None, memory.source_ref,
            ):  # fmt: skip
                old = conn.execute(
                    "SELECT text, reason, tags, citation FROM memory_terms WHERE id = ?", (row["id"],)
                ).fetchone()
                fields = _term_values(memory)
                conn.execute(
                    "UPDATE memory_terms SET text = ?, reason = ?, tags = ?, citation = ? WHERE id = ?",
                    [*fields, row["id"]],
                )
                if old is not None:
                    memory_search.stats_add(conn, list(old), -1)
                memory_search.stats_add(conn, fields)

    def get(self, workspace: str, ref: str) -> Memory | None:
        row = self.db.one("SELECT * FROM memories WHERE +workspace = ? AND ref = ?", (workspace, ref))
        return _row_to_memory(row) if row else None

    def get_many(self, workspace: str, refs: Sequence[str]) -> list[Memory]:
        if not refs:
            return []
        rows = self.db.query(f"SELECT * FROM memories WHERE +workspace = ? AND ref IN ({_in(refs)})",
                             [workspace, *refs])  # fmt: skip
        by_ref = {r["ref"]: _row_to_memory(r) for r in rows}
        return [by_ref[r] for r in refs if r in by_ref]

    def by_subject(self, workspace: str, scopes: Sequence[str], subject: str) -> list[Memory]:
        rows = self.db.query(
            f"SELECT * FROM memories WHERE workspace = ? AND scope IN ({_in(scopes)}) AND subject = ?"
            " AND status = 'active' ORDER BY created_at",
            [workspace, *scopes, subject],
        )
        return [_row_to_memory(r) for r in rows]

    def subjects(self, workspace: str, scopes: Sequence[str], kind: Kind) -> list[str]:
        rows = self.db.query(
            f"SELECT DISTINCT subject FROM memories WHERE workspace = ? AND scope IN ({_in(scopes)})"
            " AND kind = ? AND subject != '' AND status = 'active'",
            [workspace, *scopes, kind.value],
        )
        return [r[0] for r in rows]

    def _where(self, flt: MemoryFilter, alias: str = "") -> tuple[str, list[object]]:
        p = f"{alias}." if alias else ""
        clauses = [f"{p}workspace = ?", f"{p}scope IN ({_in(flt.scopes)})"]
        params: list[object] = [flt.workspace, *flt.scopes]
        if flt.statuses:
            clauses.append(f"{p}status IN ({_in(flt.statuses)})")
            params.extend(s.value for s in flt.statuses)
        if flt.kinds:
            clauses.append(f"{p}kind IN ({_in(flt.kinds)})")
            params.extend(k.value for k in flt.kinds)
        if flt.session is not None:
            clauses.append(f"{p}session = ?")
            params.append(flt.session)
        if flt.with_trigger is True:
            clauses.append(f"{p}trigger IS NOT NULL")
        elif flt.with_trigger is False:
            clauses.append(f"{p}trigger IS NULL")
        if flt.source_ref_like is not None:
            clauses.append(f"{p}source_ref LIKE ?")
            params.append(flt.source_ref_like)
        if flt.pinned is True:
            clauses.append(f"({p}pinned = 1 OR {p}index_pinned = 1)")
        elif flt.pinned is False:
            clauses.append(f"{p}pinned = 0 AND {p}index_pinned = 0")
        if flt.origins:
            clauses.append(f"{p}origin IN ({_in(flt.origins)})")
            params.extend(o.value for o in flt.origins)
        if flt.origin_tools:
            clauses.append(f"{p}origin_tool IN ({_in(flt.origin_tools)})")
            params.extend(flt.origin_tools)
        if flt.idle_before is not None:
            cutoff = to_iso(flt.idle_before)
            clauses.append(f"{p}created_at < ? AND {p}confirmed_at < ? AND ({p}last_used_at IS NULL OR "
                           f"{p}last_used_at < ?) AND {p}pinned = 0 AND {p}index_pinned = 0")  # fmt: skip
            params.extend([cutoff, cutoff, cutoff])
        if flt.used_since is not None:
            clauses.append(f"{p}last_used_at >= ?")
            params.append(to_iso(flt.used_since))
        if flt.created_since is not None:
            clauses.append(f"{p}created_at >= ?")
            params.append(to_iso(flt.created_since))
        return " AND ".join(clauses), params

    def find(
        self, flt: MemoryFilter, *, offset: int = 0, limit: int | None = None, newest_first: bool = False
    ) -> list[Memory]:
        where, params = self._where(flt)
        order = "DESC" if newest_first else "ASC"
        rows = self.db.query(
            f"SELECT * FROM memories WHERE {where} ORDER BY created_at {order}, id {order} LIMIT ? OFFSET ?",
            [*params, -1 if limit is None else limit, offset],
        )
        return [_row_to_memory(r) for r in rows]

    def count(self, flt: MemoryFilter) -> int:
        where, params = self._where(flt)
        row = self.db.one(f"SELECT count(*) FROM memories WHERE {where}", params)
        return int(row[0]) if row else 0

    def facet_counts(self, flt: MemoryFilter, facet: str) -> dict[str, int]:
        if facet not in FACETS:
            raise ValueError(f"no facet {facet!r}")
        where, params = self._where(flt)
        rows = self.db.query(f"SELECT {facet}, count(*) FROM memories WHERE {where} GROUP BY {facet}", params)
        return {str(r[0]): int(r[1]) for r in rows}

    def facet_groups(self, flt: MemoryFilter, facets: Sequence[str]) -> dict[tuple[str, ...], int]:
        if not facets or any(f not in FACETS for f in facets):
            raise ValueError(f"facets must be some of {FACETS}, not {facets!r}")
        where, params = self._where(flt)
        columns = ", ".join(facets)
        rows = self.db.tuples(f"SELECT {columns}, count(*) FROM memories WHERE {where} GROUP BY {columns}", params)
        return {tuple(str(v) for v in r[:-1]): int(str(r[-1])) for r in rows}

    def memory_scopes(self, workspace: str) -> list[str]:
        rows = self.db.query("SELECT DISTINCT scope FROM memories WHERE workspace = ? ORDER BY scope", (workspace,))
        return [str(r[0]) for r in rows]

    def sessions_written(self, workspace: str, scopes: Sequence[str], *, limit: int = 200) -> list[SessionWrites]:
        rows = self.db.query(
            "SELECT session, count(*) AS n, sum(status = 'active') AS active, min(created_at) AS first_at,"
            f" max(created_at) AS last_at FROM memories WHERE workspace = ? AND scope IN ({_in(scopes)})"
            " AND session != '' GROUP BY session ORDER BY last_at DESC, session LIMIT ?",
            [workspace, *scopes, limit],
        )
        return [SessionWrites(r["session"], int(r["n"]), int(r["active"]), from_iso(r["first_at"]),
                              from_iso(r["last_at"])) for r in rows]  # fmt: skip

    def iter_all(self, workspace: str) -> Iterator[Memory]:
        last = 0
        while True:  # by pages, so a walk over a large store holds one page of rows at a time
            rows = self.db.query("SELECT * FROM memories WHERE workspace = ? AND id > ? ORDER BY id LIMIT ?",
                                 (workspace, last, PAGE))  # fmt: skip
            yield from map(_row_to_memory, rows)
            if len(rows) < PAGE:
                return
            last = int(rows[-1]["id"])

    def glances(self, workspace: str, scope: str | None = None) -> list[Glance]:
        where, params = ("workspace = ?", [workspace]) if scope is None else ("workspace = ? AND scope = ?", [workspace, scope])
        rows = self.db.tuples(
            "SELECT ref, scope, text, session, source_ref, source_hash, tags != '', recalled FROM memories"
            f" WHERE {where} AND status = 'active' ORDER BY id", params)  # fmt: skip
        return list(map(Glance._make, rows))

    def session_scopes(self, workspace: str, sessions: Sequence[str]) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        wanted = sorted({s for s in sessions if s})
        for start in range(0, len(wanted), 500):  # under SQLite's limit on bound values
            chunk = wanted[start : start + 500]
            rows = self.db.tuples(f"SELECT DISTINCT session, scope FROM memories WHERE workspace = ? AND session != '' AND session IN"
                                  f" ({_in(chunk)})", [workspace, *chunk])  # fmt: skip
            found.extend((str(r[0]), str(r[1])) for r in rows)
        return found

    def revision(self, workspace: str) -> str:
        # Kept by triggers on memories and scopes (memory_schema m006).
        rows = {str(r[0]): int(r[1]) for r in self.db.query("SELECT name, n FROM store_revision")}
        return f"{rows.get('instance', 0)}:{rows.get('memories', 0)}"

    def search(
        self, flt: MemoryFilter, terms: Sequence[str], *, limit: int, report: Sequence[str] = ()
    ) -> list[Hit]:
        unique = sorted({t for t in terms if t})
        if not unique:
            return []
        where, params = self._where(flt, "m")
        ranked = memory_search.rank(self.db, where, params, unique, limit)
        if ranked is None:
            ranked = memory_search.rank_fts(self.db, where, params, unique, limit)
        score = dict(ranked)
        rows = self.db.query(
            "SELECT m.*, t.text AS t_text, t.reason AS t_reason, t.tags AS t_tags, t.citation AS t_citation"
            f" FROM memories m JOIN memory_terms t ON t.id = m.id WHERE m.id IN ({_in(list(score))})",
            list(score),
        )
        rows.sort(key=lambda r: (-score[r["id"]], r["id"]))
        hits = []
        asked = {*unique, *report}
        for r in rows:
            freqs, length = memory_search.weighted_terms([r["t_text"], r["t_reason"], r["t_tags"], r["t_citation"]])
            hits.append(Hit(_row_to_memory(r), score[r["id"]], frozenset(freqs.keys() & asked), freqs, length))
        return hits

    def index_stats(self, workspace: str, terms: Sequence[str]) -> IndexStats:
        stats = memory_search.term_stats(self.db, sorted(set(terms)))
        return IndexStats(stats.docs, stats.avgdl, stats.df)

    def terms_with_prefix(self, workspace: str, prefix: str, limit: int) -> list[str]:
        """Indexed terms that start with ``prefix`` (a range over the term table's key)."""
        if not prefix:
            return []
        rows = self.db.query(
            "SELECT term FROM memory_term_stats WHERE term >= ? AND term < ? ORDER BY term LIMIT ?",
            [prefix, prefix + "\U0010ffff", limit],
        )
        return [str(r[0]) for r in rows]

    def doc_freq(self, workspace: str, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        unique = sorted(set(terms))
        stats = memory_search.term_stats(self.db, unique)
        return stats.docs, stats.df

    def mark_recalled(self, workspace: str, refs: Sequence[str]) -> None:
        if refs:
            self.db.execute(
                f"UPDATE memories SET recalled = recalled + 1 WHERE +workspace = ? AND ref IN ({_in(refs)})",
                [workspace, *refs],
            )

    # -- history and use ----------------------------------------------------------------
    def add_event(self, workspace: str, event: MemoryEvent) -> None:
        self.db.execute(
            "INSERT INTO memory_events (ref, at, event, detail, other_ref)"
            " SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM memories WHERE +workspace = ? AND ref = ?)",
            (event.ref, to_iso(event.at), event.event, ensure(event.detail), event.other_ref, workspace, event.ref),
        )

    def events(self, workspace: str, ref: str) -> list[MemoryEvent]:
        rows = self.db.query(
            "SELECT e.* FROM memory_events e JOIN memories m ON m.ref = e.ref WHERE m.workspace = ? AND e.ref = ?"
            " ORDER BY e.at, e.id", (workspace, ref))  # fmt: skip
        return [
            MemoryEvent(r["ref"], from_iso(r["at"]), r["event"], r["detail"], r["other_ref"]) for r in rows
        ]

    def add_use(self, workspace: str, use: UseRow) -> None:
        self.db.execute(
            "INSERT INTO memory_uses (ref, session, tool, branch, at)"
            " SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM memories WHERE +workspace = ? AND ref = ?)",
            (use.ref, ensure(use.session), ensure(use.tool), ensure(use.branch), to_iso(use.at), workspace, use.ref),
        )

    def _uses(self, rows: list[sqlite3.Row]) -> list[UseRow]:
        return [UseRow(r["ref"], r["session"], r["tool"], r["branch"], from_iso(r["at"])) for r in rows]

    def uses(self, workspace: str, ref: str) -> list[UseRow]:
        return self._uses(self.db.query(
            "SELECT u.* FROM memory_uses u JOIN memories m ON m.ref = u.ref WHERE m.workspace = ? AND u.ref = ?"
            " ORDER BY u.at", (workspace, ref)))  # fmt: skip

    def uses_in_session(self, workspace: str, session: str) -> list[UseRow]:
        return self._uses(self.db.query(
            "SELECT u.* FROM memory_uses u JOIN memories m ON m.ref = u.ref WHERE m.workspace = ? AND u.session = ?"
            " ORDER BY u.at", (workspace, session)))  # fmt: skip

    def all_uses(self, workspace: str) -> list[UseRow]:
        return self._uses(self.db.query(
            "SELECT u.* FROM memory_uses u JOIN memories m ON m.ref = u.ref WHERE m.workspace = ? ORDER BY u.at, u.id",
            (workspace,)))  # fmt: skip

    def use_sessions(self, workspace: str, refs: Sequence[str]) -> dict[str, int]:
        if not refs:
            return {}
        rows = self.db.query(
            "SELECT u.ref, count(DISTINCT u.session) FROM memory_uses u JOIN memories m ON m.ref = u.ref"
            f" WHERE m.workspace = ? AND u.ref IN ({_in(refs)}) AND u.session != '' GROUP BY u.ref",
            [workspace, *refs],
        )
        return {r[0]: int(r[1]) for r in rows}

    def uses_since(self, workspace: str, since: datetime, until: datetime | None = None) -> list[UseRow]:
        sql = ("SELECT u.* FROM memory_uses u JOIN memories m ON m.ref = u.ref WHERE m.workspace = ? AND u.at >= ?"
               + (" AND u.at < ?" if until is not None else "") + " ORDER BY u.at, u.id")  # fmt: skip
        params = [workspace, to_iso(since), *([to_iso(until)] if until is not None else [])]
        return self._uses(self.db.query(sql, params))

    # -- placements ---------------------------------------------------------------------
    def add_placement(self, placement: Placement) -> bool:
        cur = self.db.execute(
            "INSERT INTO memory_placements (workspace, ref, decision, place, created_at, by) VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT DO NOTHING",
            (placement.workspace, placement.ref, placement.decision.value, placement.place,
             to_iso(placement.created_at), ensure(placement.by)),
        )  # fmt: skip
        return cur.rowcount > 0

    def remove_placement(self, workspace: str, ref: str, decision: Placing, place: str) -> bool:
        cur = self.db.execute(
            "DELETE FROM memory_placements WHERE workspace = ? AND ref = ? AND decision = ? AND place = ?",
            (workspace, ref, decision.value, place),
        )
        return cur.rowcount > 0

    def _placements(self, rows: list[sqlite3.Row]) -> list[Placement]:
        return [Placement(r["ref"], r["workspace"], Placing(r["decision"]), r["place"], from_iso(r["created_at"]),
                          r["by"]) for r in rows]  # fmt: skip

    def placements(self, workspace: str, refs: Sequence[str]) -> list[Placement]:
        if not refs:
            return []
        rows = self.db.query(
            f"SELECT * FROM memory_placements WHERE workspace = ? AND ref IN ({_in(refs)})"
            " ORDER BY created_at, ref, decision, place",
            [workspace, *refs],
        )
        return self._placements(rows)

    def placed(self, workspace: str, decision: Placing, places: Sequence[str]) -> list[Placement]:
        if not places:
            return []
        rows = self.db.query(
            f"SELECT * FROM memory_placements WHERE workspace = ? AND decision = ? AND place IN ({_in(places)})"
            " ORDER BY created_at, ref, place",
            [workspace, decision.value, *places],
        )
        return self._placements(rows)

    # -- decision docs ------------------------------------------------------------------
    def save_decision_doc(self, doc: DecisionDoc) -> DecisionDoc:
        values = (
            doc.workspace, doc.scope, ensure(doc.title), ensure(doc.decision), ensure(doc.reason),
            ensure(doc.rejected), doc.confidence, doc.source_ref,
            json.dumps([ensure(line) for line in doc.outcome]), doc.memory_ref, doc.author, doc.area,
            to_iso(doc.created_at), to_iso(doc.updated_at),
        )  # fmt: skip
        if doc.id:
            self.db.execute(
                "UPDATE decision_docs SET workspace=?, scope=?, title=?, decision=?, reason=?, rejected=?,"
                " confidence=?, source_ref=?, outcome=?, memory_ref=?, author=?, area=?, created_at=?,"
                " updated_at=? WHERE id = ? AND workspace = ?",
                (*values, doc.id, doc.workspace),
            )
            return doc
        cur = self.db.execute(
            "INSERT INTO decision_docs (workspace, scope, title, decision, reason, rejected, confidence,"
            " source_ref, outcome, memory_ref, author, area, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            values,
        )
        saved = self.decision_doc_by_id(doc.workspace, int(cur.lastrowid or 0))
        assert saved is not None
        return saved

    def decision_doc(self, workspace: str, scope: str, title: str, author: str) -> DecisionDoc | None:
        row = self.db.one(
            "SELECT * FROM decision_docs WHERE workspace = ? AND scope = ? AND title = ? AND author = ?",
            (workspace, scope, title, author),
        )
        return _row_to_doc(row) if row else None

    def decision_doc_by_id(self, workspace: str, doc_id: int) -> DecisionDoc | None:
        row = self.db.one("SELECT * FROM decision_docs WHERE workspace = ? AND id = ?", (workspace, doc_id))
        return _row_to_doc(row) if row else None

    def decision_doc_for(self, workspace: str, ref: str) -> DecisionDoc | None:
        row = self.db.one("SELECT * FROM decision_docs WHERE workspace = ? AND memory_ref = ? ORDER BY id DESC",
                          (workspace, ref))  # fmt: skip
        return _row_to_doc(row) if row else None

    def outcomes(self, workspace: str, refs: Sequence[str]) -> dict[str, tuple[str, ...]]:
        if not refs:
            return {}
        rows = self.db.query(
            f"SELECT memory_ref, outcome FROM decision_docs WHERE workspace = ? AND memory_ref IN ({_in(refs)})"
            " ORDER BY id", [workspace, *refs])  # fmt: skip
        found: dict[str, tuple[str, ...]] = {}
        for r in rows:
            found[r[0]] = found.get(r[0], ()) + tuple(stored(line) for line in json.loads(r[1]))
        return found

    def decision_docs(self, workspace: str, scopes: Sequence[str]) -> list[DecisionDoc]:
        rows = self.db.query(
            f"SELECT * FROM decision_docs WHERE workspace = ? AND scope IN ({_in(scopes)}) ORDER BY updated_at DESC",
            [workspace, *scopes],
        )
        return [_row_to_doc(r) for r in rows]

    # -- needs review -------------------------------------------------------------------
    def add_review(self, item: ReviewItem) -> ReviewItem:
        cur = self.db.execute(
            "INSERT INTO reviews (workspace, scope, kind, payload, refs, proposed_by, created_at, resolved_at,"
            " resolution, batch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (item.workspace, item.scope, item.kind, json.dumps(guarded_payload(item.payload)), " ".join(item.refs),
             item.proposed_by, to_iso(item.created_at), to_iso(item.resolved_at) if item.resolved_at else None,
             item.resolution, item.batch),
        )  # fmt: skip
        saved = self.review(item.workspace, int(cur.lastrowid or 0))
        assert saved is not None
        return saved

    def review(self, workspace: str, review_id: int) -> ReviewItem | None:
        row = self.db.one("SELECT * FROM reviews WHERE workspace = ? AND id = ?", (workspace, review_id))
        return _row_to_review(row) if row else None

    def reviews(self, workspace: str, scopes: Sequence[str], *, open_only: bool = True) -> list[ReviewItem]:
        extra = " AND resolved_at IS NULL" if open_only else ""
        rows = self.db.query(
            f"SELECT * FROM reviews WHERE workspace = ? AND scope IN ({_in(scopes)}){extra} ORDER BY id",
            [workspace, *scopes],
        )
        return [_row_to_review(r) for r in rows]

    def update_review(self, item: ReviewItem) -> None:
        self.db.execute(
            "UPDATE reviews SET payload = ?, resolved_at = ?, resolution = ?, batch = ? WHERE id = ? AND workspace = ?",
            (json.dumps(guarded_payload(item.payload)), to_iso(item.resolved_at) if item.resolved_at else None, item.resolution,
             item.batch, item.id, item.workspace),
        )  # fmt: skip

    def open_reviews(self, workspace: str, scope: str) -> int:
        return int(self.db.using(hook_rows.open_proposals, workspace, scope))

    # -- what the hooks deliver -----------------------------------------------------------
    def trigger_rows(self, workspace: str) -> list[TriggerRow]:
        rows = self.db.query(
            "SELECT ref, trigger, source_ref, kind, workspace, scope, created_at, id FROM memories"
            " WHERE workspace = ? AND status = 'active' AND hidden = 0 AND held = 0 AND citation != 'gone'"
            " AND (trigger IS NOT NULL OR (source_ref != '' AND kind IN ('lesson', 'decision'))) ORDER BY id",
            (workspace,),
        )
        return [TriggerRow(r[0], r[1], r[2], KINDS[r[3]], r[4], r[5], r[6], int(r[7])) for r in rows]

    def tidy_counts(self, workspace: str, scope: str, rest_cutoff: datetime) -> TidyCounts:
        return TidyCounts(*self.db.using(hook_rows.tidy_counts, workspace, scope, to_iso(rest_cutoff)))

    # -- policies and meta --------------------------------------------------------------
    def set_policy(self, workspace: str, scope: str, setting: str, value: str, at: datetime) -> None:
        self.db.execute(
            "INSERT INTO policies (workspace, scope, setting, value, set_at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (workspace, scope, setting) DO UPDATE SET value = excluded.value, set_at = excluded.set_at",
            (workspace, scope, setting, value, to_iso(at)),
        )

    def clear_policy(self, workspace: str, scope: str, setting: str) -> None:
        self.db.execute(
            "DELETE FROM policies WHERE workspace = ? AND scope = ? AND setting = ?",
            (workspace, scope, setting),
        )

    def policies(self, workspace: str, scope: str) -> dict[str, str]:
        rows = self.db.query(
            "SELECT setting, value FROM policies WHERE workspace = ? AND scope = ?", (workspace, scope)
        )
        return {r["setting"]: r["value"] for r in rows}

    def get_meta(self, workspace: str, key: str) -> str | None:
        row = self.db.one("SELECT value FROM meta WHERE key = ?", (key,))
        return str(row[0]) if row else None

    def set_meta(self, workspace: str, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    # -- erasure --------------------------------------------------------------------------
    def delete(self, workspace: str, ref: str) -> bool:
        """Delete a memory for real: its row, its full-text terms and their statistics, its
        history, uses and placements, its decision doc, and the review items that name it."""
        with self.db.transaction() as conn:
            row = conn.execute("SELECT id FROM memories WHERE +workspace = ? AND ref = ?", (workspace, ref)).fetchone()
            if row is None:
                return False
            old = conn.execute("SELECT text, reason, tags, citation FROM memory_terms WHERE id = ?",
                               (row["id"],)).fetchone()  # fmt: skip
            if old is not None:
                memory_search.stats_add(conn, [str(v) for v in old], -1)
                conn.execute("DELETE FROM memory_terms WHERE id = ?", (row["id"],))
            conn.execute("DELETE FROM memory_events WHERE ref = ?", (ref,))
            conn.execute("DELETE FROM memory_uses WHERE ref = ?", (ref,))
            conn.execute("DELETE FROM memory_placements WHERE workspace = ? AND ref = ?", (workspace, ref))
            conn.execute("DELETE FROM memory_deliveries WHERE workspace = ? AND ref = ?", (workspace, ref))
            conn.execute("DELETE FROM decision_docs WHERE workspace = ? AND memory_ref = ?", (workspace, ref))
            conn.execute("DELETE FROM reviews WHERE workspace = ? AND ' ' || refs || ' ' LIKE ?", (workspace, f"% {ref} %"))
            conn.execute("DELETE FROM memories WHERE id = ?", (row["id"],))
        return True

    def add_tombstone(self, workspace: str, kind: str, key: str, digest: str, at: datetime) -> bool:
        """Leave a tombstone; False when one was there already."""
        return self.db.execute("INSERT INTO tombstones (workspace, kind, key, digest, at) VALUES (?, ?, ?, ?, ?)"
                        " ON CONFLICT (workspace, kind, key) DO NOTHING", (workspace, kind, key, digest, to_iso(at))).rowcount > 0

    def tombstones(self, workspace: str) -> list[Tombstone]:
        rows = self.db.query("SELECT * FROM tombstones WHERE workspace = ? ORDER BY at, kind, key", (workspace,))
        return [Tombstone(r["workspace"], r["kind"], r["key"], r["digest"], from_iso(r["at"])) for r in rows]
