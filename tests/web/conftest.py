"""The web app over a real SQLite store: an in-process client (httpx through FastAPI's
TestClient) for the security and page tests, and a real uvicorn server on loopback for the
browser tests (tests/web/test_browser.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from kenning.core.service import Core
from kenning.web.app import create_app, shared_core
from kenning.web.auth import LocalTokenAuth

BASE = "http://127.0.0.1:8765"
ORIGIN = BASE


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


def csrf_of(client: TestClient, path: str = "/memory") -> str:
    import re

    page = client.get(path).text
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert found, f"no csrf field on {path}"
    return found.group(1)
