"""Switching a new store file to WAL waits for another opener's write lock (SQLite answers the
pragma "database is locked" at once, without its busy handler, so kenning waits itself)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from kenning.store.sqlite import pragmas


def hold_write_lock(path: Path, held: threading.Event, release: threading.Event) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("CREATE TABLE IF NOT EXISTS first (x)")
    held.set()
    release.wait(10)
    conn.execute("COMMIT")
    conn.close()


def test_the_switch_to_wal_waits_for_a_write_lock_and_then_succeeds(tmp_path: Path) -> None:
    path = tmp_path / "kenning.db"
    held, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=hold_write_lock, args=(path, held, release))
    holder.start()
    assert held.wait(10)
    # What kenning works around: the bare pragma does not wait.
    bare = sqlite3.connect(path, isolation_level=None, timeout=5)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        bare.execute("PRAGMA journal_mode=WAL")
    bare.close()
    threading.Timer(0.3, release.set).start()
    conn = sqlite3.connect(path, isolation_level=None, timeout=5)
    pragmas.apply(conn, busy_timeout_ms=5_000)
    holder.join(10)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT count(*) FROM first").fetchone()[0] == 0  # the holder's work is there
    conn.close()


def test_a_lock_held_past_the_timeout_still_fails_with_the_lock_error(tmp_path: Path) -> None:
    path = tmp_path / "kenning.db"
    held, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=hold_write_lock, args=(path, held, release))
    holder.start()
    assert held.wait(10)
    conn = sqlite3.connect(path, isolation_level=None, timeout=0.05)
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            pragmas.apply(conn, busy_timeout_ms=50)
    finally:
        release.set()
        holder.join(10)
        conn.close()
