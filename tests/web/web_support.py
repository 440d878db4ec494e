"""Helpers for the web app's tests (a uniquely named module: several test folders have a
conftest.py, so tests import these from here, not from conftest)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from kenning.core.service import Core
from kenning.web.auth import LocalTokenAuth

BASE = "http://127.0.0.1:8765"
ORIGIN = BASE
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]  # fmt: skip


@dataclass
class Served:
    url: str  # with the launch token
    base: str
    auth: LocalTokenAuth
    core: Core


def csrf_of(client: TestClient, path: str = "/rules") -> str:
    page = client.get(path).text
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert found, f"no csrf field on {path}"
    return found.group(1)


def shoot(tab: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    tab.screenshot(path=str(path), full_page=True)
    return path


@contextmanager
def browser_tab(browser: Any, *, timeout_ms: int = 10_000) -> Iterator[Any]:
    """A fresh tab in a context of its own (1280×900) that keeps what the page logs as an error
    (console errors, uncaught exceptions; CSP violations show there) in ``tab.errors``."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(timeout_ms)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.errors = errors
    try:
        yield tab
    finally:
        context.close()
