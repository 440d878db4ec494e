"""One SQLite connection, set up in one place, and numbered migrations applied on open.

Each subsystem (memory, capture, graph, hooks, ...) owns a named :class:`MigrationSet` in its
own module, so subsystems evolve their schema without touching each other's files. Every
migration runs in one transaction together with its record in ``_migrations``: a failure
rolls both back and the migration stays pending.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from kenning import private
from kenning.store import BUSY_TIMEOUT_MS, migration_set
from kenning.store.sqlite import pragmas

Migration = Callable[[sqlite3.Connection], None]
T = TypeVar("T")


class MigrationSet(migration_set.MigrationSet[sqlite3.Connection]):
    def run_script(self, conn: sqlite3.Connection, script: str) -> None:
        for statement in _split_sql(script):
            conn.execute(statement)


def _split_sql(script: str) -> list[str]:
    # sqlite3.complete_statement tells where a statement ends even with triggers (BEGIN...END).
    statements: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                statements.append(buf.strip())
            buf = ""
    if buf.strip():
        statements.append(buf.strip())
    return statements


def connect(path: Path | str, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    """Open a connection with kenning's pragmas (kenning.store.sqlite.pragmas, the one place)."""
    if str(path) != ":memory:":
        private.prepare_file(Path(path))
    # isolation_level=None: we issue BEGIN/COMMIT ourselves, so a transaction is exactly
    # what `Database.transaction` says it is.
    conn = sqlite3.connect(
        str(path), isolation_level=None, check_same_thread=False, timeout=busy_timeout_ms / 1000
    )
    conn.row_factory = sqlite3.Row
    pragmas.apply(conn, busy_timeout_ms=busy_timeout_ms)
    if str(path) != ":memory:":
        # SQLite makes -wal and -shm with the database's mode; older ones are tightened here.
        private.tighten_store(Path(path))
    return conn


class Database:
    """A connection plus the transaction discipline every backend module uses."""

    def __init__(self, conn: sqlite3.Connection, path: Path | None = None) -> None:
        self.conn = conn
        self.path = path
        self._lock = threading.RLock()
        self._depth = 0

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT; nested calls join the outer transaction."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self.conn
                finally:
                    self._depth -= 1
                return
            self.conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield self.conn
            except BaseException:
                self._depth = 0
                self.conn.execute("ROLLBACK")
                raise
            self._depth = 0
            self.conn.execute("COMMIT")

    def execute(self, sql: str, params: Sequence[object] | dict[str, object] = ()) -> sqlite3.Cursor:
        with self._lock:
            return self.conn.execute(sql, params)

    def query(self, sql: str, params: Sequence[object] | dict[str, object] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self.conn.execute(sql, params).fetchall()

    def scrub(self) -> None:
        """After a delete meant for real: merge the full-text indexes (their old segments still
        hold deleted words until merged; freed pages are zeroed, ``secure_delete``) and write the
        log back into the database and empty it."""
        with self.transaction() as conn:
            tables = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                                  " AND sql LIKE '%USING fts5%' AND sql NOT LIKE '%fts5vocab%'").fetchall()  # fmt: skip
            for (table,) in tables:
                conn.execute(f"INSERT INTO \"{table}\" (\"{table}\") VALUES ('optimize')")
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def bytes_in_use(self) -> int:
        """Bytes of the main database file that hold data (free pages left by deletes not counted)."""
        page_size = int(self.conn.execute("PRAGMA page_size").fetchone()[0])
        pages = int(self.conn.execute("PRAGMA page_count").fetchone()[0])
        free = int(self.conn.execute("PRAGMA freelist_count").fetchone()[0])
        return (pages - free) * page_size

    def tuples(self, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
        """Rows as plain tuples: a scan of thousands (the health report) spends several times
        less making them than making :class:`sqlite3.Row` objects."""
        with self._lock:
            cursor = self.conn.cursor()
            cursor.row_factory = None
            rows: list[tuple[object, ...]] = cursor.execute(sql, params).fetchall()
            return rows

    def one(self, sql: str, params: Sequence[object] | dict[str, object] = ()) -> sqlite3.Row | None:
        with self._lock:
            row: sqlite3.Row | None = self.conn.execute(sql, params).fetchone()
            return row

    def using(self, fn: Callable[..., T], *args: object) -> T:
        """``fn(connection, *args)`` under this connection's lock: the statements the hooks run
        on a plain sqlite3 connection (kenning.store.sqlite.hook_rows), shared with the stores."""
        with self._lock:
            return fn(self.conn, *args)

    def close(self) -> None:
        with self._lock:
            self.conn.close()


def _ensure_ledger(conn: sqlite3.Connection) -> None:
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_migrations'").fetchone():
        return
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations ("
        " migration_set TEXT NOT NULL, name TEXT NOT NULL, applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
        " PRIMARY KEY (migration_set, name))"
    )


def applied(conn: sqlite3.Connection, set_name: str) -> list[str]:
    _ensure_ledger(conn)
    rows = conn.execute(
        "SELECT name FROM _migrations WHERE migration_set = ? ORDER BY rowid", (set_name,)
    ).fetchall()
    return [r[0] for r in rows]


def migrate(
    conn: sqlite3.Connection, sets: Sequence[MigrationSet], *, stop_before: dict[str, str] | None = None
) -> list[str]:
    """Apply every pending migration of ``sets`` in order; return ``set/name`` of each applied.

    Several processes open a fresh store at once (right after an install: hooks, the MCP
    server and the CLI), so which migrations are applied is read again after the write lock
    is taken (``BEGIN IMMEDIATE``): a step another process applied meanwhile is skipped, never
    run twice. A store with nothing pending is checked without taking the lock.
    ``stop_before`` (tests only) leaves a set at an earlier schema.
    """
    wanted = migration_set.wanted(sets, stop_before)
    if _has_ledger(conn) and not _pending(conn, wanted):
        return []
    done: list[str] = []
    conn.execute("BEGIN IMMEDIATE")
    try:
        _ensure_ledger(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    steps = {(mset.name, name): step for mset in sets for name, step in mset.steps}
    for key in wanted:
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute(
                "SELECT 1 FROM _migrations WHERE migration_set = ? AND name = ?", key
            ).fetchone() is None:
                steps[key](conn)
                conn.execute("INSERT INTO _migrations (migration_set, name) VALUES (?, ?)", key)
                done.append(f"{key[0]}/{key[1]}")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    return done


def _has_ledger(conn: sqlite3.Connection) -> bool:
    return bool(
        conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_migrations'").fetchone()
    )


def _pending(conn: sqlite3.Connection, wanted: list[tuple[str, str]]) -> bool:
    have = {(r[0], r[1]) for r in conn.execute("SELECT migration_set, name FROM _migrations")}
    return any(key not in have for key in wanted)
