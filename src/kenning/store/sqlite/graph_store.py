"""SQL of the knowledge graph and notes, behind one small typed class. Callers hand it
normalised ids and ISO times; the rules (what closes what) live in :mod:`kenning.graph.facts`."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from kenning.redacted import Redacted, ensure, stored
from kenning.store.sqlite.db import Database


@dataclass(frozen=True)
class FactRow:
    id: int
    workspace: str
    project: str
    subject: str
    predicate: str
    object: str  # an entity id (made from a redacted name) or redacted text; redacted again on insert
    object_kind: str
    area: str
    valid_from: str
    valid_to: str | None
    confidence: float
    origin: str
    session: str
    memory_ref: str
    person: str
    evidence: Redacted
    created_at: str
    ended_by: int | None = None
    subject_name: str = ""
    object_name: str = ""

    @property
    def current(self) -> bool:
        return self.valid_to is None

    @property
    def ref(self) -> str:
        return f"f:{self.id}"


_SELECT = (
    "SELECT f.*, coalesce(se.name, f.subject) AS subject_name,"
    " CASE WHEN f.object_kind = 'entity' THEN coalesce(oe.name, f.object) ELSE f.object END AS object_name"
    " FROM graph_facts f"
    " LEFT JOIN graph_entities se ON se.workspace = f.workspace AND se.id = f.subject"
    " LEFT JOIN graph_entities oe ON oe.workspace = f.workspace AND oe.id = f.object AND f.object_kind = 'entity'"
)


def _fact(row: sqlite3.Row) -> FactRow:
    return FactRow(
        row["id"], row["workspace"], row["project"], row["subject"], row["predicate"], row["object"],
        row["object_kind"], row["area"], row["valid_from"], row["valid_to"], row["confidence"], row["origin"],
        row["session"], row["memory_ref"], row["person"], stored(row["evidence"]), row["created_at"],
        row["ended_by"], row["subject_name"], row["object_name"],
    )  # fmt: skip


class GraphStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- entities --------------------------------------------------------------------------
    def ensure_entity(self, workspace: str, entity_id: str, name: Redacted, type_: str, now: str) -> None:
        """Create the entity; a known type is never overwritten by 'unknown'."""
        self.db.execute(
            "INSERT INTO graph_entities (workspace, id, name, type, created_at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (workspace, id) DO UPDATE SET type = CASE WHEN graph_entities.type = 'unknown'"
            " THEN excluded.type ELSE graph_entities.type END",
            (workspace, ensure(entity_id), ensure(name), type_ or "unknown", now),
        )

    def entity(self, workspace: str, entity_id: str) -> dict[str, Any] | None:
        row = self.db.one("SELECT * FROM graph_entities WHERE workspace = ? AND id = ?", (workspace, entity_id))
        return dict(row) if row else None

    def entities_named(self, workspace: str, name: str) -> list[str]:
        """Ids of the entities shown as ``name`` (lower case): by their name as written, or a
        project key ending in it (``github.com/acme/shop`` for "shop")."""
        rows = self.db.query(
            "SELECT id FROM graph_entities WHERE workspace = ? AND (lower(name) = ? OR id LIKE ? ESCAPE '\\')"
            " ORDER BY id",
            (workspace, name, "%/" + name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")),
        )
        return [str(r[0]) for r in rows]

    # -- facts -----------------------------------------------------------------------------
    def get(self, workspace: str, fact_id: int) -> FactRow | None:
        row = self.db.one(_SELECT + " WHERE f.workspace = ? AND f.id = ?", (workspace, fact_id))
        return _fact(row) if row else None

    def same_fact(self, workspace: str, subject: str, predicate: str, obj: str, area: str) -> list[FactRow]:
        rows = self.db.query(
            _SELECT + " WHERE f.workspace = ? AND f.subject = ? AND f.predicate = ? AND f.object = ? AND f.area = ?"
            " ORDER BY f.valid_from", (workspace, subject, predicate, obj, area))
        return [_fact(r) for r in rows]

    def current_in_slot(self, workspace: str, subject: str, predicate: str, area: str) -> list[FactRow]:
        rows = self.db.query(
            _SELECT + " WHERE f.workspace = ? AND f.subject = ? AND f.predicate = ? AND f.area = ?"
            " AND f.valid_to IS NULL ORDER BY f.valid_from", (workspace, subject, predicate, area))
        return [_fact(r) for r in rows]

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

    def close(self, fact_id: int, valid_to: str, ended_by: int | None) -> None:
        self.db.execute("UPDATE graph_facts SET valid_to = ?, ended_by = ? WHERE id = ? AND valid_to IS NULL",
                        (valid_to, ended_by, fact_id))

    def query(self, workspace: str, entity: str, *, predicate: str = "", as_of: str = "", direction: str = "both",
              project: str = "", limit: int = 200) -> list[FactRow]:
        """Facts touching ``entity``; with ``as_of`` only those whose window [from, to) holds it."""
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
            sql = _SELECT + f" WHERE {' AND '.join(where)} ORDER BY f.valid_from DESC, f.id DESC LIMIT ?"
            results += [_fact(r) for r in self.db.query(sql, [*params, limit])]
        results.sort(key=lambda f: (f.valid_from, f.id), reverse=True)
        return results[:limit]

    def timeline(self, workspace: str, entity: str, limit: int = 500) -> list[FactRow]:
        facts = self.query(workspace, entity, limit=limit)
        return sorted(facts, key=lambda f: (f.valid_from, f.id))

    def current_facts(self, workspace: str, project: str, *, predicates: tuple[str, ...] = (),
                      exclude: tuple[str, ...] = (), min_confidence: float = 0.0, limit: int = 50) -> list[FactRow]:
        """Current facts of one project, newest first (the wake-up reads the newest, never the oldest)."""
        where = ["f.workspace = ?", "f.project = ?", "f.valid_to IS NULL", "f.confidence >= ?"]
        params: list[object] = [workspace, project, min_confidence]
        if predicates:
            where.append(f"f.predicate IN ({','.join('?' * len(predicates))})")
            params += list(predicates)
        if exclude:
            where.append(f"f.predicate NOT IN ({','.join('?' * len(exclude))})")
            params += list(exclude)
        sql = _SELECT + f" WHERE {' AND '.join(where)} ORDER BY f.valid_from DESC, f.id DESC LIMIT ?"
        return [_fact(r) for r in self.db.query(sql, [*params, limit])]

    def count(self, workspace: str) -> int:
        row = self.db.one("SELECT count(*) AS n FROM graph_facts WHERE workspace = ?", (workspace,))
        return int(row["n"]) if row else 0

    # -- progress of extraction / escalation -----------------------------------------------
    def progress(self, session: str, kind: str) -> int:
        row = self.db.one("SELECT last_turn FROM graph_progress WHERE session = ? AND kind = ?", (session, kind))
        return int(row["last_turn"]) if row else 0

    def set_progress(self, session: str, kind: str, last_turn: int, now: str) -> None:
        self.db.execute(
            "INSERT INTO graph_progress (session, kind, last_turn, updated_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (session, kind) DO UPDATE SET last_turn = excluded.last_turn, updated_at = excluded.updated_at",
            (session, kind, last_turn, now))

    # -- notes -----------------------------------------------------------------------------
    def diary_add(self, workspace: str, project: str, agent: str, at: str, text: Redacted) -> int:
        cur = self.db.execute("INSERT INTO notes_diary (workspace, project, agent, at, text) VALUES (?, ?, ?, ?, ?)",
                              (workspace, project, ensure(agent), at, ensure(text)))
        return int(cur.lastrowid or 0)

    def diary(self, workspace: str, project: str, agent: str = "", since: str = "", limit: int = 20
              ) -> list[dict[str, Any]]:
        where, params = ["workspace = ?", "project = ?"], [workspace, project]
        if agent:
            where.append("agent = ?")
            params.append(agent)
        if since:
            where.append("at >= ?")
            params.append(since)
        rows = self.db.query(f"SELECT * FROM notes_diary WHERE {' AND '.join(where)} ORDER BY at DESC, id DESC"
                             " LIMIT ?", [*params, limit])
        return [dict(r) for r in rows]

    def set_value(self, workspace: str, project: str, key: str, value: Redacted, now: str) -> None:
        self.db.execute(
            "INSERT INTO notes_values (workspace, project, key, value, updated_at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (workspace, project, key) DO UPDATE SET value = excluded.value,"
            " updated_at = excluded.updated_at", (workspace, project, ensure(key), ensure(value), now))

    def value(self, workspace: str, project: str, key: str) -> dict[str, Any] | None:
        row = self.db.one("SELECT * FROM notes_values WHERE workspace = ? AND project = ? AND key = ?",
                          (workspace, project, key))
        return dict(row) if row else None

    def values(self, workspace: str, project: str) -> list[dict[str, Any]]:
        rows = self.db.query("SELECT * FROM notes_values WHERE workspace = ? AND project = ? ORDER BY key",
                             (workspace, project))
        return [dict(r) for r in rows]

    # -- whole workspace (export, import, forget) -----------------------------------------
    def entities(self, workspace: str) -> list[dict[str, Any]]:
        rows = self.db.query("SELECT * FROM graph_entities WHERE workspace = ? ORDER BY id", (workspace,))
        return [dict(r) for r in rows]

    def all_facts(self, workspace: str) -> list[FactRow]:
        return [_fact(r) for r in self.db.query(_SELECT + " WHERE f.workspace = ? ORDER BY f.id", (workspace,))]

    def find_fact(self, workspace: str, subject: str, predicate: str, obj: str, area: str, valid_from: str) -> int | None:
        row = self.db.one("SELECT id FROM graph_facts WHERE workspace = ? AND subject = ? AND predicate = ?"
                          " AND object = ? AND area = ? AND valid_from = ?",
                          (workspace, subject, predicate, obj, area, valid_from))  # fmt: skip
        return int(row["id"]) if row else None

    def set_ended_by(self, fact_id: int, ended_by: int) -> None:
        self.db.execute("UPDATE graph_facts SET ended_by = ? WHERE id = ?", (ended_by, fact_id))

    def count_facts(self, workspace: str, *, memory_ref: str = "", session: str = "") -> int:
        column, value = ("memory_ref", memory_ref) if memory_ref else ("session", session)
        row = self.db.one(f"SELECT count(*) AS n FROM graph_facts WHERE workspace = ? AND {column} = ?",
                          (workspace, value))  # fmt: skip
        return int(row["n"]) if row else 0

    def delete_facts(self, workspace: str, *, memory_ref: str = "", session: str = "") -> int:
        """Delete the facts recorded from a memory or extracted from a session; a fact they
        ended stays ended."""
        column, value = ("memory_ref", memory_ref) if memory_ref else ("session", session)
        if not value:
            return 0
        with self.db.transaction() as conn:
            ids = [r[0] for r in conn.execute(f"SELECT id FROM graph_facts WHERE workspace = ? AND {column} = ?",
                                              (workspace, value))]  # fmt: skip
            conn.executemany("UPDATE graph_facts SET ended_by = NULL WHERE ended_by = ?", [(i,) for i in ids])
            conn.executemany("DELETE FROM graph_facts WHERE id = ?", [(i,) for i in ids])
            # An entity only those facts named goes with them (its name came from the same text).
            conn.execute(
                "DELETE FROM graph_entities WHERE workspace = ? AND id NOT IN (SELECT subject FROM graph_facts"
                " WHERE workspace = ?) AND id NOT IN (SELECT object FROM graph_facts WHERE workspace = ?"
                " AND object_kind = 'entity')", (workspace, workspace, workspace))
        return len(ids)

    def all_diary(self, workspace: str) -> list[dict[str, Any]]:
        rows = self.db.query("SELECT * FROM notes_diary WHERE workspace = ? ORDER BY at, id", (workspace,))
        return [dict(r) for r in rows]

    def diary_count(self, workspace: str, project: str, agent: str, at: str, text: str) -> int:
        row = self.db.one("SELECT count(*) AS n FROM notes_diary WHERE workspace = ? AND project = ? AND agent = ?"
                          " AND at = ? AND text = ?", (workspace, project, agent, at, text))  # fmt: skip
        return int(row["n"]) if row else 0

    def all_values(self, workspace: str) -> list[dict[str, Any]]:
        rows = self.db.query("SELECT * FROM notes_values WHERE workspace = ? ORDER BY project, key", (workspace,))
        return [dict(r) for r in rows]
