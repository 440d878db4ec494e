"""PostgreSQL implementation of :class:`kenning.store.protocol.MemoryStore`.

Every statement names its workspace, and runs in a transaction bound to it (row-level
security, :mod:`kenning.store.postgres.rls`). The calls of the protocol that name no workspace
(a memory by its ref, the index statistics, meta) act in the database's bound workspace; on
an unbound database (the schema owner's view: the local store, admin tools, the contract
suite) they look across workspaces, as the SQLite store does in its one file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from functools import partial
from typing import Any

from kenning.clock import to_iso
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
from kenning.store.indexing import index_fields, weighted_terms
from kenning.store.memory_rows import Decoders, decision_doc_of, memory_of, review_of, scope_of
from kenning.store.postgres import memory_search
from kenning.store.postgres.db import Database, Row
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

_COLUMNS = [
    "ref", "workspace", "scope", "text", "kind", "reason", "rejected", "trigger", "confidence", "status",
    "status_at", "status_note", "subject", "origin", "origin_tool", "session", "branch", "pinned",
    "index_pinned", "hidden", "held", "protected", "source_ref", "source_hash", "citation", "tags",
    "created_at", "confirmed_at", "last_used_at", "uses", "confirmations", "recalled",
]  # fmt: skip
_INDEXED = ("text", "reason", "rejected", "tags", "subject", "trigger", "source_ref")


PAGE = 500  # rows per read of a paged walk


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo is UTC else value.astimezone(UTC)


# Rows read back through the shared mappers (kenning.store.memory_rows): times are timestamptz
# here, tags and refs text[].
DECODE = Decoders(time=_utc, words=tuple)
_row_to_memory = partial(memory_of, decode=DECODE)
_row_to_doc = partial(decision_doc_of, decode=DECODE)
_row_to_review = partial(review_of, decode=DECODE)
_scope = partial(scope_of, decode=DECODE)


def _memory_values(m: Memory) -> list[object]:
    return [
        m.ref, m.workspace, m.scope, m.text, m.kind.value, m.reason, m.rejected,
        m.trigger.to_text() if m.trigger else None, m.confidence, m.status.value, m.status_at, m.status_note,
        m.subject, m.origin.value, m.origin_tool, m.session, m.branch, m.pinned, m.index_pinned, m.hidden,
        m.held, m.protected, m.source_ref, m.source_hash, m.citation.value, list(m.tags), m.created_at,
        m.confirmed_at, m.last_used_at, m.uses, m.confirmations, m.recalled,
    ]  # fmt: skip


def _term_values(m: Memory) -> list[str]:
    return index_fields(
        m.text, m.reason, m.rejected, m.tags, m.subject, m.trigger.pattern if m.trigger else "", m.source_ref
    )


def _indexed(m: Memory) -> tuple[object, ...]:
    return (m.text, m.reason, m.rejected, list(m.tags), m.subject, m.trigger.to_text() if m.trigger else None,
            m.source_ref)  # fmt: skip


class PostgresMemoryStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        # On a database that lives inside one transaction (a team server's request), the
        # statistics read so far: a recall asks for them three to five times (its words, their
        # expansions, the feedback words, the search), a round trip each. Any write of the
        # index forgets them (see _pending).
        self._seen = memory_search.SeenStats()

    def transaction(self) -> AbstractContextManager[object]:
        return self.db.transaction()

    def _pending(self) -> memory_search.Pending:
        """The statistics changes of the current transaction, written just before it commits."""
        self._seen.forget()
        state = self.db.state()
        pending: memory_search.Pending | None = state.get("memory_stats")
        if pending is None:
            pending = state["memory_stats"] = memory_search.Pending()
            self.db.before_commit("memory_stats", pending.flush)
        return pending

    def _stats(self, terms: Sequence[str]) -> memory_search.Stats:
        with self._reading() as cur:
            return self._term_stats(cur, terms)

    def _term_stats(self, cur: Any, terms: Sequence[str]) -> memory_search.Stats:
        if not self.db.one_transaction:
            return memory_search.term_stats(cur, self.db.workspace, terms)
        missing = self._seen.missing(terms)
        if missing is not None:
            self._seen.learn(missing, memory_search.term_stats(cur, self.db.workspace, missing))
        return self._seen.of(terms)

    @contextmanager
    def _reading(self, workspace: str | None = None) -> Iterator[Any]:
        """A cursor for reads of the index (see Database.reading); inside a transaction, after
        its pending statistics are written."""
        with self.db.reading(workspace) as cur:
            if self.db.in_transaction():
                pending = self.db.state().get("memory_stats")
                if pending is not None:
                    pending.flush(cur)
            yield cur

    # The workspace a call that names none acts in, as a clause over ``alias`` (nothing on an
    # unbound database: the owner sees every workspace, as SQLite does).
    def _mine(self, alias: str = "") -> tuple[str, dict[str, object]]:
        if self.db.workspace is None:
            return "", {}
        return f" AND {alias + '.' if alias else ''}workspace = %(bound)s", {"bound": self.db.workspace}

    # -- scopes -------------------------------------------------------------------------
    def upsert_scope(self, scope: ScopeRow) -> None:
        self.db.execute(
            "INSERT INTO scopes (workspace, key, kind, name, root, parent, created_at, removed_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (workspace, key) DO UPDATE SET kind = excluded.kind, name = excluded.name,"
            " root = CASE WHEN excluded.root != '' THEN excluded.root ELSE scopes.root END,"
            " parent = CASE WHEN excluded.parent != '' THEN excluded.parent ELSE scopes.parent END,"
            " removed_at = excluded.removed_at",
            (scope.workspace, scope.key, scope.kind, scope.name, scope.root, scope.parent, scope.created_at,
             scope.removed_at),
            workspace=scope.workspace,
        )  # fmt: skip

    def get_scope(self, workspace: str, key: str) -> ScopeRow | None:
        row = self.db.one(
            "SELECT * FROM scopes WHERE workspace = %s AND key = %s", (workspace, key), workspace=workspace
        )
        return _scope(row) if row else None

    def list_scopes(self, workspace: str) -> list[ScopeRow]:
        rows = self.db.query("SELECT * FROM scopes WHERE workspace = %s ORDER BY key", (workspace,), workspace=workspace)
        return [_scope(r) for r in rows]

    # -- memories -----------------------------------------------------------------------
    def insert(self, memory: Memory) -> None:
        memory = guarded(memory)
        with self.db.transaction(memory.workspace) as cur:
            row = cur.execute(
                f"INSERT INTO memories ({', '.join(_COLUMNS)}) VALUES ({', '.join('%s' for _ in _COLUMNS)})"
                " RETURNING id".encode(),
                _memory_values(memory),
            ).fetchone()
            assert row is not None
            memory_search.index_add(cur, self._pending(), memory.workspace, row["id"], _term_values(memory))

    def update(self, memory: Memory) -> None:
        memory = guarded(memory)
        mine, bound = self._mine()
        with self.db.transaction(memory.workspace) as cur:
            row = cur.execute(
                f"SELECT workspace, id, {', '.join(_INDEXED)} FROM memories WHERE ref = %(ref)s{mine}"
                " ORDER BY workspace LIMIT 1".encode(),
                {"ref": memory.ref, **bound},
            ).fetchone()
            if row is None:
                raise KeyError(memory.ref)
            moved = row["workspace"] != memory.workspace
            reindex = moved or tuple(row[c] for c in _INDEXED) != _indexed(memory)
            if reindex:
                memory_search.index_remove(cur, self._pending(), row["workspace"], row["id"])
            sets = ", ".join(f"{c} = %s" for c in _COLUMNS[1:])
            cur.execute(
                f"UPDATE memories SET {sets} WHERE workspace = %s AND id = %s".encode(),
                [*_memory_values(memory)[1:], row["workspace"], row["id"]],
            )
            if reindex:
                # A memory moved to another workspace took its terms row along (ON UPDATE CASCADE).
                memory_search.index_add(cur, self._pending(), memory.workspace, row["id"], _term_values(memory), insert=False)

    def get(self, workspace: str, ref: str) -> Memory | None:
        row = self.db.one("SELECT * FROM memories WHERE workspace = %s AND ref = %s", (workspace, ref),
                          workspace=workspace)  # fmt: skip
        return _row_to_memory(row) if row else None

    def get_many(self, workspace: str, refs: Sequence[str]) -> list[Memory]:
        if not refs:
            return []
        rows = self.db.query("SELECT * FROM memories WHERE workspace = %s AND ref = ANY(%s)", (workspace, list(refs)),
                             workspace=workspace)  # fmt: skip
        by_ref = {r["ref"]: _row_to_memory(r) for r in rows}
        return [by_ref[r] for r in refs if r in by_ref]

    def by_subject(self, workspace: str, scopes: Sequence[str], subject: str) -> list[Memory]:
        rows = self.db.query(
            "SELECT * FROM memories WHERE workspace = %s AND scope = ANY(%s) AND subject = %s"
            " AND status = 'active' ORDER BY created_at, id",
            (workspace, list(scopes), subject),
            workspace=workspace,
        )
        return [_row_to_memory(r) for r in rows]

    def subjects(self, workspace: str, scopes: Sequence[str], kind: Kind) -> list[str]:
        rows = self.db.query(
            "SELECT DISTINCT subject FROM memories WHERE workspace = %s AND scope = ANY(%s)"
            " AND kind = %s AND subject != '' AND status = 'active'",
            (workspace, list(scopes), kind.value),
            workspace=workspace,
        )
        return [r["subject"] for r in rows]

    @staticmethod
    def _where(flt: MemoryFilter, alias: str = "") -> tuple[str, dict[str, object]]:
        p = f"{alias}." if alias else ""
        clauses = [f"{p}workspace = %(f_ws)s", f"{p}scope = ANY(%(f_scopes)s)"]
        params: dict[str, object] = {"f_ws": flt.workspace, "f_scopes": list(flt.scopes)}
        if flt.statuses:
            clauses.append(f"{p}status = ANY(%(f_statuses)s)")
            params["f_statuses"] = [s.value for s in flt.statuses]
        if flt.kinds:
            clauses.append(f"{p}kind = ANY(%(f_kinds)s)")
            params["f_kinds"] = [k.value for k in flt.kinds]
        if flt.session is not None:
            clauses.append(f"{p}session = %(f_session)s")
            params["f_session"] = flt.session
        if flt.with_trigger is True:
            clauses.append(f"{p}trigger IS NOT NULL")
        elif flt.with_trigger is False:
            clauses.append(f"{p}trigger IS NULL")
        if flt.source_ref_like is not None:
            # As SQLite's LIKE: letters match either case, and no escape character.
            clauses.append(f"{p}source_ref ILIKE %(f_like)s ESCAPE ''")
            params["f_like"] = flt.source_ref_like
        if flt.origins:
            clauses.append(f"{p}origin = ANY(%(f_origins)s)")
            params["f_origins"] = [o.value for o in flt.origins]
        if flt.origin_tools:
            clauses.append(f"{p}origin_tool = ANY(%(f_tools)s)")
            params["f_tools"] = list(flt.origin_tools)
        if flt.idle_before is not None:
            clauses.append(f"{p}created_at < %(f_idle)s AND {p}confirmed_at < %(f_idle)s AND ({p}last_used_at IS NULL"
                           f" OR {p}last_used_at < %(f_idle)s) AND NOT {p}pinned AND NOT {p}index_pinned")  # fmt: skip
            params["f_idle"] = flt.idle_before
        if flt.pinned is True:
            clauses.append(f"({p}pinned OR {p}index_pinned)")
        elif flt.pinned is False:
            clauses.append(f"NOT {p}pinned AND NOT {p}index_pinned")
        if flt.used_since is not None:
            clauses.append(f"{p}last_used_at >= %(f_used)s")
            params["f_used"] = flt.used_since
        if flt.created_since is not None:
            clauses.append(f"{p}created_at >= %(f_created)s")
            params["f_created"] = flt.created_since
        return " AND ".join(clauses), params

    def find(
        self, flt: MemoryFilter, *, offset: int = 0, limit: int | None = None, newest_first: bool = False
    ) -> list[Memory]:
        where, params = self._where(flt)
        order = "DESC" if newest_first else "ASC"
        rows = self.db.query(
            f"SELECT * FROM memories WHERE {where} ORDER BY created_at {order}, id {order}"
            " LIMIT %(limit)s OFFSET %(offset)s",
            {**params, "limit": limit, "offset": offset},
            workspace=flt.workspace,
        )
        return [_row_to_memory(r) for r in rows]

    def count(self, flt: MemoryFilter) -> int:
        where, params = self._where(flt)
        row = self.db.one(f"SELECT count(*) AS n FROM memories WHERE {where}", params, workspace=flt.workspace)
        return int(row["n"]) if row else 0

    def facet_counts(self, flt: MemoryFilter, facet: str) -> dict[str, int]:
        if facet not in FACETS:
            raise ValueError(f"no facet {facet!r}")
        where, params = self._where(flt)
        rows = self.db.query(
            f"SELECT {facet} AS value, count(*) AS n FROM memories WHERE {where} GROUP BY {facet}",
            params,
            workspace=flt.workspace,
        )
        return {str(r["value"]): int(r["n"]) for r in rows}

    def memory_scopes(self, workspace: str) -> list[str]:
        rows = self.db.query(
            "SELECT DISTINCT scope FROM memories WHERE workspace = %s ORDER BY scope", (workspace,), workspace=workspace
        )
        return [str(r["scope"]) for r in rows]

    def sessions_written(self, workspace: str, scopes: Sequence[str], *, limit: int = 200) -> list[SessionWrites]:
        rows = self.db.query(
            "SELECT session, count(*) AS n, count(*) FILTER (WHERE status = 'active') AS active,"
            " min(created_at) AS first_at, max(created_at) AS last_at FROM memories"
            " WHERE workspace = %s AND scope = ANY(%s) AND session != ''"
            " GROUP BY session ORDER BY last_at DESC, session LIMIT %s",
            (workspace, list(scopes), limit),
            workspace=workspace,
        )
        return [SessionWrites(r["session"], int(r["n"]), int(r["active"]), _utc(r["first_at"]), _utc(r["last_at"]))
                for r in rows]  # fmt: skip

    def facet_groups(self, flt: MemoryFilter, facets: Sequence[str]) -> dict[tuple[str, ...], int]:
        if not facets or any(f not in FACETS for f in facets):
            raise ValueError(f"facets must be some of {FACETS}, not {facets!r}")
        where, params = self._where(flt)
        columns = ", ".join(facets)
        rows = self.db.query(f"SELECT {columns}, count(*) AS n FROM memories WHERE {where} GROUP BY {columns}", params,
                             workspace=flt.workspace)  # fmt: skip
        return {tuple(str(r[f]) for f in facets): int(r["n"]) for r in rows}

    def glances(self, workspace: str, scope: str | None = None) -> list[Glance]:
        rows = self.db.query(
            "SELECT ref, scope, text, session, source_ref, source_hash, (cardinality(tags) > 0)::int AS tagged,"
            " recalled FROM memories WHERE workspace = %(ws)s AND (%(scope)s::text IS NULL OR scope = %(scope)s)"
            " AND status = 'active' ORDER BY id", {"ws": workspace, "scope": scope}, workspace=workspace)  # fmt: skip
        return [Glance(r["ref"], r["scope"], r["text"], r["session"], r["source_ref"], r["source_hash"], int(r["tagged"]),
                       int(r["recalled"])) for r in rows]  # fmt: skip

    def session_scopes(self, workspace: str, sessions: Sequence[str]) -> list[tuple[str, str]]:
        wanted = sorted({s for s in sessions if s})
        if not wanted:
            return []
        rows = self.db.query("SELECT DISTINCT session, scope FROM memories WHERE workspace = %s AND session != ''"
                             " AND session = ANY(%s)", (workspace, wanted), workspace=workspace)  # fmt: skip
        return [(str(r["session"]), str(r["scope"])) for r in rows]

    def revision(self, workspace: str) -> str:
        # Kept per workspace by triggers on memories and scopes (postgres memory_schema m003).
        row = self.db.one("SELECT current_database() AS db, (SELECT n FROM store_revision WHERE workspace = %s) AS n",
                          (workspace,), workspace=workspace)  # fmt: skip
        return f"{row['db'] if row else ''}:{row['n'] if row and row['n'] is not None else 0}"

    def iter_all(self, workspace: str) -> Iterator[Memory]:
        last = 0
        while True:  # by pages, so a walk over a large store holds one page of rows at a time
            rows = self.db.query("SELECT * FROM memories WHERE workspace = %s AND id > %s ORDER BY id LIMIT %s",
                                 (workspace, last, PAGE), workspace=workspace)  # fmt: skip
            yield from map(_row_to_memory, rows)
            if len(rows) < PAGE:
                return
            last = int(rows[-1]["id"])

    # -- search -------------------------------------------------------------------------
    def search(
        self, flt: MemoryFilter, terms: Sequence[str], *, limit: int, report: Sequence[str] = ()
    ) -> list[Hit]:
        unique = sorted({t for t in terms if t})
        if not unique:
            return []
        where, params = self._where(flt, "m")
        with self._reading(flt.workspace) as cur:
            stats = self._term_stats(cur, unique)
            best = memory_search.rank(cur, flt.workspace, where, params, unique, stats, limit)
            if not best:
                return []
            rows = cur.execute(
                b"SELECT * FROM memories WHERE workspace = %s AND id = ANY(%s)",
                (flt.workspace, [c.id for c in best]),
            ).fetchall()
        by_id = {r["id"]: r for r in rows}
        asked = {*unique, *report}
        hits = []
        for c in best:
            freqs, length = weighted_terms(c.fields)
            hits.append(Hit(_row_to_memory(by_id[c.id]), c.score, frozenset(freqs.keys() & asked), freqs, length))
        return hits

    # The statistics are those of the index this connection sees (every workspace for the
    # owner, as SQLite's one file; the bound workspace's under row-level security).
    def index_stats(self, workspace: str, terms: Sequence[str]) -> IndexStats:
        stats = self._stats(sorted(set(terms)))
        return IndexStats(stats.docs, stats.avgdl, stats.df)

    def doc_freq(self, workspace: str, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        stats = self._stats(sorted(set(terms)))
        return stats.docs, stats.df

    def terms_with_prefix(self, workspace: str, prefix: str, limit: int) -> list[str]:
        """Indexed terms that start with ``prefix`` (a range over the term table's key)."""
        with self._reading() as cur:
            return memory_search.terms_with_prefix(cur, self.db.workspace, prefix, limit)

    def mark_recalled(self, workspace: str, refs: Sequence[str]) -> None:
        if refs:
            mine, bound = " AND workspace = %(ws)s", {"ws": workspace}
            # A recall count lost in a crash costs nothing; waiting for the disk on every
            # recall would cost each one a flush of the write-ahead log.
            with self.db.unflushed_commit(workspace) as cur:
                cur.execute(
                    f"UPDATE memories SET recalled = recalled + 1 WHERE ref = ANY(%(refs)s){mine}".encode(),
                    {"refs": list(refs), **bound},
                )

    # -- history and use ----------------------------------------------------------------
    def add_event(self, workspace: str, event: MemoryEvent) -> None:
        """Record an event of a memory of ``workspace`` (none is written for a ref it does not hold)."""
        self.db.execute(
            "INSERT INTO memory_events (workspace, ref, at, event, detail, other_ref)"
            " SELECT workspace, ref, %(at)s, %(event)s, %(detail)s, %(other)s FROM memories"
            " WHERE workspace = %(ws)s AND ref = %(ref)s",
            {"at": event.at, "event": event.event, "detail": ensure(event.detail), "other": event.other_ref,
             "ref": event.ref, "ws": workspace}, workspace=workspace,
        )  # fmt: skip

    def events(self, workspace: str, ref: str) -> list[MemoryEvent]:
        rows = self.db.query("SELECT * FROM memory_events WHERE workspace = %s AND ref = %s ORDER BY at, id",
                             (workspace, ref), workspace=workspace)  # fmt: skip
        return [MemoryEvent(r["ref"], _utc(r["at"]), r["event"], r["detail"], r["other_ref"]) for r in rows]

    def add_use(self, workspace: str, use: UseRow) -> None:
        """Record a use of a memory of ``workspace`` (none is written for a ref it does not hold)."""
        self.db.execute(
            "INSERT INTO memory_uses (workspace, ref, session, tool, branch, at)"
            " SELECT workspace, ref, %(session)s, %(tool)s, %(branch)s, %(at)s FROM memories"
            " WHERE workspace = %(ws)s AND ref = %(ref)s",
            {"session": ensure(use.session), "tool": ensure(use.tool), "branch": ensure(use.branch), "at": use.at,
             "ref": use.ref, "ws": workspace}, workspace=workspace,
        )  # fmt: skip

    @staticmethod
    def _uses(rows: list[Row]) -> list[UseRow]:
        return [UseRow(r["ref"], r["session"], r["tool"], r["branch"], _utc(r["at"])) for r in rows]

    def uses(self, workspace: str, ref: str) -> list[UseRow]:
        return self._uses(self.db.query("SELECT * FROM memory_uses WHERE workspace = %s AND ref = %s ORDER BY at, id",
                                        (workspace, ref), workspace=workspace))  # fmt: skip

    def uses_in_session(self, workspace: str, session: str) -> list[UseRow]:
        return self._uses(self.db.query(
            "SELECT * FROM memory_uses WHERE workspace = %s AND session = %s ORDER BY at, id", (workspace, session),
            workspace=workspace))  # fmt: skip

    def all_uses(self, workspace: str) -> list[UseRow]:
        return self._uses(self.db.query("SELECT * FROM memory_uses WHERE workspace = %s ORDER BY at, id", (workspace,),
                                        workspace=workspace))  # fmt: skip

    def use_sessions(self, workspace: str, refs: Sequence[str]) -> dict[str, int]:
        if not refs:
            return {}
        rows = self.db.query(
            "SELECT ref, count(DISTINCT session) AS n FROM memory_uses WHERE workspace = %s AND ref = ANY(%s)"
            " AND session != '' GROUP BY ref", (workspace, list(refs)), workspace=workspace)  # fmt: skip
        return {r["ref"]: int(r["n"]) for r in rows}

    def uses_since(self, workspace: str, since: datetime, until: datetime | None = None) -> list[UseRow]:
        window = " AND at < %(until)s" if until is not None else ""
        return self._uses(self.db.query(
            f"SELECT * FROM memory_uses WHERE workspace = %(ws)s AND at >= %(since)s{window} ORDER BY at, id",
            {"ws": workspace, "since": since, "until": until}, workspace=workspace,
        ))  # fmt: skip

    # -- placements ---------------------------------------------------------------------
    def add_placement(self, placement: Placement) -> bool:
        return (
            self.db.execute(
                "INSERT INTO memory_placements (workspace, ref, decision, place, created_at, by)"
                " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (placement.workspace, placement.ref, placement.decision.value, placement.place,
                 placement.created_at, ensure(placement.by)),
                workspace=placement.workspace,
            )  # fmt: skip
            > 0
        )

    def remove_placement(self, workspace: str, ref: str, decision: Placing, place: str) -> bool:
        return (
            self.db.execute(
                "DELETE FROM memory_placements WHERE workspace = %s AND ref = %s AND decision = %s AND place = %s",
                (workspace, ref, decision.value, place),
                workspace=workspace,
            )
            > 0
        )

    @staticmethod
    def _placements(rows: list[Row]) -> list[Placement]:
        return [Placement(r["ref"], r["workspace"], Placing(r["decision"]), r["place"], _utc(r["created_at"]),
                          r["by"]) for r in rows]  # fmt: skip

    def placements(self, workspace: str, refs: Sequence[str]) -> list[Placement]:
        if not refs:
            return []
        return self._placements(self.db.query(
            "SELECT * FROM memory_placements WHERE workspace = %s AND ref = ANY(%s)"
            " ORDER BY created_at, ref, decision, place",
            (workspace, list(refs)), workspace=workspace,
        ))  # fmt: skip

    def placed(self, workspace: str, decision: Placing, places: Sequence[str]) -> list[Placement]:
        if not places:
            return []
        return self._placements(self.db.query(
            "SELECT * FROM memory_placements WHERE workspace = %s AND decision = %s AND place = ANY(%s)"
            " ORDER BY created_at, ref, place",
            (workspace, decision.value, list(places)), workspace=workspace,
        ))  # fmt: skip

    # -- decision docs ------------------------------------------------------------------
    def save_decision_doc(self, doc: DecisionDoc) -> DecisionDoc:
        values = {
            "workspace": doc.workspace, "scope": doc.scope, "title": ensure(doc.title),
            "decision": ensure(doc.decision), "reason": ensure(doc.reason), "rejected": ensure(doc.rejected),
            "confidence": doc.confidence, "source_ref": doc.source_ref,
            "outcome": json.dumps([ensure(line) for line in doc.outcome]), "memory_ref": doc.memory_ref,
            "author": doc.author, "area": doc.area, "created_at": doc.created_at, "updated_at": doc.updated_at,
        }  # fmt: skip
        if doc.id:
            mine, bound = self._mine()
            self.db.execute(
                f"UPDATE decision_docs SET {', '.join(f'{c} = %({c})s' for c in values)}"
                f" WHERE id = %(id)s{mine}",
                {**values, "id": doc.id, **bound},
                workspace=doc.workspace,
            )
            return doc
        row = self.db.one(
            f"INSERT INTO decision_docs ({', '.join(values)}) VALUES ({', '.join(f'%({c})s' for c in values)})"
            " RETURNING *",
            values,
            workspace=doc.workspace,
        )
        assert row is not None
        return _row_to_doc(row)

    def decision_doc(self, workspace: str, scope: str, title: str, author: str) -> DecisionDoc | None:
        row = self.db.one(
            "SELECT * FROM decision_docs WHERE workspace = %s AND scope = %s AND title = %s AND author = %s",
            (workspace, scope, title, author),
            workspace=workspace,
        )
        return _row_to_doc(row) if row else None

    def decision_doc_by_id(self, workspace: str, doc_id: int) -> DecisionDoc | None:
        row = self.db.one("SELECT * FROM decision_docs WHERE workspace = %s AND id = %s", (workspace, doc_id),
                          workspace=workspace)  # fmt: skip
        return _row_to_doc(row) if row else None

    def decision_doc_for(self, workspace: str, ref: str) -> DecisionDoc | None:
        row = self.db.one("SELECT * FROM decision_docs WHERE workspace = %s AND memory_ref = %s ORDER BY id DESC LIMIT 1",
                          (workspace, ref), workspace=workspace)  # fmt: skip
        return _row_to_doc(row) if row else None

    def outcomes(self, workspace: str, refs: Sequence[str]) -> dict[str, tuple[str, ...]]:
        if not refs:
            return {}
        rows = self.db.query("SELECT memory_ref, outcome FROM decision_docs WHERE workspace = %s AND memory_ref = ANY(%s)"
                             " ORDER BY id", (workspace, list(refs)), workspace=workspace)  # fmt: skip
        found: dict[str, tuple[str, ...]] = {}
        for r in rows:
            outcome = r["outcome"] if isinstance(r["outcome"], list) else json.loads(r["outcome"])
            found[r["memory_ref"]] = found.get(r["memory_ref"], ()) + tuple(stored(line) for line in outcome)
        return found

    def decision_docs(self, workspace: str, scopes: Sequence[str]) -> list[DecisionDoc]:
        rows = self.db.query(
            "SELECT * FROM decision_docs WHERE workspace = %s AND scope = ANY(%s) ORDER BY updated_at DESC, id",
            (workspace, list(scopes)),
            workspace=workspace,
        )
        return [_row_to_doc(r) for r in rows]

    # -- needs review -------------------------------------------------------------------
    def add_review(self, item: ReviewItem) -> ReviewItem:
        row = self.db.one(
            "INSERT INTO reviews (workspace, scope, kind, payload, refs, proposed_by, created_at, resolved_at,"
            " resolution, batch) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING *",
            (item.workspace, item.scope, item.kind, json.dumps(guarded_payload(item.payload)), list(item.refs),
             item.proposed_by, item.created_at, item.resolved_at, item.resolution, item.batch),
            workspace=item.workspace,
        )  # fmt: skip
        assert row is not None
        return _row_to_review(row)

    def review(self, workspace: str, review_id: int) -> ReviewItem | None:
        row = self.db.one("SELECT * FROM reviews WHERE workspace = %s AND id = %s", (workspace, review_id),
                          workspace=workspace)  # fmt: skip
        return _row_to_review(row) if row else None

    def open_reviews(self, workspace: str, scope: str) -> int:
        row = self.db.one("SELECT count(*) AS n FROM reviews WHERE workspace = %s AND scope = %s AND resolved_at IS NULL",
                          (workspace, scope), workspace=workspace)  # fmt: skip
        return int(row["n"]) if row else 0

    # -- what the hooks deliver -----------------------------------------------------------
    def trigger_rows(self, workspace: str) -> list[TriggerRow]:
        rows = self.db.query(
            "SELECT ref, trigger, source_ref, kind, workspace, scope, created_at, id FROM memories"
            " WHERE workspace = %s AND status = 'active' AND NOT hidden AND NOT held AND citation != 'gone'"
            " AND (trigger IS NOT NULL OR (source_ref != '' AND kind IN ('lesson', 'decision'))) ORDER BY id",
            (workspace,), workspace=workspace)  # fmt: skip
        return [TriggerRow(r["ref"], r["trigger"], r["source_ref"], Kind(r["kind"]), r["workspace"], r["scope"],
                           to_iso(_utc(r["created_at"])), int(r["id"])) for r in rows]  # fmt: skip

    def tidy_counts(self, workspace: str, scope: str, rest_cutoff: datetime) -> TidyCounts:
        row = self.db.one(
            "SELECT count(*) FILTER (WHERE kind = 'preference' OR pinned OR index_pinned OR created_at >= %(cut)s"
            " OR confirmed_at >= %(cut)s OR coalesce(last_used_at >= %(cut)s, false)) AS awake,"
            " count(*) FILTER (WHERE kind IN ('preference', 'decision')) AS pd,"
            " count(*) FILTER (WHERE kind = 'lesson' AND trigger IS NOT NULL) AS lessons"
            " FROM memories WHERE workspace = %(ws)s AND scope = %(scope)s AND status = 'active'",
            {"cut": rest_cutoff, "ws": workspace, "scope": scope}, workspace=workspace)  # fmt: skip
        return TidyCounts(int(row["awake"]), int(row["pd"]), int(row["lessons"])) if row else TidyCounts(0, 0, 0)

    def reviews(self, workspace: str, scopes: Sequence[str], *, open_only: bool = True) -> list[ReviewItem]:
        extra = " AND resolved_at IS NULL" if open_only else ""
        rows = self.db.query(
            f"SELECT * FROM reviews WHERE workspace = %s AND scope = ANY(%s){extra} ORDER BY id",
            (workspace, list(scopes)),
            workspace=workspace,
        )
        return [_row_to_review(r) for r in rows]

    def update_review(self, item: ReviewItem) -> None:
        self.db.execute(
            "UPDATE reviews SET payload = %s, resolved_at = %s, resolution = %s, batch = %s"
            " WHERE workspace = %s AND id = %s",
            (json.dumps(guarded_payload(item.payload)), item.resolved_at, item.resolution, item.batch,
             item.workspace, item.id),
            workspace=item.workspace,
        )  # fmt: skip

    # -- policies and meta --------------------------------------------------------------
    def set_policy(self, workspace: str, scope: str, setting: str, value: str, at: datetime) -> None:
        self.db.execute(
            "INSERT INTO policies (workspace, scope, setting, value, set_at) VALUES (%s, %s, %s, %s, %s)"
            " ON CONFLICT (workspace, scope, setting) DO UPDATE SET value = excluded.value, set_at = excluded.set_at",
            (workspace, scope, setting, value, at),
            workspace=workspace,
        )

    def clear_policy(self, workspace: str, scope: str, setting: str) -> None:
        self.db.execute(
            "DELETE FROM policies WHERE workspace = %s AND scope = %s AND setting = %s",
            (workspace, scope, setting),
            workspace=workspace,
        )

    def policies(self, workspace: str, scope: str) -> dict[str, str]:
        rows = self.db.query(
            "SELECT setting, value FROM policies WHERE workspace = %s AND scope = %s",
            (workspace, scope),
            workspace=workspace,
        )
        return {r["setting"]: r["value"] for r in rows}

    # Meta is per workspace: a bound database's own; unbound, the workspace the connection's
    # role is bound to, else the empty one (the owner's, as SQLite keeps one set per file).
    def get_meta(self, workspace: str, key: str) -> str | None:
        row = self.db.one("SELECT value FROM meta WHERE workspace = %s AND key = %s", (workspace, key),
                          workspace=workspace)  # fmt: skip
        return str(row["value"]) if row else None

    def set_meta(self, workspace: str, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO meta (workspace, key, value) VALUES (%s, %s, %s)"
            " ON CONFLICT (workspace, key) DO UPDATE SET value = excluded.value",
            (workspace, key, value), workspace=workspace,
        )

    # -- erasure --------------------------------------------------------------------------
    def delete(self, workspace: str, ref: str) -> bool:
        """Delete a memory for real: its row, its postings and their statistics, its history,
        uses and placements, what the hooks delivered of it, its decision doc, and the review
        items that name it."""
        with self.db.transaction(workspace) as cur:
            row = cur.execute(b"SELECT workspace, id FROM memories WHERE workspace = %s AND ref = %s",
                              (workspace, ref)).fetchone()  # fmt: skip
            if row is None:
                return False
            ws, memory = row["workspace"], row["id"]
            memory_search.index_remove(cur, self._pending(), ws, memory)
            for table, column in (("memory_events", "ref"), ("memory_uses", "ref"), ("memory_placements", "ref"),
                                  ("memory_deliveries", "ref"), ("decision_docs", "memory_ref")):  # fmt: skip
                cur.execute(f"DELETE FROM {table} WHERE workspace = %s AND {column} = %s".encode(), (ws, ref))
            cur.execute(b"DELETE FROM reviews WHERE workspace = %s AND %s = ANY(refs)", (ws, ref))
            # The terms row and the postings go with it (ON DELETE CASCADE).
            cur.execute(b"DELETE FROM memories WHERE workspace = %s AND id = %s", (ws, memory))
        return True

    def add_tombstone(self, workspace: str, kind: str, key: str, digest: str, at: datetime) -> bool:
        """Leave a tombstone; False when one was there already."""
        return (
            self.db.execute(
                "INSERT INTO tombstones (workspace, kind, key, digest, at) VALUES (%s, %s, %s, %s, %s)"
                " ON CONFLICT (workspace, kind, key) DO NOTHING",
                (workspace, kind, key, digest, at),
                workspace=workspace,
            )
            > 0
        )

    def tombstones(self, workspace: str) -> list[Tombstone]:
        rows = self.db.query(
            "SELECT * FROM tombstones WHERE workspace = %s ORDER BY at, kind, key", (workspace,), workspace=workspace
        )
        return [Tombstone(r["workspace"], r["kind"], r["key"], r["digest"], _utc(r["at"])) for r in rows]
