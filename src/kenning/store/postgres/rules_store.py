"""PostgreSQL implementation of :class:`kenning.store.protocol.RuleStore`.

Every statement names its workspace and runs in a transaction that acts in it (row-level
security, :mod:`kenning.store.postgres.rls`); results come back in the order the SQLite store
gives them (kenning.store.sqlite.rules_store), every tie broken by id.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from kenning.redacted import Redacted, ensure, stored
from kenning.store.postgres.db import Database, Row
from kenning.store.protocol.rules import RULE_FIELDS, RuleRow

# SQLite's lower() folds ASCII letters only; PostgreSQL's folds by the locale. translate() with
# the ASCII alphabet folds exactly what SQLite does, so an outcome line matches on both alike.
_ASCII_LOWER = "translate(o.value, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"


def _rule(row: Row) -> RuleRow:
    return RuleRow(row["id"], row["workspace"], row["project"], row["kind"], row["n"], row["memory_kind"],
                   stored(row["text"]), row["enabled"], row["created_at"].astimezone(UTC))  # fmt: skip


class PostgresRuleStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def add_rule(self, workspace: str, project: str, kind: str, n: int, memory_kind: str, text: Redacted,
                 at: datetime) -> int:  # fmt: skip
        row = self.db.one(
            "INSERT INTO memory_rules (workspace, project, kind, n, memory_kind, text, created_at, updated_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (workspace, project, kind, n, memory_kind, ensure(text), at, at),
            workspace=workspace,
        )
        return int(row["id"]) if row else 0

    def rules(self, workspace: str, project: str | None = None, *, enabled_only: bool = False) -> list[RuleRow]:
        sql = "SELECT * FROM memory_rules WHERE workspace = %s"
        params: list[object] = [workspace]
        if project is not None:
            sql += " AND project IN ('', %s)"
            params.append(project)
        if enabled_only:
            sql += " AND enabled"
        return [_rule(r) for r in self.db.query(sql + " ORDER BY id DESC", params, workspace=workspace)]

    def sentence_rules(self, workspace: str, project: str) -> list[Redacted]:
        # As kenning.store.sqlite.hook_rows.RULES_ORDER: this project's own first (false sorts
        # before true on both engines), then the longest-standing, ties by id.
        rows = self.db.query(
            "SELECT text FROM memory_rules WHERE workspace = %s AND project IN ('', %s) AND enabled"
            " AND kind = 'sentence' ORDER BY project = '' ASC, created_at ASC, id ASC",
            (workspace, project),
            workspace=workspace,
        )
        return [stored(r["text"]) for r in rows]

    def rule(self, workspace: str, rule_id: int) -> RuleRow | None:
        row = self.db.one(
            "SELECT * FROM memory_rules WHERE workspace = %s AND id = %s", (workspace, rule_id), workspace=workspace
        )
        return _rule(row) if row else None

    def update_rule(self, workspace: str, rule_id: int, at: datetime, **fields: object) -> None:
        unknown = set(fields) - RULE_FIELDS
        if unknown:
            raise ValueError(f"not a rule field: {sorted(unknown)}")
        # The column names come from RULE_FIELDS only (checked above), never from the caller.
        values = [ensure(v) if k == "text" and isinstance(v, str) else v for k, v in fields.items()]
        sets = "".join(f"{name} = %s, " for name in fields)
        self.db.execute(f"UPDATE memory_rules SET {sets}updated_at = %s WHERE workspace = %s AND id = %s",
                        [*values, at, workspace, rule_id], workspace=workspace)  # fmt: skip

    def delete_rule(self, workspace: str, rule_id: int) -> None:
        self.db.execute(
            "DELETE FROM memory_rules WHERE workspace = %s AND id = %s", (workspace, rule_id), workspace=workspace
        )

    def count_unproven(self, workspace: str, scopes: Sequence[str], n: int) -> int:
        row = self.db.one(
            "SELECT count(*) AS n FROM memories m WHERE m.workspace = %s AND m.scope = ANY(%s)"
            " AND m.status = 'active' AND m.kind = 'lesson' AND (SELECT count(DISTINCT u.session) FROM memory_uses u"
            " WHERE u.workspace = m.workspace AND u.ref = m.ref AND u.session != '') < %s",
            (workspace, list(scopes), n),
            workspace=workspace,
        )  # fmt: skip
        return int(row["n"]) if row else 0

    def count_decisions_by_outcome(self, workspace: str, scopes: Sequence[str], word: str, *, having: bool) -> int:
        row = self.db.one(
            "SELECT count(*) AS n FROM memories m WHERE m.workspace = %s AND m.scope = ANY(%s)"
            f" AND m.status = 'active' AND m.kind = 'decision' AND {'' if having else 'NOT '}EXISTS (SELECT 1"
            " FROM decision_docs d, json_array_elements_text(d.outcome::json) AS o(value)"
            f" WHERE d.workspace = m.workspace AND d.memory_ref = m.ref AND substr({_ASCII_LOWER}, 1, %s) = %s)",
            (workspace, list(scopes), len(word), word.lower()),
            workspace=workspace,
        )  # fmt: skip
        return int(row["n"]) if row else 0
