"""PostgreSQL implementation of :class:`kenning.store.protocol.GraphStore`.

Statement for statement the SQLite store's (:mod:`kenning.store.sqlite.graph_store`), with the
same explicit orders and ties, so both engines answer every question with the same rows in the
same order. Every call runs in the workspace it names (row-level security,
:mod:`kenning.store.postgres.rls`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager

from kenning.redacted import Redacted, ensure
from kenning.store.graph_rows import FACTS_SELECT, entity_of, escape_like, fact_of
from kenning.store.postgres.db import Database
from kenning.store.protocol.graph import EntityRow, FactRow

PAGE = 500  # rows per read of a paged walk


class PostgresGraphStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def transaction(self) -> AbstractContextManager[object]:
        return self.db.transaction()

    # -- entities --------------------------------------------------------------------------
    def ensure_entity(self, workspace: str, entity_id: str, name: Redacted, type_: str, now: str) -> None:
        self.db.execute(
            "INSERT INTO graph_entities (workspace, id, name, type, created_at) VALUES (%s, %s, %s, %s, %s)"
            " ON CONFLICT (workspace, id) DO UPDATE SET type = CASE WHEN graph_entities.type = 'unknown'"
            " THEN excluded.type ELSE graph_entities.type END",
            (workspace, ensure(entity_id), ensure(name), type_ or "unknown", now), workspace=workspace,
        )  # fmt: skip

    def entity(self, workspace: str, entity_id: str) -> EntityRow | None:
        row = self.db.one("SELECT * FROM graph_entities WHERE workspace = %s AND id = %s", (workspace, entity_id),
                          workspace=workspace)  # fmt: skip
        return entity_of(row) if row else None

    def entities_named(self, workspace: str, name: str) -> list[str]:
        # SQLite's lower() and LIKE fold ASCII letters only; so do lower() and ILIKE under the
        # "C" collation the columns have.
        rows = self.db.query(
            "SELECT id FROM graph_entities WHERE workspace = %s AND (lower(name) = %s OR id ILIKE %s ESCAPE '\\')"
            " ORDER BY id", (workspace, name, "%/" + escape_like(name)), workspace=workspace)  # fmt: skip
        return [str(r["id"]) for r in rows]

    def entities(self, workspace: str) -> list[EntityRow]:
        rows = self.db.query("SELECT * FROM graph_entities WHERE workspace = %s ORDER BY id", (workspace,),
                             workspace=workspace)  # fmt: skip
        return [entity_of(r) for r in rows]

    # -- facts -----------------------------------------------------------------------------
    def get(self, workspace: str, fact_id: int) -> FactRow | None:
        row = self.db.one(FACTS_SELECT + " WHERE f.workspace = %s AND f.id = %s", (workspace, fact_id), workspace=workspace)
        return fact_of(row) if row else None

    def insert(self, row: FactRow) -> int:
        got = self.db.one(
            "INSERT INTO graph_facts (workspace, project, subject, predicate, object, object_kind, area, valid_from,"
            " valid_to, confidence, origin, session, memory_ref, person, evidence, created_at, ended_by)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (row.workspace, row.project, ensure(row.subject), row.predicate, ensure(row.object), row.object_kind,
             row.area, row.valid_from, row.valid_to, row.confidence, row.origin, row.session, row.memory_ref,
             row.person, ensure(row.evidence), row.created_at, row.ended_by),
            workspace=row.workspace,
        )  # fmt: skip
        return int(got["id"]) if got else 0

    def close(self, workspace: str, fact_id: int, valid_to: str, ended_by: int | None) -> None:
        self.db.execute(
            "UPDATE graph_facts SET valid_to = %s, ended_by = %s"
            " WHERE workspace = %s AND id = %s AND valid_to IS NULL",
            (valid_to, ended_by, workspace, fact_id), workspace=workspace)  # fmt: skip

    def set_ended_by(self, workspace: str, fact_id: int, ended_by: int) -> None:
        self.db.execute("UPDATE graph_facts SET ended_by = %s WHERE workspace = %s AND id = %s",
                        (ended_by, workspace, fact_id), workspace=workspace)  # fmt: skip

    def same_fact(self, workspace: str, subject: str, predicate: str, obj: str, area: str) -> list[FactRow]:
        rows = self.db.query(
            FACTS_SELECT + " WHERE f.workspace = %s AND f.subject = %s AND f.predicate = %s AND f.object = %s"
            " AND f.area = %s ORDER BY f.valid_from, f.id", (workspace, subject, predicate, obj, area),
            workspace=workspace)  # fmt: skip
        return [fact_of(r) for r in rows]

    def current_in_slot(self, workspace: str, subject: str, predicate: str, area: str) -> list[FactRow]:
        rows = self.db.query(
            FACTS_SELECT + " WHERE f.workspace = %s AND f.subject = %s AND f.predicate = %s AND f.area = %s"
            " AND f.valid_to IS NULL ORDER BY f.valid_from, f.id", (workspace, subject, predicate, area),
            workspace=workspace)  # fmt: skip
        return [fact_of(r) for r in rows]

    def find_facts(self, workspace: str, subject: str, predicate: str, obj: str, area: str,
                   valid_from: str) -> list[int]:  # fmt: skip
        rows = self.db.query("SELECT id FROM graph_facts WHERE workspace = %s AND subject = %s AND predicate = %s"
                             " AND object = %s AND area = %s AND valid_from = %s ORDER BY id",
                             (workspace, subject, predicate, obj, area, valid_from), workspace=workspace)  # fmt: skip
        return [int(r["id"]) for r in rows]

    def query(self, workspace: str, entity: str, *, predicate: str = "", as_of: str = "", direction: str = "both",
              project: str = "", limit: int = 200) -> list[FactRow]:  # fmt: skip
        sides = {"out": ["f.subject = %s"], "in": ["(f.object = %s AND f.object_kind = 'entity')"]}
        parts = sides.get(direction) or sides["out"] + sides["in"]
        results: list[FactRow] = []
        # One query per side, each on its own index, and merged as SQLite's store merges them
        # (a fact about an entity and itself comes back from both sides, there as here).
        for side in parts:
            where, params = ["f.workspace = %s", side], [workspace, entity]
            if predicate:
                where.append("f.predicate = %s")
                params.append(predicate)
            if as_of:
                where.append("f.valid_from <= %s AND (f.valid_to IS NULL OR f.valid_to > %s)")
                params += [as_of, as_of]
            if project:
                where.append("f.project = %s")
                params.append(project)
            sql = FACTS_SELECT + f" WHERE {' AND '.join(where)} ORDER BY f.valid_from DESC, f.id DESC LIMIT %s"
            results += [fact_of(r) for r in self.db.query(sql, [*params, limit], workspace=workspace)]
        results.sort(key=lambda f: (f.valid_from, f.id), reverse=True)
        return results[:limit]

    def timeline(self, workspace: str, entity: str, limit: int = 500) -> list[FactRow]:
        facts = self.query(workspace, entity, limit=limit)
        return sorted(facts, key=lambda f: (f.valid_from, f.id))

    def current_facts(self, workspace: str, project: str, *, predicates: tuple[str, ...] = (),
                      exclude: tuple[str, ...] = (), min_confidence: float = 0.0, limit: int = 50) -> list[FactRow]:  # fmt: skip
        where = ["f.workspace = %s", "f.project = %s", "f.valid_to IS NULL", "f.confidence >= %s"]
        params: list[object] = [workspace, project, min_confidence]
        if predicates:
            where.append("f.predicate = ANY(%s)")
            params.append(list(predicates))
        if exclude:
            where.append("NOT (f.predicate = ANY(%s))")
            params.append(list(exclude))
        sql = FACTS_SELECT + f" WHERE {' AND '.join(where)} ORDER BY f.valid_from DESC, f.id DESC LIMIT %s"
        return [fact_of(r) for r in self.db.query(sql, [*params, limit], workspace=workspace)]

    def all_facts(self, workspace: str) -> list[FactRow]:
        rows = self.db.query(FACTS_SELECT + " WHERE f.workspace = %s ORDER BY f.id", (workspace,), workspace=workspace)
        return [fact_of(r) for r in rows]

    def iter_facts(self, workspace: str) -> Iterator[FactRow]:
        last = 0
        while True:
            rows = self.db.query(FACTS_SELECT + " WHERE f.workspace = %s AND f.id > %s ORDER BY f.id LIMIT %s",
                                 (workspace, last, PAGE), workspace=workspace)  # fmt: skip
            yield from map(fact_of, rows)
            if len(rows) < PAGE:
                return
            last = int(rows[-1]["id"])

    def count(self, workspace: str) -> int:
        row = self.db.one("SELECT count(*) AS n FROM graph_facts WHERE workspace = %s", (workspace,),
                          workspace=workspace)  # fmt: skip
        return int(row["n"]) if row else 0

    def count_facts(self, workspace: str, *, memory_ref: str = "", session: str = "") -> int:
        column, value = ("memory_ref", memory_ref) if memory_ref else ("session", session)
        if not value:
            return 0
        row = self.db.one(f"SELECT count(*) AS n FROM graph_facts WHERE workspace = %s AND {column} = %s",
                          (workspace, value), workspace=workspace)  # fmt: skip
        return int(row["n"]) if row else 0

    def delete_facts(self, workspace: str, *, memory_ref: str = "", session: str = "") -> int:
        column, value = ("memory_ref", memory_ref) if memory_ref else ("session", session)
        if not value:
            return 0
        with self.db.transaction(workspace) as cur:
            ids = [int(r["id"]) for r in cur.execute(
                f"SELECT id FROM graph_facts WHERE workspace = %s AND {column} = %s".encode(), (workspace, value))]  # fmt: skip
            cur.execute(b"UPDATE graph_facts SET ended_by = NULL WHERE workspace = %s AND ended_by = ANY(%s)",
                        (workspace, ids))  # fmt: skip
            cur.execute(b"DELETE FROM graph_facts WHERE workspace = %s AND id = ANY(%s)", (workspace, ids))
            # An entity only those facts named goes with them (its name came from the same text).
            cur.execute(
                b"DELETE FROM graph_entities e WHERE e.workspace = %s"
                b" AND NOT EXISTS (SELECT 1 FROM graph_facts f WHERE f.workspace = e.workspace AND f.subject = e.id)"
                b" AND NOT EXISTS (SELECT 1 FROM graph_facts f WHERE f.workspace = e.workspace AND f.object = e.id"
                b" AND f.object_kind = 'entity')", (workspace,))  # fmt: skip
        return len(ids)

    # -- progress of extraction / escalation -----------------------------------------------
    def progress(self, workspace: str, session: str, kind: str) -> int:
        row = self.db.one("SELECT last_turn FROM graph_progress WHERE workspace = %s AND session = %s AND kind = %s",
                          (workspace, session, kind), workspace=workspace)  # fmt: skip
        return int(row["last_turn"]) if row else 0

    def progress_of(self, workspace: str, kind: str) -> dict[str, int]:
        rows = self.db.query("SELECT session, last_turn FROM graph_progress WHERE workspace = %s AND kind = %s"
                             " ORDER BY session", (workspace, kind), workspace=workspace)  # fmt: skip
        return {str(r["session"]): int(r["last_turn"]) for r in rows}

    def set_progress(self, workspace: str, session: str, kind: str, last_turn: int, now: str) -> None:
        self.db.execute(
            "INSERT INTO graph_progress (workspace, session, kind, last_turn, updated_at) VALUES (%s, %s, %s, %s, %s)"
            " ON CONFLICT (workspace, session, kind) DO UPDATE SET last_turn = excluded.last_turn,"
            " updated_at = excluded.updated_at", (workspace, session, kind, last_turn, now), workspace=workspace)  # fmt: skip

    def forget_progress(self, workspace: str, session: str) -> None:
        self.db.execute("DELETE FROM graph_progress WHERE workspace = %s AND session = %s", (workspace, session),
                        workspace=workspace)  # fmt: skip
