"""Fixtures of the team server tests: a real PostgreSQL database per test (tests/server/pgserver.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import pgserver  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def _stop_postgres() -> Iterator[None]:
    yield
    pgserver.stop()


@pytest.fixture()
def server_dsn() -> Iterator[str]:
    dsn = pgserver.fresh_database()
    yield dsn
    pgserver.drop(dsn)
