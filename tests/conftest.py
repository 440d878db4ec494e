"""Shared fixtures. Every test gets its own data folder: no test can touch a real home."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.scopes import Place
from kenning.core.service import Core


def pytest_report_header() -> str:
    return f"sqlite {sqlite3.sqlite_version}; PostgreSQL tests start their own server (tests/postgres_server.py)"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # The PostgreSQL server, if this process started or joined it: the last process of the
    # run stops it and deletes its data folder.
    import postgres_server

    postgres_server.stop()


@pytest.fixture(autouse=True)
def kenning_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "kenning-home"
    monkeypatch.setenv("KENNING_HOME", str(home))
    # Hooks started by tests do not leave refresh processes behind; one test turns it on.
    monkeypatch.setenv("KENNING_BACKGROUND", "off")
    return home


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))


@pytest.fixture
def settings(kenning_home: Path) -> Settings:
    return Settings(home=kenning_home)


@pytest.fixture
def core(settings: Settings, clock: FixedClock) -> Iterator[Core]:
    c = Core.open(settings, clock)
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def place(core: Core) -> Place:
    return core.place(project="github.com/acme/shop")
