"""Fixtures for capture tests (helpers live in capture_fixtures.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from capture_fixtures import build_home

from kenning.config import Settings
from kenning.store.sqlite.db import Database
from kenning.store.sqlite.schema import open_database


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


