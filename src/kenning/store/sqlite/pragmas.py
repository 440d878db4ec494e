"""The settings every SQLite connection kenning opens runs with: the one place they are set.

Standard library only: the hook processes set them on their own plain connection too
(``kenning.store.sqlite.hook_rows``), without importing the rest of the store.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is left unimported on purpose (start-up time); mypy reads True
if TYPE_CHECKING:
    import sqlite3


def apply(conn: sqlite3.Connection, *, busy_timeout_ms: int, set_wal: bool = True) -> None:
    """``set_wal``: switch the file to WAL (it stays in the file, so the hooks, which never
    create a store, leave it out)."""
    # Several kenning processes (hooks, MCP, sync) share one file; wait rather than fail.
    # Set first: switching a new file to WAL below takes a lock another opener may hold.
    conn.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
    if set_wal:
        # WAL lets hooks and the MCP server read while a sync writes.
        _switch_to_wal(conn, busy_timeout_ms)
    # Relations (events, uses, reviews) must not point at memories that are not there.
    conn.execute("PRAGMA foreign_keys=ON")
    # WAL with NORMAL is durable across application crashes (not power loss) and much faster.
    conn.execute("PRAGMA synchronous=NORMAL")
    # Freed space is zeroed: what a user forgets (or a migration redacts) leaves no old bytes
    # in the file's free pages.
    conn.execute("PRAGMA secure_delete=ON")


def _switch_to_wal(conn: sqlite3.Connection, busy_timeout_ms: int) -> None:
    """``PRAGMA journal_mode=WAL``, waiting for a lock as the busy timeout would.

    SQLite answers this pragma "database is locked" at once, without calling its busy handler,
    while another connection holds a write lock on a file not yet in WAL (processes racing to
    open a new store), so the wait is written here, bounded by the same timeout."""
    import time

    deadline = time.monotonic() + busy_timeout_ms / 1000
    pause = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except Exception as exc:  # sqlite3.OperationalError; sqlite3 is not imported here (start-up)
            if "locked" not in str(exc) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)
