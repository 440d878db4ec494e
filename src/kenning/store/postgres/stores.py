"""The PostgreSQL backend's bundle of stores (:class:`kenning.store.protocol.Stores`).

Only the memory store has a PostgreSQL implementation so far; asking the bundle for another
store raises NotImplementedError saying so (the contract suites skip those stores on this
backend), so a PostgreSQL core serves recall and memory writes, not capture, the graph or the
hooks' state. Rules are the one exception: recall asks which rules hold before it gives
memories out, so this backend answers that it has none (as the core did before the rules had
a store of their own) and refuses to write one.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import NoReturn

from kenning.redacted import Redacted
from kenning.store.postgres.db import Database
from kenning.store.postgres.memories import PostgresMemoryStore
from kenning.store.protocol import (
    CaptureStore,
    GraphStore,
    HookStateStore,
    NotesStore,
    RuleRow,
    RuleStore,
    WorkStore,
)


def _not_yet(store: str) -> NoReturn:
    raise NotImplementedError(f"the {store} store has no PostgreSQL backend yet (only memories do)")


class NoRules:
    """The rule store of a backend that keeps no rules yet: reads find none, writes refuse."""

    keeps_none = True  # the contract suite skips it, as it skips the stores that raise

    def add_rule(self, workspace: str, project: str, kind: str, n: int, memory_kind: str, text: Redacted,
                 at: datetime) -> int:  # fmt: skip
        _not_yet("rule")

    def rules(self, workspace: str, project: str | None = None, *, enabled_only: bool = False) -> list[RuleRow]:
        return []

    def sentence_rules(self, workspace: str, project: str) -> list[Redacted]:
        return []

    def rule(self, workspace: str, rule_id: int) -> RuleRow | None:
        return None

    def update_rule(self, workspace: str, rule_id: int, at: datetime, **fields: object) -> None:
        _not_yet("rule")

    def delete_rule(self, workspace: str, rule_id: int) -> None:
        _not_yet("rule")

    def count_unproven(self, workspace: str, scopes: Sequence[str], n: int) -> int:
        return 0

    def count_decisions_by_outcome(self, workspace: str, scopes: Sequence[str], word: str, *, having: bool) -> int:
        return 0


class PostgresStores:
    """Every store over one PostgreSQL database (a pool); closing the bundle closes it."""

    engine = "postgresql"

    def __init__(self, db: Database) -> None:
        self.db = db
        self.memories = PostgresMemoryStore(db)

    @property
    def capture(self) -> CaptureStore:
        _not_yet("capture")

    @property
    def graph(self) -> GraphStore:
        _not_yet("graph")

    @property
    def notes(self) -> NotesStore:
        _not_yet("notes")

    @property
    def hooks(self) -> HookStateStore:
        _not_yet("hook state")

    @property
    def work(self) -> WorkStore:
        _not_yet("work")

    @property
    def rules(self) -> RuleStore:
        return NoRules()

    def transaction(self) -> AbstractContextManager[object]:
        return self.db.transaction()

    def close(self) -> None:
        self.db.close()

    def scrub(self) -> None:
        """Nothing yet: deleted rows are unreadable through SQL at once, and autovacuum reclaims
        their space later (a VACUUM here would need a connection outside any transaction)."""

    def bytes_in_use(self) -> int:
        row = self.db.one("SELECT pg_database_size(current_database()) AS n")
        return int(row["n"]) if row else 0
