"""The server's store on PostgreSQL (psycopg 3 and its connection pool).

Control-plane calls run as the login role (the schema's owner). Every data-plane transaction
first drops to ``kenning_app`` and names its token and workspace, so row-level security
(:mod:`kenning.store.server.schema`) decides what it may see and write, whatever the caller
forgot to check.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import Any, cast

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool, PoolTimeout

from kenning.store.postgres.db import Database
from kenning.store.postgres.stores import PostgresStores
from kenning.store.server import schema
from kenning.store.server.protocol import (
    Account,
    Busy,
    Device,
    DeviceCode,
    Grant,
    Invite,
    Member,
    NotPermitted,
    Role,
    StoredRecord,
    Workspace,
    fact_slot,
)

Row = dict[str, Any]
Pool = ConnectionPool[psycopg.Connection[Row]]
# How long a request waits for a database connection before it is answered 'busy'.
WAIT_SECONDS = 30.0


def _configure(conn: psycopg.Connection[Any]) -> None:
    conn.execute("SET TIME ZONE 'UTC'")
    conn.commit()


def connect_pool(dsn: str, *, min_size: int = 1, max_size: int = 10, name: str = "kenning-server") -> Pool:
    pool: Pool = ConnectionPool(
        dsn, min_size=min_size, max_size=max_size, open=False, name=name, configure=_configure,
        # Autocommit: a statement on its own is one round trip (no BEGIN and COMMIT around
        # it); what must be atomic says so with conn.transaction().
        kwargs={"row_factory": dict_row, "autocommit": True}, connection_class=psycopg.Connection,
    )  # fmt: skip
    pool.open(wait=True, timeout=30)
    return pool


def migrate(dsn: str) -> list[str]:
    """Bring the server's schema up to date, connected as the schema's owner: the memory
    store's sets first (the server materializes pushed memories into them), then its own."""
    from kenning.store.postgres.schema import migrate_schema

    done = migrate_schema(dsn)
    with psycopg.connect(dsn, autocommit=True) as conn:
        return done + schema.migrate(conn)


def pending(conn: psycopg.Connection[Any]) -> list[str]:
    """Migrations of the store's sets and the server's own not applied yet."""
    from kenning.store.postgres.db import pending as store_pending
    from kenning.store.postgres.schema import all_sets

    return store_pending(conn, all_sets()) + schema.pending(conn)


def _account(row: Row) -> Account:
    return Account(row["id"], row["name"], row["created_at"])


def _device(row: Row) -> Device:
    return Device(row["id"], row["account"], row["label"], tuple(row["workspaces"]), row["created_at"],
                  row["expires_at"], row["revoked_at"], row["last_seen_at"], row["kind"])  # fmt: skip


def _code(row: Row) -> DeviceCode:
    return DeviceCode(row["user_code"], row["label"], row["requested_at"], row["expires_at"], row["account"],
                      tuple(row["workspaces"]), row["claimed_at"])  # fmt: skip


def _record(row: Row) -> StoredRecord:
    return StoredRecord(row["kind"], row["key"], row["owner"], row["seq"], row["digest"], row["deleted"],
                        row["private"], row.get("body"))  # fmt: skip


_RECORD_SELECT = (
    "SELECT r.kind, r.key, r.owner, r.seq, r.digest, r.deleted, r.private, b.body FROM records r"
    " LEFT JOIN record_bodies b ON b.workspace = r.workspace AND b.kind = r.kind AND b.key = r.key"
)


class _Lent:
    """One connection lent as a pool: a :class:`Database` over it works inside the
    transaction the connection has open (its own transactions become savepoints)."""

    def __init__(self, conn: psycopg.Connection[Row]) -> None:
        self.conn = conn

    @contextmanager
    def connection(self, timeout: float | None = None) -> Iterator[psycopg.Connection[Row]]:
        yield self.conn

    def close(self) -> None:
        """The connection goes back to the server's pool with its transaction, not here."""


