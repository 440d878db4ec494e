"""Every page in a real browser (Debian's chromium through Playwright): it renders with no
console error (a CSP violation would show there), links to every other page, and is saved as
a screenshot in test-artifacts/web/."""

from __future__ import annotations

from typing import Any

import pytest
from web_seed import CAPTURED_SESSION, PROJECT, Seeded
from web_support import Served, shoot

PAGES = {
    "memory": "/memory",
    "memory-search": "/memory?q=why+redis+job+queue",
    "memory-card": "/memory/{fact}",
    "review": "/review",
    "retire": "/retire?project={project}&session={session}",
    "map": "/map?project={project}",
    "map-file": "/map/file?project={project}&path=src/auth/login.py",
    "decisions": "/decisions",
    "rules": "/rules?project={project}",
    "health": "/health?show=1",
    "sessions": "/sessions",
    "sessions-search": "/sessions?q=login+test",
    "session": "/sessions/{captured}?q=login+test",
    "report": "/report",
}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_page_renders_links_everywhere_and_is_saved(browse_page: Any, served: Served, seeded: Seeded, name: str) -> None:
    path = PAGES[name].format(fact=seeded.fact, project=PROJECT, session="claude-code:9f1c2a7e-3b4d-4e5f-8a6b-7c8d9e0f1a2b",
                              captured=CAPTURED_SESSION)
    response = browse_page.goto(served.base + path)
    assert response.status == 200
    nav = browse_page.locator("nav[aria-label=Pages] a")
    assert nav.count() == 9
    shoot(browse_page, name)


@pytest.mark.parametrize("name", ["memory", "memory-card", "review", "map", "report", "session"])
def test_dark_scheme_screenshots(browser: Any, served: Served, seeded: Seeded, name: str) -> None:
    context = browser.new_context(color_scheme="dark", viewport={"width": 1280, "height": 900})
    try:
        tab = context.new_page()
        tab.goto(served.url)
        path = PAGES[name].format(fact=seeded.fact, project=PROJECT, session="", captured=CAPTURED_SESSION)
        assert tab.goto(served.base + path).status == 200
        background = tab.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(20, 23, 27)"  # the dark palette applies
        shoot(tab, f"dark-{name}")
    finally:
        context.close()
