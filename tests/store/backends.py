"""Store backends the contract suites run against.

Each factory opens a fresh, empty bundle of stores (:class:`kenning.store.protocol.Stores`) in
``tmp_path`` and returns it with its closer. To run every contract suite on another backend,
add ONE entry to :data:`BACKENDS` (a factory that calls ``pytest.skip`` when its server is not
reachable). Every backend implements every store.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

Opened = tuple[Any, Callable[[], None]]  # (a Stores bundle, its closer)


def open_sqlite(tmp_path: Path) -> Opened:
    from kenning.store.sqlite.stores import open_sqlite as open_file

    stores = open_file(tmp_path / "contract.db")
    return stores, stores.close


def open_postgres(tmp_path: Path) -> Opened:
    """A database of its own on the run's PostgreSQL server (tests/postgres_server.py), opened
    as its owner, who sees every workspace as the one SQLite file does."""
    import postgres_server
    from kenning.store.postgres.schema import open_database
    from kenning.store.postgres.stores import PostgresStores

    name = postgres_server.fresh_database()
    db = open_database(postgres_server.dsn(name, postgres_server.OWNER), max_size=4)

    def close() -> None:
        db.close()
        postgres_server.drop_database(name)

    return PostgresStores(db), close


def open_postgres_bound(tmp_path: Path) -> Opened:
    """PostgreSQL as a login role bound to the suites' workspace, beside another workspace's
    look-alike rows (tests/store/intruder.py): row-level security is all that keeps them apart."""
    import intruder

    return intruder.open_bound()  # type: ignore[no-any-return]


BACKENDS: dict[str, Callable[[Path], Opened]] = {
    "sqlite": open_sqlite,
    "postgres": open_postgres,
    "postgres-bound": open_postgres_bound,
}