class PgWorkspaceTx:
    """One data-plane transaction (see :class:`kenning.store.server.protocol.WorkspaceTx`)."""

    def __init__(self, conn: psycopg.Connection[Row], workspace: str) -> None:
        self.conn = conn
        self.ws = workspace
        self._stores: PostgresStores | None = None

    def stores(self) -> PostgresStores:
        if self._stores is None:
            # Bound to the workspace: the transaction already named it (and its token), so
            # the database sets nothing per call; row-level security admits this workspace only.
            self._stores = PostgresStores(Database(cast(Any, _Lent(self.conn)), self.ws, under_policy=True,
                                                    one_transaction=True))
        return self._stores

    def _one(self, sql: str, params: Sequence[object]) -> Row | None:
        return self.conn.execute(sql.encode(), params).fetchone()

    def pipelined(self) -> AbstractContextManager[object]:
        return self.conn.pipeline()

    def lock(self) -> int:
        row = self._one("UPDATE workspace_seq SET last = last WHERE workspace = %s RETURNING last", (self.ws,))
        if row is None:
            raise NotPermitted(f"no write access to workspace {self.ws!r}")
        return int(row["last"])

    def head(self) -> int:
        row = self._one("SELECT last FROM workspace_seq WHERE workspace = %s", (self.ws,))
        if row is None:
            raise NotPermitted(f"no access to workspace {self.ws!r}")
        return int(row["last"])

    def _next(self) -> int:
        row = self._one("UPDATE workspace_seq SET last = last + 1 WHERE workspace = %s RETURNING last", (self.ws,))
        if row is None:
            raise NotPermitted(f"no write access to workspace {self.ws!r}")
        return int(row["last"])

    def batch(self, batch_id: str) -> tuple[str, Mapping[str, Any]] | None:
        row = self._one("SELECT digest, result FROM batches WHERE workspace = %s AND batch_id = %s", (self.ws, batch_id))
        return None if row is None else (row["digest"], row["result"])

    def save_batch(self, batch_id: str, account: str, digest: str, result: Mapping[str, Any], at: datetime) -> None:
        self.conn.execute(
            "INSERT INTO batches (workspace, batch_id, account, digest, result, at) VALUES (%s, %s, %s, %s, %s, %s)",
            (self.ws, batch_id, account, digest, Jsonb(dict(result)), at),
        )

    def record(self, kind: str, key: str) -> StoredRecord | None:
        row = self._one(_RECORD_SELECT + " WHERE r.workspace = %s AND r.kind = %s AND r.key = %s", (self.ws, kind, key))
        return None if row is None else _record(row)

    def records(self, kind: str, keys: Sequence[str]) -> list[StoredRecord]:
        if not keys:
            return []
        rows = self.conn.execute(
            (_RECORD_SELECT + " WHERE r.workspace = %s AND r.kind = %s AND r.key = ANY(%s)").encode(),
            (self.ws, kind, list(keys)),
        ).fetchall()
        found = {r["key"]: _record(r) for r in rows}
        return [found[k] for k in keys if k in found]

    def memories_on_slot(self, scope: str, subject: str, owner: str) -> list[StoredRecord]:
        rows = self.conn.execute(
            b"SELECT r.kind, r.key, r.owner, r.seq, r.digest, r.deleted, r.private, b.body FROM record_bodies b"
            b" JOIN records r ON r.workspace = b.workspace AND r.kind = b.kind AND r.key = b.key"
            b" WHERE b.workspace = %s AND b.kind = 'memory' AND b.live AND b.scope = %s AND b.subject = %s"
            b" AND b.owner = %s ORDER BY r.seq",
            (self.ws, scope, subject, owner),
        ).fetchall()
        return [_record(r) for r in rows]

    def facts_asserting(self, slot: str) -> list[StoredRecord]:
        rows = self.conn.execute(
            b"SELECT r.kind, r.key, r.owner, r.seq, r.digest, r.deleted, r.private, b.body FROM record_bodies b"
            b" JOIN records r ON r.workspace = b.workspace AND r.kind = b.kind AND r.key = b.key"
            b" WHERE b.workspace = %s AND b.kind = 'fact' AND b.live AND b.subject = %s AND NOT b.private"
            b" AND NOT r.deleted ORDER BY r.seq",
            (self.ws, slot),
        ).fetchall()
        return [_record(r) for r in rows]

    def put(
        self, kind: str, key: str, owner: str, body: Mapping[str, Any], digest: str, *,
        private: bool, at: datetime,
    ) -> int:  # fmt: skip
        seq = self._next()
        self.conn.execute(
            b"INSERT INTO records (workspace, kind, key, owner, seq, digest, deleted, private, updated_at)"
            b" VALUES (%s, %s, %s, %s, %s, %s, false, %s, %s) ON CONFLICT (workspace, kind, key) DO UPDATE"
            b" SET seq = excluded.seq, digest = excluded.digest, deleted = false, private = excluded.private,"
            b" updated_at = excluded.updated_at",
            (self.ws, kind, key, owner, seq, digest, private, at),
        )
        memory = kind == "memory"
        scope = str(body.get("scope", "")) if memory else ""
        subject = str(body.get("subject", "")) if memory else fact_slot(body) if kind == "fact" else ""
        live = body.get("status", "active") == "active" if memory else body.get("valid_to") is None
        self.conn.execute(
            b"INSERT INTO record_bodies (workspace, kind, key, owner, private, scope, subject, live, body)"
            b" VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (workspace, kind, key) DO UPDATE"
            b" SET private = excluded.private, scope = excluded.scope, subject = excluded.subject,"
            b" live = excluded.live, body = excluded.body",
            (self.ws, kind, key, owner, private, scope, subject, live, Jsonb(dict(body))),
        )
        return seq

    def delete(self, kind: str, key: str, owner: str, digest: str, *, at: datetime) -> int:
        seq = self._next()
        self.conn.execute(
            b"INSERT INTO records (workspace, kind, key, owner, seq, digest, deleted, private, updated_at)"
            b" VALUES (%s, %s, %s, %s, %s, %s, true, false, %s) ON CONFLICT (workspace, kind, key) DO UPDATE"
            b" SET seq = excluded.seq, digest = excluded.digest, deleted = true, private = false,"
            b" updated_at = excluded.updated_at",
            (self.ws, kind, key, owner, seq, digest, at),
        )
        self.conn.execute(
            b"DELETE FROM record_bodies WHERE workspace = %s AND kind = %s AND key = %s", (self.ws, kind, key)
        )
        return seq

    def changes(self, after: int, limit: int) -> list[StoredRecord]:
        rows = self.conn.execute(
            (_RECORD_SELECT + " WHERE r.workspace = %s AND r.seq > %s ORDER BY r.seq LIMIT %s").encode(),
            (self.ws, after, limit),
        ).fetchall()
        return [_record(r) for r in rows]

    def count(self, kind: str | None = None) -> int:
        if kind is None:
            row = self._one("SELECT count(*) AS n FROM records WHERE workspace = %s AND NOT deleted", (self.ws,))
        else:
            row = self._one("SELECT count(*) AS n FROM records WHERE workspace = %s AND kind = %s AND NOT deleted",
                            (self.ws, kind))  # fmt: skip
        return int(row["n"]) if row else 0


