"""The PostgreSQL backend's bundle of stores (:class:`kenning.store.protocol.Stores`).

The memory, rule, capture, graph and notes stores have a PostgreSQL implementation so far;
asking the bundle for another store raises NotImplementedError saying so (the contract suites
skip those stores on this backend), so a PostgreSQL core serves recall, memory writes, rules,
capture, the graph and notes, not the hooks' state or work.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import NoReturn

from kenning.store.postgres.capture_store import PostgresCaptureStore
from kenning.store.postgres.db import Database
from kenning.store.postgres.graph_store import PostgresGraphStore
from kenning.store.postgres.memories import PostgresMemoryStore
from kenning.store.postgres.notes_store import PostgresNotesStore
from kenning.store.postgres.rules_store import PostgresRuleStore
from kenning.store.protocol import (
    CaptureStore,
    GraphStore,
    HookStateStore,
    NotesStore,
    RuleStore,
    WorkStore,
)


def _not_yet(store: str) -> NoReturn:
    raise NotImplementedError(f"the {store} store has no PostgreSQL backend yet")


class PostgresStores:
    """Every store over one PostgreSQL database (a pool); closing the bundle closes it."""

    engine = "postgresql"

    def __init__(self, db: Database) -> None:
        self.db = db
        self.memories = PostgresMemoryStore(db)
        self.rules: RuleStore = PostgresRuleStore(db)

    @property
    def capture(self) -> CaptureStore:
        return PostgresCaptureStore(self.db)

    @property
    def graph(self) -> GraphStore:
        return PostgresGraphStore(self.db)

    @property
    def notes(self) -> NotesStore:
        return PostgresNotesStore(self.db)

    @property
    def hooks(self) -> HookStateStore:
        _not_yet("hook state")

    @property
    def work(self) -> WorkStore:
        _not_yet("work")

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
