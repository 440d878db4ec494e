"""SQLite implementation of :class:`kenning.store.protocol.GraphStore`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager

from kenning.redacted import Redacted, ensure
from kenning.store.graph_rows import FACTS_SELECT, entity_of, escape_like, fact_of
from kenning.store.protocol.graph import EntityRow, FactRow
from kenning.store.sqlite.db import Database

PAGE = 500  # rows per read of a paged walk


class SqliteGraphStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def transaction(self) -> AbstractContextManager[object]:
        return self.db.transaction()

    # -- entities --------------------------------------------------------------------------
    def ensure_entity(self, workspace: str, entity_id: str, name: Redacted, type_: str, now: str) -> None:
        self.db.execute(
            "INSERT INTO graph_entities (workspace, id, name, type, created_at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (workspace, id) DO UPDATE SET type = CASE WHEN graph_entities.type = 'unknown'"
            " THEN excluded.type ELSE graph_entities.type END",
            (workspace, ensure(entity_id), ensure(name), type_ or "unknown", now),
        )

    def entity(self, workspace: str, entity_id: str) -> EntityRow | None:
        row = self.db.one("SELECT * FROM graph_entities WHERE workspace = ? AND id = ?", (workspace, entity_id))
        return entity_of(row) if row else None

    def entities_named(self, workspace: str, name: str) -> list[str]:
        rows = self.db.query(
            "SELECT id FROM graph_entities WHERE workspace = ? AND (lower(name) = ? OR id LIKE ? ESCAPE '\\')"
            " ORDER BY id",
            (workspace, name, "%/" + escape_like(name)),
        )
        return [str(r[0]) for r in rows]

    def entities(self, workspace: str) -> list[EntityRow]:
        return [entity_of(r) for r in self.db.query("SELECT * FROM graph_entities WHERE workspace = ? ORDER BY id",
                                                  (workspace,))]  # fmt: skip

    # -- facts -----------------------------------------------------------------------------
    def get(self, workspace: str, fact_id: int) -> FactRow | None:
        row = self.db.one(FACTS_SELECT + " WHERE f.workspace = ? AND f.id = ?", (workspace, fact_id))
        return fact_of(row) if row else None

    def insert(self, row: FactRow) -> int:
        cur = self.db.execute(
            "INSERT INTO graph_facts (workspace, project, subject, predicate, object, object_kind, area, valid_from,"
            " valid_to, confidence, origin, session, memory_ref, person, evidence, created_at, ended_by)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row.workspace, row.project, ensure(row.subject), row.predicate, ensure(row.object), row.object_kind,
             row.area, row.valid_from, row.valid_to, row.confidence, row.origin, row.session, row.memory_ref,
             row.person, ensure(row.evidence), row.created_at, row.ended_by),
        )
        return int(cur.lastrowid or 0)

    def close(self, workspace: str, fact_id: int, valid_to: str, ended_by: int | None) -> None:
        self.db.execute(
            "UPDATE graph_facts SET valid_to = ?, ended_by = ? WHERE workspace = ? AND id = ? AND valid_to IS NULL",
            (valid_to, ended_by, workspace, fact_id))  # fmt: skip

    def set_ended_by(self, workspace: str, fact_id: int, ended_by: int) -> None:
        self.db.execute("UPDATE graph_facts SET ended_by = ? WHERE workspace = ? AND id = ?",
                        (ended_by, workspace, fact_id))  # fmt: skip

    def same_fact(self, workspace: str, subject: str, predicate: str, obj: str, area: str) -> list[FactRow]:
        rows = self.db.query(
            FACTS_SELECT + " WHERE f.workspace = ? AND f.subject = ? AND f.predicate = ? AND f.object = ? AND f.area = ?"
            " ORDER BY f.valid_from, f.id", (workspace, subject, predicate, obj, area))
        return [fact_of(r) for r in rows]

    def current_in_slot(self, workspace: str, subject: str, predicate: str, area: str) -> list[FactRow]:
        rows = self.db.query(
            FACTS_SELECT + " WHERE f.workspace = ? AND f.subject = ? AND f.predicate = ? AND f.area = ?"
            " AND f.valid_to IS NULL ORDER BY f.valid_from, f.id", (workspace, subject, predicate, area))
        return [fact_of(r) for r in rows]

    def find_facts(self, workspace: str, subject: str, predicate: str, obj: str, area: str,
                   valid_from: str) -> list[int]:  # fmt: skip
        rows = self.db.query("SELECT id FROM graph_facts WHERE workspace = ? AND subject = ? AND predicate = ?"
                             " AND object = ? AND area = ? AND valid_from = ? ORDER BY id",
                             (workspace, subject, predicate, obj, area, valid_from))  # fmt: skip
        return [int(r["id"]) for r in rows]

    def query(self, workspace: str, entity: str, *, predicate: str = "", as_of: str = "", direction: str = "both",
              project: str = "", limit: int = 200) -> list[FactRow]:  # fmt: skip
        sides = {"out": ["f.subject = ?"], "in": ["(f.object = ? AND f.object_kind = 'entity')"]}
        parts = sides.get(direction) or sides["out"] + sides["in"]
        results: list[FactRow] = []
        # One query per side, each on its own index, rather than an OR that defeats both.
        for side in parts:
            where, params = ["f.workspace = ?", side], [workspace, entity]
            if predicate:
                where.append("f.predicate = ?")
                params.append(predicate)
            if as_of:
                where.append("f.valid_from <= ? AND (f.valid_to IS NULL OR f.valid_to > ?)")
                params += [as_of, as_of]
            if project:
                where.append("f.project = ?")
                params.append(project)
            sql = FACTS_SELECT + f" WHERE {' AND '.join(where)} ORDER BY f.valid_from DESC, f.id DESC LIMIT ?"
            results += [fact_of(r) for r in self.db.query(sql, [*params, limit])]
        results.sort(key=lambda f: (f.valid_from, f.id), reverse=True)
        return results[:limit]

    def timeline(self, workspace: str, entity: str, limit: int = 500) -> list[FactRow]:
        facts = self.query(workspace, entity, limit=limit)
        return sorted(facts, key=lambda f: (f.valid_from, f.id))

    def current_facts(self, workspace: str, project: str, *, predicates: tuple[str, ...] = (),
                      exclude: tuple[str, ...] = (), min_confidence: float = 0.0, limit: int = 50) -> list[FactRow]:  # fmt: skip
        where = ["f.workspace = ?", "f.project = ?", "f.valid_to IS NULL", "f.confidence >= ?"]
        params: list[object] = [workspace, project, min_confidence]
        if predicates:
            where.append(f"f.predicate IN ({','.join('?' * len(predicates))})")
            params += list(predicates)
        if exclude:
            where.append(f"f.predicate NOT IN ({','.join('?' * len(exclude))})")
            params += list(exclude)
        sql = FACTS_SELECT + f" WHERE {' AND '.join(where)} ORDER BY f.valid_from DESC, f.id DESC LIMIT ?"
        return [fact_of(r) for r in self.db.query(sql, [*params, limit])]

    def all_facts(self, workspace: str) -> list[FactRow]:
        return [fact_of(r) for r in self.db.query(FACTS_SELECT + " WHERE f.workspace = ? ORDER BY f.id", (workspace,))]

    def iter_facts(self, workspace: str) -> Iterator[FactRow]:
        last = 0
        while True:
            rows = self.db.query(FACTS_SELECT + " WHERE f.workspace = ? AND f.id > ? ORDER BY f.id LIMIT ?",
                                 (workspace, last, PAGE))  # fmt: skip
            yield from map(fact_of, rows)
            if len(rows) < PAGE:
                return
            last = int(rows[-1]["id"])

    def count(self, workspace: str) -> int:
        row = self.db.one("SELECT count(*) AS n FROM graph_facts WHERE workspace = ?", (workspace,))
        return int(row["n"]) if row else 0

    def count_facts(self, workspace: str, *, memory_ref: str = "", session: str = "") -> int:
        column, value = ("memory_ref", memory_ref) if memory_ref else ("session", session)
        if not value:
            return 0
        row = self.db.one(f"SELECT count(*) AS n FROM graph_facts WHERE workspace = ? AND {column} = ?",
                          (workspace, value))  # fmt: skip
        return int(row["n"]) if row else 0

    def delete_facts(self, workspace: str, *, memory_ref: str = "", session: str = "") -> int:
        column, value = ("memory_ref", memory_ref) if memory_ref else ("session", session)
        if not value:
            return 0
        with self.db.transaction() as conn:
            ids = [r[0] for r in conn.execute(f"SELECT id FROM graph_facts WHERE workspace = ? AND {column} = ?",
                                              (workspace, value))]  # fmt: skip
            conn.executemany("UPDATE graph_facts SET ended_by = NULL WHERE workspace = ? AND ended_by = ?",
                             [(workspace, i) for i in ids])  # fmt: skip
            conn.executemany("DELETE FROM graph_facts WHERE workspace = ? AND id = ?", [(workspace, i) for i in ids])
            # An entity only those facts named goes with them (its name came from the same text).
            conn.execute(
                "DELETE FROM graph_entities WHERE workspace = ? AND id NOT IN (SELECT subject FROM graph_facts"
                " WHERE workspace = ?) AND id NOT IN (SELECT object FROM graph_facts WHERE workspace = ?"
                " AND object_kind = 'entity')", (workspace, workspace, workspace))
        return len(ids)

    # -- progress of extraction / escalation -----------------------------------------------
    def progress(self, workspace: str, session: str, kind: str) -> int:
        row = self.db.one("SELECT last_turn FROM graph_progress WHERE workspace = ? AND session = ? AND kind = ?",
                          (workspace, session, kind))  # fmt: skip
        return int(row["last_turn"]) if row else 0

    def progress_of(self, workspace: str, kind: str) -> dict[str, int]:
        rows = self.db.query("SELECT session, last_turn FROM graph_progress WHERE workspace = ? AND kind = ?"
                             " ORDER BY session", (workspace, kind))  # fmt: skip
        return {str(r[0]): int(r[1]) for r in rows}

    def set_progress(self, workspace: str, session: str, kind: str, last_turn: int, now: str) -> None:
        self.db.execute(
            "INSERT INTO graph_progress (workspace, session, kind, last_turn, updated_at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (workspace, session, kind) DO UPDATE SET last_turn = excluded.last_turn,"
            " updated_at = excluded.updated_at", (workspace, session, kind, last_turn, now))  # fmt: skip

    def forget_progress(self, workspace: str, session: str) -> None:
        self.db.execute("DELETE FROM graph_progress WHERE workspace = ? AND session = ?", (workspace, session))