class PostgresServerStore:
    """The :class:`kenning.store.server.protocol.ServerStore` on a psycopg pool."""

    def __init__(self, pool: Pool, writers: Pool | None = None) -> None:
        self.pool = pool
        # Writers of a workspace take turns on its sequence row (WorkspaceTx.lock). A queue of
        # them waits for one of these few connections, never for those reads and sign-ins use.
        self.writers = writers if writers is not None else pool

    @classmethod
    def open(
        cls, dsn: str, *, min_size: int = 1, max_size: int = 10, writers: int = 4, run_migrations: bool = True
    ) -> PostgresServerStore:
        if run_migrations:
            migrate(dsn)
        else:
            with psycopg.connect(dsn, autocommit=True) as conn:
                behind = pending(conn)
            if behind:
                from kenning.errors import Refused

                raise Refused(f"the server's schema is behind ({len(behind)} migrations pending, first {behind[0]})",
                              fix="start the server once as the schema's owner so it can migrate")  # fmt: skip
        return cls(connect_pool(dsn, min_size=min_size, max_size=max_size),
                   connect_pool(dsn, min_size=1, max_size=writers, name="kenning-server-writers"))  # fmt: skip

    def close(self) -> None:
        self.pool.close()
        if self.writers is not self.pool:
            self.writers.close()

    # -- plumbing -------------------------------------------------------------------------------
    @contextmanager
    def _lend(self, pool: Pool | None = None) -> Iterator[psycopg.Connection[Row]]:
        """A connection of ``pool`` (the readers' by default); :class:`Busy` when none comes
        free within WAIT_SECONDS (every one is in use: the server is past what it can take)."""
        pool = pool or self.pool
        try:
            conn = pool.getconn(timeout=WAIT_SECONDS)
        except PoolTimeout as exc:
            raise Busy(f"no database connection came free within {WAIT_SECONDS:g} s") from exc
        try:
            yield conn
        finally:
            pool.putconn(conn)

    def _rows(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        """One statement, atomic on its own (the connections autocommit)."""
        with self._lend() as conn:
            cur = conn.execute(sql.encode(), params)
            return cur.fetchall() if cur.description else []

    def _row(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        rows = self._rows(sql, params)
        return rows[0] if rows else None

    def ready(self) -> bool:
        try:
            with self.pool.connection(timeout=5) as conn:
                migrated = not pending(conn)
        except (psycopg.Error, OSError):
            return False
        return migrated

    # -- accounts and workspaces ----------------------------------------------------------------
    def add_account(self, name: str, at: datetime) -> Account:
        row = self._row("INSERT INTO accounts (id, name, created_at) VALUES (%s, %s, %s) RETURNING *",
                        (f"acc_{secrets.token_hex(8)}", name, at))  # fmt: skip
        assert row is not None
        return _account(row)

    def account(self, name_or_id: str) -> Account | None:
        row = self._row("SELECT * FROM accounts WHERE id = %s OR name = %s", (name_or_id, name_or_id))
        return None if row is None else _account(row)

    def accounts(self) -> list[Account]:
        return [_account(r) for r in self._rows("SELECT * FROM accounts ORDER BY name")]

    def add_workspace(self, slug: str, name: str, owner: str, at: datetime) -> Workspace:
        with self._lend() as conn, conn.transaction():
            row = conn.execute(b"INSERT INTO workspaces (slug, name, created_at) VALUES (%s, %s, %s) RETURNING *",
                               (slug, name, at)).fetchone()  # fmt: skip
            conn.execute(b"INSERT INTO workspace_seq (workspace) VALUES (%s)", (slug,))
            conn.execute(b"INSERT INTO members (workspace, account, role) VALUES (%s, %s, 'owner')", (slug, owner))
        assert row is not None
        return Workspace(row["slug"], row["name"], row["created_at"])

    def workspaces(self, account: str | None = None) -> list[Workspace]:
        if account is None:
            rows = self._rows("SELECT * FROM workspaces ORDER BY slug")
        else:
            rows = self._rows("SELECT w.* FROM workspaces w JOIN members m ON m.workspace = w.slug"
                              " WHERE m.account = %s ORDER BY w.slug", (account,))  # fmt: skip
        return [Workspace(r["slug"], r["name"], r["created_at"]) for r in rows]

    def set_member(self, workspace: str, account: str, role: Role) -> None:
        self._rows("INSERT INTO members (workspace, account, role) VALUES (%s, %s, %s)"
                   " ON CONFLICT (workspace, account) DO UPDATE SET role = excluded.role",
                   (workspace, account, role.value))  # fmt: skip

    def remove_member(self, workspace: str, account: str) -> bool:
        with self._lend() as conn, conn.transaction():
            return conn.execute(b"DELETE FROM members WHERE workspace = %s AND account = %s",
                                (workspace, account)).rowcount > 0  # fmt: skip

    def members(self, workspace: str) -> list[Member]:
        rows = self._rows("SELECT m.*, a.name FROM members m JOIN accounts a ON a.id = m.account"
                          " WHERE m.workspace = %s ORDER BY a.name", (workspace,))  # fmt: skip
        return [Member(r["workspace"], r["account"], r["name"], Role(r["role"])) for r in rows]

    def role(self, workspace: str, account: str) -> Role | None:
        row = self._row("SELECT role FROM members WHERE workspace = %s AND account = %s", (workspace, account))
        return None if row is None else Role(row["role"])

    # -- devices --------------------------------------------------------------------------------
    def add_device(
        self, account: str, label: str, workspaces: Sequence[str], token_hash: str, at: datetime, *,
        expires_at: datetime | None = None, kind: str = "device",
    ) -> Device:  # fmt: skip
        row = self._row(
            "INSERT INTO devices (id, account, label, kind, token_hash, workspaces, created_at, expires_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING *",
            (f"dev_{secrets.token_hex(6)}", account, label, kind, token_hash, list(workspaces), at, expires_at),
        )
        assert row is not None
        return _device(row)

    def device_by_token(self, token_hash: str) -> Device | None:
        row = self._row("SELECT * FROM devices WHERE token_hash = %s", (token_hash,))
        return None if row is None else _device(row)

    def signed_in(self, token_hash: str) -> tuple[Device, dict[str, Role]] | None:
        row = self._row(
            "SELECT d.*, coalesce((SELECT jsonb_object_agg(m.workspace, m.role) FROM members m"
            " WHERE m.account = d.account AND m.workspace = ANY(d.workspaces)), '{}') AS roles"
            " FROM devices d WHERE d.token_hash = %s",
            (token_hash,),
        )
        if row is None:
            return None
        return _device(row), {ws: Role(role) for ws, role in row["roles"].items()}

    def device(self, device_id: str) -> Device | None:
        row = self._row("SELECT * FROM devices WHERE id = %s", (device_id,))
        return None if row is None else _device(row)

    def devices(self, account: str | None = None) -> list[Device]:
        if account is None:
            rows = self._rows("SELECT * FROM devices ORDER BY created_at")
        else:
            rows = self._rows("SELECT * FROM devices WHERE account = %s ORDER BY created_at", (account,))
        return [_device(r) for r in rows]

    def revoke_device(self, device_id: str, at: datetime) -> bool:
        with self._lend() as conn, conn.transaction():
            return conn.execute(b"UPDATE devices SET revoked_at = %s WHERE id = %s AND revoked_at IS NULL",
                                (at, device_id)).rowcount > 0  # fmt: skip

    def touch_device(self, device_id: str, at: datetime) -> None:
        self._rows("UPDATE devices SET last_seen_at = %s WHERE id = %s", (at, device_id))

    # -- invites and device codes ---------------------------------------------------------------
    def add_invite(
        self, account: str, workspaces: Sequence[str], token_hash: str, at: datetime, expires_at: datetime
    ) -> Invite:
        self._rows("INSERT INTO invites (token_hash, account, workspaces, created_at, expires_at)"
                   " VALUES (%s, %s, %s, %s, %s)", (token_hash, account, list(workspaces), at, expires_at))  # fmt: skip
        return Invite(account, tuple(workspaces), at, expires_at, None)

    def claim_invite(self, token_hash: str, at: datetime) -> Invite | None:
        row = self._row(
            "UPDATE invites SET used_at = %s WHERE token_hash = %s AND used_at IS NULL AND expires_at > %s"
            " RETURNING *", (at, token_hash, at))  # fmt: skip
        if row is None:
            return None
        return Invite(row["account"], tuple(row["workspaces"]), row["created_at"], row["expires_at"], row["used_at"])

    def add_device_code(self, code_hash: str, user_code: str, label: str, at: datetime, expires_at: datetime) -> DeviceCode:
        row = self._row("INSERT INTO device_codes (code_hash, user_code, label, requested_at, expires_at)"
                        " VALUES (%s, %s, %s, %s, %s) RETURNING *", (code_hash, user_code, label, at, expires_at))  # fmt: skip
        assert row is not None
        return _code(row)

    def confirm_device_code(self, user_code: str, account: str, workspaces: Sequence[str], at: datetime) -> DeviceCode | None:
        row = self._row(
            "UPDATE device_codes SET account = %s, workspaces = %s, confirmed_at = %s WHERE user_code = %s"
            " AND account IS NULL AND expires_at > %s RETURNING *",
            (account, list(workspaces), at, user_code, at),
        )
        return None if row is None else _code(row)

    def claim_device_code(self, code_hash: str, at: datetime) -> DeviceCode | None:
        row = self._row(
            "UPDATE device_codes SET claimed_at = %s WHERE code_hash = %s AND account IS NOT NULL"
            " AND claimed_at IS NULL AND expires_at > %s RETURNING *", (at, code_hash, at))  # fmt: skip
        return None if row is None else _code(row)

    def pending_device_code(self, code_hash: str) -> DeviceCode | None:
        row = self._row("SELECT * FROM device_codes WHERE code_hash = %s", (code_hash,))
        return None if row is None else _code(row)

    # -- browser sign-in links ------------------------------------------------------------------
    def add_web_link(
        self, token_hash: str, device: str, workspaces: Sequence[str], at: datetime, expires_at: datetime
    ) -> None:
        self._rows("INSERT INTO web_links (token_hash, account, device, workspaces, created_at, expires_at)"
                   " SELECT %s, d.account, d.id, %s, %s, %s FROM devices d WHERE d.id = %s",
                   (token_hash, list(workspaces), at, expires_at, device))  # fmt: skip

    def claim_web_link(
        self, token_hash: str, session_hash: str, label: str, at: datetime, expires_at: datetime
    ) -> Device | None:
        with self._lend() as conn, conn.transaction():
            link = conn.execute(
                b"UPDATE web_links l SET used_at = %s WHERE l.token_hash = %s AND l.used_at IS NULL"
                b" AND l.expires_at > %s AND EXISTS (SELECT 1 FROM devices d WHERE d.id = l.device"
                b" AND d.kind = 'device' AND d.revoked_at IS NULL AND (d.expires_at IS NULL OR d.expires_at > %s))"
                b" RETURNING l.account, l.workspaces",
                (at, token_hash, at, at),
            ).fetchone()
            if link is None:
                return None
            row = conn.execute(
                b"INSERT INTO devices (id, account, label, kind, token_hash, workspaces, created_at, expires_at)"
                b" VALUES (%s, %s, %s, 'web', %s, %s, %s, %s) RETURNING *",
                (f"web_{secrets.token_hex(6)}", link["account"], label, session_hash, link["workspaces"], at, expires_at),
            ).fetchone()
            assert row is not None
            conn.execute(b"UPDATE web_links SET session = %s WHERE token_hash = %s", (row["id"], token_hash))
        return _device(row)

    # -- the data plane -------------------------------------------------------------------------
    @contextmanager
    def workspace(self, grant: Grant, *, write: bool = False) -> Iterator[PgWorkspaceTx]:
        with self._lend(self.writers if write else self.pool) as conn, conn.transaction():
            # SET LOCAL ROLE and the request's settings in one round trip (role is a setting too).
            conn.execute(b"SELECT set_config('role', %s, true), set_config(%s, %s, true), set_config(%s, %s, true)",
                         (schema.APP_ROLE, schema.TOKEN_SETTING, grant.token_hash, schema.WORKSPACE_SETTING,
                          grant.workspace))  # fmt: skip
            yield PgWorkspaceTx(conn, grant.workspace)
