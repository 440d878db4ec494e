"""The team server's pages in a real browser (Debian's chromium through Playwright) against
the whole server app on loopback and a real PostgreSQL: a sign-in link opens the Memory page
of the workspace, the switcher changes workspace, a viewer finds nothing to click, sign-out
ends the session, and another member's machine is approved from the page. Screenshots go to
test-artifacts/web/server-*.png beside the local app's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from server_support import ACME_TEXT, GLOBEX_TEXT, Team, team_server
from web_support import browser_tab, shoot

from kenning.server.web_login import SESSION_COOKIE

PAGES = {"memory": "/memory", "review": "/review", "map": "/map", "decisions": "/decisions", "rules": "/rules",
         "health": "/health?show=1", "sessions": "/sessions", "report": "/report"}  # fmt: skip


@pytest.fixture(scope="module")
def team() -> Iterator[Team]:
    with team_server() as running:
        yield running


@pytest.fixture
def tab(browser: Any) -> Iterator[Any]:
    with browser_tab(browser, timeout_ms=15_000) as page:
        yield page


def no_errors_but_refusals(tab: Any) -> None:
    # A refused change (403) logs "Failed to load resource";
    # anything else (a CSP violation, a script error) is a fault.
    assert [e for e in tab.errors if "Failed to load resource" not in e] == []


def test_a_link_signs_in_shows_the_workspace_and_signs_out(tab: Any, team: Team) -> None:
    tab.goto(team.url + "/memory")
    assert tab.url == team.url + "/signin"  # no session: the sign-in page, which says how to get one
    assert "kenning ui --server" in tab.locator("main").inner_text()
    shoot(tab, "server-signin")
    tab.goto(team.link("alice"))  # the page posts the link itself
    tab.wait_for_url(team.url + "/memory")
    main = tab.locator("main")
    assert ACME_TEXT in main.inner_text() and GLOBEX_TEXT not in main.inner_text()
    assert "Signed in as alice · owner of acme" in tab.locator(".who").inner_text()
    cookie = next(c for c in tab.context.cookies() if c["name"] == SESSION_COOKIE)
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert tab.evaluate("document.cookie") == ""  # scripts cannot read the session
    assert tab.title() != "pwned"  # the <script> memory stayed text
    shoot(tab, "server-memory")
    # The switcher opens globex (a keyboard user changes the select and presses Open).
    tab.select_option("#workspace-picker", "globex")
    tab.wait_for_url(team.url + "/memory")
    tab.wait_for_function("document.querySelector('.who').innerText.includes('member of globex')")
    assert GLOBEX_TEXT in main.inner_text() and ACME_TEXT not in main.inner_text()
    shoot(tab, "server-memory-globex")
    tab.get_by_role("button", name="Sign out").click()
    tab.wait_for_url(team.url + "/signin?out=1")
    assert "You are signed out" in tab.locator("main").inner_text()
    tab.goto(team.url + "/memory")
    assert tab.url == team.url + "/signin"
    no_errors_but_refusals(tab)


def test_every_server_page_renders(tab: Any, team: Team) -> None:
    tab.goto(team.link("alice", ["acme"]))
    tab.wait_for_url(team.url + "/memory")
    for name, path in PAGES.items():
        answer = tab.goto(team.url + path)
        assert answer.status == 200, (path, answer.status)
        assert tab.locator("nav[aria-label=Pages] a").count() == 9
        shoot(tab, f"server-{name}")
    tab.goto(f"{team.url}/memory/{team.refs['acme']}")
    assert ACME_TEXT in tab.locator("main").inner_text()
    shoot(tab, "server-memory-card")
    no_errors_but_refusals(tab)


def test_a_viewer_finds_nothing_to_change(tab: Any, team: Team) -> None:
    tab.goto(team.link("bob"))
    tab.wait_for_url(team.url + "/memory")
    tab.goto(f"{team.url}/memory/{team.refs['acme']}")
    main = tab.locator("main")
    assert ACME_TEXT in main.inner_text()
    assert "Your role in acme is viewer" in main.inner_text()
    assert main.locator("form[method=post]").count() == 0
    for label in ("Pin", "Hide from sessions", "Retire", "Protect"):
        assert tab.get_by_role("button", name=label, exact=True).count() == 0
    shoot(tab, "server-viewer-card")
    # A post made by hand from the page, with the page's own token, is refused by the server.
    token = tab.locator("input[name=csrf]").first.get_attribute("value")
    status = tab.evaluate(
        """async ([url, token]) => (await fetch(url, {method: "POST", credentials: "same-origin",
              body: new URLSearchParams({csrf: token, back: "/memory"})})).status""",
        [f"{team.url}/memory/{team.refs['acme']}/pin", token],
    )
    assert status == 403
    assert not team.core("acme").get(team.refs["acme"]).pinned
    no_errors_but_refusals(tab)


def test_an_author_pins_her_memory_from_the_page(tab: Any, team: Team) -> None:
    ref = team.remember("alice", "acme", "Feature flags of the shop live in the flags service")
    tab.goto(team.link("alice", ["acme"]))
    tab.wait_for_url(team.url + "/memory")
    tab.goto(f"{team.url}/memory/{ref}")
    tab.get_by_role("button", name="Pin", exact=True).click()
    tab.locator("#flash .flash").wait_for()
    assert "Pinned" in tab.locator("#flash").inner_text()
    assert tab.get_by_role("button", name="Unpin", exact=True).count() == 1
    assert team.core("acme").get(ref).pinned
    shoot(tab, "server-memory-pinned")
    no_errors_but_refusals(tab)


def test_a_member_approves_a_new_machine_from_the_page(tab: Any, team: Team) -> None:
    started = httpx.post(f"{team.url}/api/v1/login/device", json={"label": "alice-desktop"}).json()
    tab.goto(team.link("alice"))
    tab.wait_for_url(team.url + "/memory")
    tab.get_by_role("link", name="Approve a machine").click()
    tab.wait_for_url(team.url + "/device")
    tab.get_by_label("Code").fill(started["user_code"])
    tab.get_by_label("globex").uncheck()
    shoot(tab, "server-device")
    tab.get_by_role("button", name="Approve").click()
    tab.wait_for_load_state()
    assert f"Approved {started['user_code']} (alice-desktop) for acme" in tab.locator("main").inner_text()
    joined = httpx.post(f"{team.url}/api/v1/login/device/token", json={"device_code": started["device_code"]}).json()
    assert joined["account_name"] == "alice" and joined["workspaces"] == ["acme"]
    no_errors_but_refusals(tab)
