"""Storage: one protocol per store (:mod:`kenning.store.protocol`), bundled as
:class:`~kenning.store.protocol.Stores`, and the backends that implement them (``sqlite``).

:func:`open_stores` is how an entry point gets its stores; nothing above this package imports a
backend. Kept free of imports at module level: the hooks' fast path imports modules under it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is left unimported on purpose (the hooks import this package)
if TYPE_CHECKING:
    from kenning.config import Settings
    from kenning.store.protocol import StoreCheck, Stores
    from kenning.store.syncstate import SyncStateStore

# How long a connection waits for another process's write lock before it gives up (SQLite).
# Hooks pass a much shorter one: a tool call must never wait out the agent's own hook timeout.
BUSY_TIMEOUT_MS = 10_000


def open_stores(settings: Settings, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> Stores:
    """The stores ``settings`` name, opened and migrated: the SQLite file in the data folder.

    ``busy_timeout_ms`` bounds every wait for another process's lock.
    """
    from kenning.store.sqlite.stores import open_sqlite

    return open_sqlite(settings.db_path, busy_timeout_ms=busy_timeout_ms)


def check(settings: Settings) -> StoreCheck:
    """Look at the store ``settings`` name without changing it (no migration, nothing made):
    can it be read, is its content intact, does another process hold its write lock."""
    from kenning.store.sqlite.schema import check_store

    return check_store(settings.db_path)


def unusable(error: BaseException, *, opening: bool = False) -> bool:
    """Whether ``error`` is the engine saying the store cannot be used (locked, corrupt,
    unreadable) rather than a fault of ours: the CLI answers it with a message, not a traceback.
    ``opening``: raised while opening it (any of the driver's errors counts then)."""
    import sqlite3

    return isinstance(error, sqlite3.Error if opening else sqlite3.DatabaseError)


def sync_state(stores: Stores) -> SyncStateStore:
    """What ``kenning sync`` keeps about a team server beside the local stores (cursors, the
    rows it synced, its outbox). Sync runs from a machine's own SQLite store."""
    from kenning.errors import Refused
    from kenning.store.sqlite.stores import SqliteStores
    from kenning.store.sqlite.sync_store import SqliteSyncState

    if not isinstance(stores, SqliteStores):
        raise Refused(f"kenning sync runs from a machine's local store, not a {stores.engine} one",
                      fix="run kenning sync on the machine whose work it should carry")  # fmt: skip
    return SqliteSyncState(stores.db)
