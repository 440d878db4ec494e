"""A psycopg connection pool, the transaction discipline the stores use, and numbered migrations.

Mirrors :mod:`kenning.store.sqlite.db`: each subsystem owns a named :class:`MigrationSet`; each
migration runs in one transaction together with its row in ``_migrations`` (PostgreSQL's DDL
is transactional), so a failure rolls both back and the migration stays pending. Several
servers starting at once take turns on an advisory lock; a step applied meanwhile is skipped.

Every transaction names the workspace it acts in (``kenning.workspace``, set with
``set_config(..., true)`` so it ends with the transaction): the row-level security policies of
every table (:mod:`kenning.store.postgres.rls`) let a connection see and write only that
workspace's rows.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from kenning.errors import Refused
from kenning.store import migration_set

Migration = Callable[[psycopg.Connection[Any]], None]
Params = Sequence[object] | dict[str, object]
Row = dict[str, Any]

# pg_advisory_lock key of kenning's migrations: "kenning" in ASCII.
MIGRATION_LOCK = int.from_bytes(b"kenning", "big")
WORKSPACE_SETTING = "kenning.workspace"
# The role every table grants its rows to (under row-level security); the server's login role
# is made a member of it. docs/store.md says how.
APP_ROLE = "kenning_app"


class MigrationSet(migration_set.MigrationSet[psycopg.Connection[Any]]):
    def run_script(self, conn: psycopg.Connection[Any], script: str) -> None:
        # Without parameters psycopg sends the script whole (simple query protocol).
        conn.execute(script.encode())


class Database:
    """A connection pool and the transaction discipline of the stores.

    :meth:`transaction` lends the calling thread one connection for the length of a
    transaction; calls nested in it join it. A statement run on its own (:meth:`query`,
    :meth:`one`, :meth:`execute`) outside a transaction costs one round trip (autocommit),
    unless the connection must first name its workspace.

    ``workspace`` binds the database: every connection acts in that workspace whatever a call
    names (set once per connection). Unbound, a transaction acts in the workspace its call
    names, set at its start, when the connected role is under row-level security at all (the
    schema's owner and superusers are not: they see every workspace).
    """

    def __init__(
        self, pool: ConnectionPool[psycopg.Connection[Row]], workspace: str | None = None, *, under_policy: bool = True,
        one_transaction: bool = False,
    ) -> None:  # fmt: skip
        self.pool = pool
        self.workspace = workspace
        # The pool lends one connection already inside a transaction that outlives this
        # Database (a team server's request): what it read stays true until it writes.
        self.one_transaction = one_transaction
        self._per_call = workspace is None and under_policy
        self._local = threading.local()

    @contextmanager
    def transaction(self, workspace: str | None = None, *, pipelined: bool = False) -> Iterator[psycopg.Cursor[Row]]:
        """BEGIN ... COMMIT (acting in ``workspace`` when the database is unbound); nested
        calls join the outer transaction, in their own workspace while they run.
        ``pipelined``: statements are sent without waiting for each answer (pipeline mode)
        until a result is fetched or the transaction ends."""
        want = workspace if self._per_call else None
        cur: psycopg.Cursor[Row] | None = getattr(self._local, "cursor", None)
        if cur is not None:
            outer = self._local.workspace
            switch = want is not None and want != outer
            if want is not None and switch:
                _set_workspace(cur, want)
                self._local.workspace = want
            try:
                yield cur
            finally:
                if switch and not cur.closed and cur.connection.info.transaction_status == _INTRANS:
                    _set_workspace(cur, outer or "")
                    self._local.workspace = outer
            return
        with self.pool.connection() as conn, conn.pipeline() if pipelined else nullcontext(), conn.transaction(), conn.cursor() as cur:
            if want is not None:
                _set_workspace(cur, want)
            self._local.cursor, self._local.workspace = cur, want
            self._local.state, self._local.hooks = {}, {}
            try:
                yield cur
                # Still inside the transaction: what the hooks write commits with the rest.
                for hook in self._local.hooks.values():
                    hook(cur)
            finally:
                self._local.cursor = self._local.workspace = self._local.state = self._local.hooks = None

    def in_transaction(self) -> bool:
        return getattr(self._local, "cursor", None) is not None

    def state(self) -> dict[str, Any]:
        """A dict that lives as long as the current transaction (for work kept until commit)."""
        if not self.in_transaction():
            raise RuntimeError("no transaction is open")
        state: dict[str, Any] = self._local.state
        return state

    def before_commit(self, key: str, hook: Callable[[psycopg.Cursor[Row]], None]) -> None:
        """Run ``hook`` once, just before the current transaction commits (not on rollback)."""
        if not self.in_transaction():
            raise RuntimeError("no transaction is open")
        self._local.hooks.setdefault(key, hook)

    @contextmanager
    def reading(self, workspace: str | None = None) -> Iterator[psycopg.Cursor[Row]]:
        """A cursor for statements run on their own: the open transaction's, else one connection
        in autocommit (no BEGIN and COMMIT round trips; each statement sees the data as it
        starts, as SQLite's do outside a transaction), else, when the connection must first
        name ``workspace``, a transaction of its own."""
        if self.in_transaction() or (self._per_call and workspace is not None):
            with self.transaction(workspace) as cur:
                yield cur
            return
        with self.pool.connection() as conn, conn.cursor() as cur:
            yield cur

    @contextmanager
    def unflushed_commit(self, workspace: str | None = None) -> Iterator[psycopg.Cursor[Row]]:
        """A transaction whose commit does not wait for the write-ahead log to reach the disk,
        sent as one round trip (pipeline mode), for writes a crash may lose at no cost; inside
        an open transaction, that transaction."""
        inside = self.in_transaction()
        with self.transaction(workspace, pipelined=not inside) as cur:
            if not inside:
                cur.execute(b"SET LOCAL synchronous_commit TO off")
            yield cur

    def query(self, sql: str, params: Params = (), *, workspace: str | None = None) -> list[Row]:
        with self.reading(workspace) as cur:
            return cur.execute(sql.encode(), params).fetchall()

    def one(self, sql: str, params: Params = (), *, workspace: str | None = None) -> Row | None:
        with self.reading(workspace) as cur:
            return cur.execute(sql.encode(), params).fetchone()

    def execute(self, sql: str, params: Params = (), *, workspace: str | None = None) -> int:
        """Run one statement; the number of rows it touched."""
        with self.reading(workspace) as cur:
            return cur.execute(sql.encode(), params).rowcount

    def close(self) -> None:
        self.pool.close()


_INTRANS = psycopg.pq.TransactionStatus.INTRANS


def _set_workspace(cur: psycopg.Cursor[Row], workspace: str) -> None:
    cur.execute(b"SELECT set_config(%s, %s, true)", (WORKSPACE_SETTING, workspace))


def _configurer(workspace: str | None) -> Callable[[psycopg.Connection[Any]], None]:
    def configure(conn: psycopg.Connection[Any]) -> None:
        # Times come back in UTC, as the SQLite store returns them. A bound database names
        # its workspace once per connection, for the connection's life.
        conn.execute("SET TIME ZONE 'UTC'")
        if workspace is not None:
            conn.execute("SELECT set_config(%s, %s, false)", (WORKSPACE_SETTING, workspace))

    return configure


def connect_pool(
    dsn: str, *, workspace: str | None = None, min_size: int = 1, max_size: int = 8, name: str = "kenning"
) -> ConnectionPool[psycopg.Connection[Row]]:
    """A pool of ``dsn`` connections (autocommit, rows as dicts), opened and ready."""
    pool: ConnectionPool[psycopg.Connection[Row]] = ConnectionPool(
        dsn, min_size=min_size, max_size=max_size, open=False, name=name, configure=_configurer(workspace),
        kwargs={"row_factory": dict_row, "autocommit": True}, connection_class=psycopg.Connection,
    )  # fmt: skip
    pool.open(wait=True, timeout=30)
    return pool


def under_policy(conn: psycopg.Connection[Any], table: str) -> bool:
    """Whether row-level security applies to the connected role on ``table`` (not for its
    owner, a superuser or a role with BYPASSRLS)."""
    row = conn.execute(
        "SELECT NOT (r.rolsuper OR r.rolbypassrls OR c.relowner = r.oid) FROM pg_roles r, pg_class c"
        " WHERE r.rolname = current_user AND c.oid = to_regclass(%s)",
        (table,),
    ).fetchone()
    return bool(row is None or _first(row))


# -- migrations -----------------------------------------------------------------------------
_LEDGER = (
    "CREATE TABLE IF NOT EXISTS _migrations ("
    " migration_set TEXT COLLATE \"C\" NOT NULL, name TEXT COLLATE \"C\" NOT NULL,"
    " applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), seq BIGINT GENERATED ALWAYS AS IDENTITY,"
    " PRIMARY KEY (migration_set, name))"
)


def applied(conn: psycopg.Connection[Any], set_name: str) -> list[str]:
    if not _has_ledger(conn):
        return []
    rows = conn.execute(
        "SELECT name FROM _migrations WHERE migration_set = %s ORDER BY seq", (set_name,)
    ).fetchall()
    return [_first(r) for r in rows]


def migrate(
    conn: psycopg.Connection[Any], sets: Sequence[MigrationSet], *, stop_before: dict[str, str] | None = None
) -> list[str]:
    """Apply every pending migration of ``sets`` in order; return ``set/name`` of each applied.

    ``conn`` is in autocommit mode and connected as the schema's owner. Servers that start
    together queue on the advisory lock; each re-reads the ledger once it holds the lock, so
    no step runs twice. A schema with nothing pending is checked without the lock.
    ``stop_before`` (tests only) leaves a set at an earlier schema.
    """
    if not conn.autocommit:
        raise ValueError("migrate needs a connection in autocommit mode")
    wanted = migration_set.wanted(sets, stop_before)
    if _has_ledger(conn) and not _pending(conn, wanted):
        return []
    steps = {(mset.name, name): step for mset in sets for name, step in mset.steps}
    done: list[str] = []
    conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
    try:
        conn.execute(_LEDGER)
        for key in wanted:
            with conn.transaction():
                if conn.execute(
                    "SELECT 1 FROM _migrations WHERE migration_set = %s AND name = %s", key
                ).fetchone() is None:
                    steps[key](conn)
                    conn.execute("INSERT INTO _migrations (migration_set, name) VALUES (%s, %s)", key)
                    done.append(f"{key[0]}/{key[1]}")
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))
    return done


def pending(conn: psycopg.Connection[Any], sets: Sequence[MigrationSet]) -> list[str]:
    """``set/name`` of each migration not applied yet (read without the lock)."""
    wanted = migration_set.wanted(sets, None)
    if not _has_ledger(conn):
        return [f"{s}/{n}" for s, n in wanted]
    have = {(r[0], r[1]) for r in _tuples(conn, "SELECT migration_set, name FROM _migrations")}
    return [f"{s}/{n}" for s, n in wanted if (s, n) not in have]


def require_current(conn: psycopg.Connection[Any], sets: Sequence[MigrationSet]) -> None:
    """Refuse to run on a schema older than this code (a login role that may not migrate)."""
    behind = pending(conn, sets)
    if behind:
        raise Refused(
            f"the PostgreSQL schema is behind this version of kenning ({len(behind)} migrations pending,"
            f" first {behind[0]})",
            fix="run the migrations as the schema's owner (open the store with migrate on), then start again",
        )


def _has_ledger(conn: psycopg.Connection[Any]) -> bool:
    row = conn.execute("SELECT to_regclass('_migrations') IS NOT NULL").fetchone()
    return bool(row and _first(row))


def _pending(conn: psycopg.Connection[Any], wanted: list[tuple[str, str]]) -> bool:
    have = {(r[0], r[1]) for r in _tuples(conn, "SELECT migration_set, name FROM _migrations")}
    return any(key not in have for key in wanted)


def _tuples(conn: psycopg.Connection[Any], sql: str) -> list[tuple[Any, ...]]:
    with conn.cursor(row_factory=psycopg.rows.tuple_row) as cur:
        return cur.execute(sql.encode()).fetchall()


def _first(row: Any) -> Any:
    return next(iter(row.values())) if isinstance(row, dict) else row[0]
