"""The SQLite backend's stores over one connection: the :class:`~kenning.store.protocol.Stores`
bundle an entry point opens (:func:`kenning.store.open_stores`)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

from kenning.store import BUSY_TIMEOUT_MS
from kenning.store.sqlite.capture_store import SqliteCaptureStore
from kenning.store.sqlite.db import Database
from kenning.store.sqlite.graph_store import SqliteGraphStore
from kenning.store.sqlite.hooks_store import SqliteHookStateStore
from kenning.store.sqlite.memories import SqliteMemoryStore
from kenning.store.sqlite.notes_store import SqliteNotesStore
from kenning.store.sqlite.rules_store import SqliteRuleStore
from kenning.store.sqlite.schema import open_database
from kenning.store.sqlite.work_store import SqliteWorkStore


class SqliteStores:
    """Every store over one open, migrated database; closing the bundle closes it."""

    engine = "sqlite"

    def __init__(self, db: Database) -> None:
        self.db = db
        self.memories = SqliteMemoryStore(db)
        self.capture = SqliteCaptureStore(db)
        self.graph = SqliteGraphStore(db)
        self.notes = SqliteNotesStore(db)
        self.hooks = SqliteHookStateStore(db)
        self.work = SqliteWorkStore(db)
        self.rules = SqliteRuleStore(db)

    def transaction(self) -> AbstractContextManager[object]:
        return self.db.transaction()

    def close(self) -> None:
        self.db.close()

    def scrub(self) -> None:
        self.db.scrub()

    def bytes_in_use(self) -> int:
        return self.db.bytes_in_use()


def open_sqlite(path: Path | str, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> SqliteStores:
    """Open (creating and migrating as needed) the store file at ``path``."""
    return SqliteStores(open_database(path, busy_timeout_ms=busy_timeout_ms))
