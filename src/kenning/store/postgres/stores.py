"""The PostgreSQL backend's bundle of stores (:class:`kenning.store.protocol.Stores`).

Every store has a PostgreSQL implementation: memories, rules, capture, the graph, notes, the
work around a branch and the hooks' state. (Hooks always run on the machine's own SQLite
store; the hook state store is here so every store exists on both engines.)
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from kenning.store.postgres.capture_store import PostgresCaptureStore
from kenning.store.postgres.db import Database
from kenning.store.postgres.graph_store import PostgresGraphStore
from kenning.store.postgres.hooks_store import PostgresHookStateStore
from kenning.store.postgres.memories import PostgresMemoryStore
from kenning.store.postgres.notes_store import PostgresNotesStore
from kenning.store.postgres.rules_store import PostgresRuleStore
from kenning.store.postgres.work_store import PostgresWorkStore
from kenning.store.protocol import (
    CaptureStore,
    GraphStore,
    HookStateStore,
    NotesStore,
    RuleStore,
    WorkStore,
)


class PostgresStores:
    """Every store over one PostgreSQL database (a pool); closing the bundle closes it."""

    engine = "postgresql"

    def __init__(self, db: Database) -> None:
        self.db = db
        self.memories = PostgresMemoryStore(db)
        self.rules: RuleStore = PostgresRuleStore(db)
        self.work: WorkStore = PostgresWorkStore(db)
        self.hooks: HookStateStore = PostgresHookStateStore(db)

    @property
    def capture(self) -> CaptureStore:
        return PostgresCaptureStore(self.db)

    @property
    def graph(self) -> GraphStore:
        return PostgresGraphStore(self.db)

    @property
    def notes(self) -> NotesStore:
        return PostgresNotesStore(self.db)

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
