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
        conn.execute("PRAGMA journal_mode=WAL")
    # Relations (events, uses, reviews) must not point at memories that are not there.
    conn.execute("PRAGMA foreign_keys=ON")
    # WAL with NORMAL is durable across application crashes (not power loss) and much faster.
    conn.execute("PRAGMA synchronous=NORMAL")
    # Freed space is zeroed: what a user forgets (or a migration redacts) leaves no old bytes
    # in the file's free pages.
    conn.execute("PRAGMA secure_delete=ON")
