"""The hooks' path to the local store, without the core: a plain connection to the SQLite file
in the data folder and the statements the session hooks run on it
(:class:`kenning.store.sqlite.hook_rows.HotRows`).

Hooks always run on the machine's own store, so this path is SQLite only, and it imports the
standard library only (a hook's budget is a few tens of milliseconds over Python's start).
Everything that is not on this path goes through the store protocols
(:func:`kenning.store.open_stores`).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is left unimported on purpose (start-up time); mypy reads True
if TYPE_CHECKING:
    from sqlite3 import Row as HotRow  # a row the hot path reads, by column name (row["project"])

    from kenning.store.sqlite.hook_rows import HotRows

__all__ = ["HotRow", "HotRows", "connect", "lesson_stamp", "schema_behind", "triggers"]


def connect(path: str, busy_timeout_ms: int) -> HotRows | None:
    """Rows over a connection to an existing store, waiting at most ``busy_timeout_ms`` for a
    lock; None when there is no store yet (the full open creates it)."""
    from kenning.store.sqlite import hook_rows

    conn = hook_rows.connect(path, busy_timeout_ms)
    return hook_rows.HotRows(conn) if conn is not None else None


def schema_behind(error: BaseException) -> bool:
    """Whether ``error`` says the store lacks a table or a column the hook reads (an older
    schema: the full open migrates it)."""
    return type(error).__name__ == "OperationalError" and "no such" in str(error)


def lesson_stamp(path: str) -> int | None:
    """The lesson stamp read without migrating or locking (read-only); None when unreadable."""
    from kenning.store.sqlite.stamp import read_stamp

    return read_stamp(path)


def triggers(path: str, workspace: str) -> tuple[int, list[tuple[str, str | None, str, str, str, str, str, int]]]:
    """The lesson stamp and the workspace's trigger rows (ref, trigger, source_ref, kind,
    workspace, scope, created_at, order), read through the full open (which migrates)."""
    from kenning.store.sqlite.stores import open_sqlite

    stores = open_sqlite(path)
    try:
        stamp = stores.hooks.lesson_stamp(workspace)
        rows = [(r.ref, r.trigger, r.source_ref, r.kind.value, r.workspace, r.scope, r.created_at, r.order)
                for r in stores.memories.trigger_rows(workspace)]  # fmt: skip
    finally:
        stores.close()
    return stamp, rows
