"""SQLite implementation of :class:`kenning.store.protocol.RuleStore`."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime

from kenning.clock import from_iso, to_iso
from kenning.redacted import Redacted, ensure, stored
from kenning.store.protocol.rules import RULE_FIELDS, RuleRow
from kenning.store.sqlite import hook_rows
from kenning.store.sqlite.db import Database


def _rule(row: sqlite3.Row) -> RuleRow:
    return RuleRow(row["id"], row["workspace"], row["project"], row["kind"], row["n"], row["memory_kind"],
                   stored(row["text"]), bool(row["enabled"]), from_iso(row["created_at"]))  # fmt: skip


class SqliteRuleStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def add_rule(self, workspace: str, project: str, kind: str, n: int, memory_kind: str, text: Redacted,
                 at: datetime) -> int:  # fmt: skip
        cur = self.db.execute(
            "INSERT INTO memory_rules (workspace, project, kind, n, memory_kind, text, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (workspace, project, kind, n, memory_kind, ensure(text), to_iso(at), to_iso(at)),
        )
        return int(cur.lastrowid or 0)

    def rules(self, workspace: str, project: str | None = None, *, enabled_only: bool = False) -> list[RuleRow]:
        sql = "SELECT * FROM memory_rules WHERE workspace = ?"
        params: list[object] = [workspace]
        if project is not None:
            sql += " AND project IN ('', ?)"
            params.append(project)
        if enabled_only:
            sql += " AND enabled = 1"
        return [_rule(r) for r in self.db.query(sql + " ORDER BY id DESC", params)]

    def sentence_rules(self, workspace: str, project: str) -> list[Redacted]:
        return self.db.using(hook_rows.sentence_rules, workspace, project)

    def rule(self, workspace: str, rule_id: int) -> RuleRow | None:
        row = self.db.one("SELECT * FROM memory_rules WHERE workspace = ? AND id = ?", (workspace, rule_id))
        return _rule(row) if row else None

    def update_rule(self, workspace: str, rule_id: int, at: datetime, **fields: object) -> None:
        unknown = set(fields) - RULE_FIELDS
        if unknown:
            raise ValueError(f"not a rule field: {sorted(unknown)}")
        values = [int(v) if isinstance(v, bool) else ensure(v) if k == "text" and isinstance(v, str) else v
                  for k, v in fields.items()]  # fmt: skip
        sets = "".join(f"{name} = ?, " for name in fields)
        self.db.execute(f"UPDATE memory_rules SET {sets}updated_at = ? WHERE workspace = ? AND id = ?",
                        [*values, to_iso(at), workspace, rule_id])  # fmt: skip

    def delete_rule(self, workspace: str, rule_id: int) -> None:
        self.db.execute("DELETE FROM memory_rules WHERE workspace = ? AND id = ?", (workspace, rule_id))

    def count_unproven(self, workspace: str, scopes: Sequence[str], n: int) -> int:
        marks = ",".join("?" for _ in scopes)
        row = self.db.one(
            f"SELECT count(*) FROM memories m WHERE m.workspace = ? AND m.scope IN ({marks}) AND m.status = 'active'"
            " AND m.kind = 'lesson' AND (SELECT count(DISTINCT u.session) FROM memory_uses u"
            " WHERE u.ref = m.ref AND u.session != '') < ?",
            [workspace, *scopes, n],
        )  # fmt: skip
        return int(row[0]) if row else 0

    def count_decisions_by_outcome(self, workspace: str, scopes: Sequence[str], word: str, *, having: bool) -> int:
        marks = ",".join("?" for _ in scopes)
        row = self.db.one(
            f"SELECT count(*) FROM memories m WHERE m.workspace = ? AND m.scope IN ({marks}) AND m.status = 'active'"
            f" AND m.kind = 'decision' AND {'' if having else 'NOT '}EXISTS (SELECT 1 FROM decision_docs d,"
            " json_each(d.outcome) o WHERE d.memory_ref = m.ref AND substr(lower(o.value), 1, ?) = ?)",
            [workspace, *scopes, len(word), word.lower()],
        )  # fmt: skip
        return int(row[0]) if row else 0
