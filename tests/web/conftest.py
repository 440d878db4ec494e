"""The web app over a real SQLite store: an in-process client (httpx through FastAPI's
TestClient) for the security and page tests, and a real uvicorn server on loopback for the
browser tests (tests/web/test_browser.py)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_seed import Seeded, seed
from web_support import BASE, CHROMIUM, CHROMIUM_ARGS, Served, browser_tab

from kenning.clock import FixedClock
from kenning.core.service import Core
from kenning.web.app import create_app, shared_core
from kenning.web.auth import LocalTokenAuth


@pytest.fixture
def auth() -> LocalTokenAuth:
    return LocalTokenAuth()


@pytest.fixture
def anonymous(core: Core, auth: LocalTokenAuth) -> Iterator[TestClient]:
    """A client that has not presented the token."""
    app = create_app(shared_core(core), auth)
    with TestClient(app, base_url=BASE, follow_redirects=False) as client:
        yield client


@pytest.fixture
def client(anonymous: TestClient, auth: LocalTokenAuth) -> TestClient:
    """A client that opened the printed address (so it holds the session cookie)."""
    answer = anonymous.get(f"/?token={auth.token}")
    assert answer.status_code == 303
    return anonymous


# -- a real server and a real browser ---------------------------------------------------------



@pytest.fixture
def clock() -> FixedClock:
    # After the recorded transcript (2026-08-10), so the report's 30-day window holds its session.
    return FixedClock(datetime(2026, 8, 12, 9, 0, tzinfo=UTC))


@pytest.fixture
def seeded(core: Core, tmp_path: Path) -> Seeded:
    return seed(core, tmp_path)


@pytest.fixture
def served(core: Core, seeded: Seeded) -> Iterator[Served]:
    """The app on a real uvicorn server on loopback, as `kenning ui` runs it."""
    from live_server import serving

    auth = LocalTokenAuth()
    with serving(create_app(shared_core(core), auth), timeout=10) as base:
        yield Served(auth.url(base), base, auth, core)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # Module scope, not session: Playwright's sync API keeps an event loop running in this
    # thread while it is open, and a later test in the same worker that runs its own loop
    # (the MCP client tests) would fail. Leaving the module stops it.
    if not CHROMIUM.exists():
        pytest.skip(f"chromium is not installed at {CHROMIUM} (apt-get install chromium); browser tests skipped")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def browse_page(browser: Any, served: Served) -> Iterator[Any]:
    """A fresh browser tab that opened the printed address (and so holds the cookie)."""
    with browser_tab(browser) as tab:
        tab.goto(served.url)
        yield tab
    assert tab.errors == [], f"the page logged errors (CSP violations show here): {tab.errors}"
