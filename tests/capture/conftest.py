"""Fixtures for capture tests (helpers live in capture_fixtures.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from capture_fixtures import build_home

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.service import Core
from kenning.store.sqlite.db import Database
from kenning.store.sqlite.schema import open_database
from kenning.store.sqlite.stores import SqliteStores


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return build_home(tmp_path / "home")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "kenning")


@pytest.fixture
def db(settings: Settings) -> Iterator[Database]:
    database = open_database(settings.db_path)
    yield database
    database.close()




@pytest.fixture
def core(db: Database, settings: Settings) -> Core:
    """The core over ``db`` at a fixed time (closing it is the ``db`` fixture's job)."""
    return Core(SqliteStores(db), FixedClock(), settings)
