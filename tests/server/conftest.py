"""Fixtures of the team server tests: a database of its own per test on the run's real
PostgreSQL (tests/server/pgserver.py over tests/postgres_server.py, which the root conftest
stops at the end of the run)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import pgserver  # noqa: E402


@pytest.fixture()
def server_dsn() -> Iterator[str]:
    dsn = pgserver.fresh_database()
    yield dsn
    pgserver.drop(dsn)
