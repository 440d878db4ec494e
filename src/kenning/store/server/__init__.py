"""The team server's own tables: accounts, workspaces and members, device tokens (hashed),
invites, device codes, and the synced records with their sequence numbers and batches.

:mod:`.protocol` is all the server and the sync layer see; :mod:`.postgres` implements it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kenning.store.server.postgres import PostgresServerStore


def open_server_store(dsn: str, *, max_size: int = 10) -> PostgresServerStore:
    """The team server's store on the PostgreSQL at ``dsn``, migrated; the driver (psycopg)
    loads here, so a missing one raises ImportError from this call."""
    from kenning.store.server.postgres import PostgresServerStore

    return PostgresServerStore.open(dsn, max_size=max_size)


def embedded_database(home: Path) -> tuple[str, Any]:
    """Start (or join) the embedded PostgreSQL of ``kenning serve`` in the data folder ``home``
    and make sure kenning's database exists: its DSN and the handle that keeps the server
    running (``handle.cleanup()`` lets go of it). The driver and the wheel load only here, so
    importing this package stays free (:mod:`kenning.store.postgres.embedded` does the work)."""
    from kenning.store.postgres.embedded import start

    return start(home)
