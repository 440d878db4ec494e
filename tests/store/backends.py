"""Store backends the contract suite runs against.

Each factory opens a fresh, empty store in ``tmp_path`` and returns it with its closer. To run
the contract suite on another backend, add ONE entry to :data:`BACKENDS` (a factory that calls
``pytest.skip`` when its server is not reachable).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kenning.store.protocol import MemoryStore

Opened = tuple[MemoryStore, Callable[[], None]]


def open_sqlite(tmp_path: Path) -> Opened:
    from kenning.store.sqlite.memories import SqliteMemoryStore
    from kenning.store.sqlite.schema import open_database

    db = open_database(tmp_path / "contract.db")
    return SqliteMemoryStore(db), db.close


BACKENDS: dict[str, Callable[[Path], Opened]] = {
    "sqlite": open_sqlite,
}
