"""The team server's pages (`kenning serve`): signing in with a one-time link, what a session
sees and may do, and what nothing but a session gets — over real HTTP on loopback against the
whole server app (API and pages in one ASGI application) on a real PostgreSQL
(tests/web/server_support.py). The browser tests are in test_server_browser.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from server_support import ACME_SCRIPT, ACME_TEXT, GLOBEX_TEXT, Team, csrf_of, link_of, team_server

from kenning.server.auth import token_hash
from kenning.server.web_login import LINK_PREFIX, SECURE_SESSION_COOKIE, SESSION_COOKIE, SESSION_TTL

PAGES = ["/memory", "/review", "/retire", "/map", "/decisions", "/rules", "/health", "/sessions", "/report"]


@pytest.fixture(scope="module")
def team() -> Iterator[Team]:
    with team_server() as running:
        yield running


def test_a_link_signs_in_once_and_the_memory_page_shows_the_workspace(team: Team) -> None:
    url = team.link("alice", ["acme"])
    assert url.startswith(f"{team.url}/signin?link={LINK_PREFIX}")
    browser = team.client()
    landing = browser.get(url)  # the page the link opens: a form that posts it (no session yet)
    assert landing.status_code == 200 and 'name="link"' in landing.text
    assert browser.cookies.get(SESSION_COOKIE) is None
    answer = browser.post("/signin", data={"link": link_of(url)})
    assert answer.status_code == 303 and answer.headers["location"] == "/memory"
    cookie = answer.headers["set-cookie"]
    for attribute in ("HttpOnly", "SameSite=strict", "Path=/", f"Max-Age={int(SESSION_TTL.total_seconds())}"):
        assert attribute.lower() in cookie.lower(), cookie
    memory = browser.get("/memory")
    assert memory.status_code == 200
    assert ACME_TEXT in memory.text and GLOBEX_TEXT not in memory.text
    assert "Signed in as alice" in memory.text and "owner of acme" in memory.text
    # The session is a web device of alice's, holding only the hash of the cookie's secret.
    secret = browser.cookies[SESSION_COOKIE]
    session = team.store.device_by_token(token_hash(secret))
    assert session is not None and session.kind == "web" and session.account == team.accounts["alice"]
    assert secret not in repr(team.store.devices(team.accounts["alice"]))
    # The same link again is refused, in this browser or another.
    again = team.client().post("/signin", data={"link": link_of(url)})
    assert again.status_code == 400 and "already used or expired" in again.text
    assert team.client().get("/memory").status_code == 303


def test_memory_text_stays_text_on_the_server(team: Team) -> None:
    page = team.signed_in("alice", ["acme"]).get("/memory").text
    assert "&lt;script&gt;document.title=" in page
    assert "<script>document.title" not in page and ACME_SCRIPT not in page


def test_without_a_session_nothing_is_served(team: Team) -> None:
    anonymous = team.client()
    card = f"/memory/{team.refs['acme']}"
    for path in [*PAGES, card, "/", "/device", "/memory?q=deploys"]:
        answer = anonymous.get(path)
        assert answer.status_code == 303 and answer.headers["location"] == "/signin", path
        assert ACME_TEXT not in answer.text and GLOBEX_TEXT not in answer.text
    for path in ("/memory/" + team.refs["acme"] + "/pin", "/workspace", "/signout", "/device"):
        assert anonymous.post(path, data={"csrf": "x"}).status_code == 303, path
    # A made-up session, a device token in the cookie's place, a sign-in page: still nothing.
    anonymous.cookies.set(SESSION_COOKIE, "made-up")
    assert anonymous.get("/memory").status_code == 303
    anonymous.cookies.set(SESSION_COOKIE, team.tokens["alice"])
    assert anonymous.get("/memory").status_code == 303
    signin = team.client().get("/signin")
    assert signin.status_code == 200 and "kenning ui --server" in signin.text
    assert ACME_TEXT not in signin.text


def test_an_expired_link_or_one_whose_device_was_revoked_is_refused(team: Team) -> None:
    old = team.link("alice", ["acme"])
    team.clock.advance(minutes=6)
    try:
        late = team.client().post("/signin", data={"link": link_of(old)})
    finally:
        team.clock.advance(minutes=-6)
    assert late.status_code == 400 and "expired" in late.text
    # A device that asked for a link and was revoked before it was used: the link dies with it.
    from kenning.server.auth import new_token

    token = new_token()
    device = team.store.add_device(team.accounts["bob"], "bob-old", ["acme"], token_hash(token), team.clock.now())
    team.tokens["bob-old"] = token
    pending = team.link("bob-old")
    team.store.revoke_device(device.id, team.clock.now())
    assert team.client().post("/signin", data={"link": link_of(pending)}).status_code == 400
    # Not a link at all.
    assert team.client().post("/signin", data={"link": "klnk_guess"}).status_code == 400
    assert team.client().post("/signin", data={}).status_code == 400


def test_a_session_expires_and_signing_out_ends_it(team: Team) -> None:
    browser = team.signed_in("alice", ["acme"])
    team.clock.advance(hours=12, minutes=1)
    try:
        assert browser.get("/memory").status_code == 303
    finally:
        team.clock.advance(hours=-12, minutes=-1)
    browser = team.signed_in("alice", ["acme"])
    secret = browser.cookies[SESSION_COOKIE]
    csrf = csrf_of(browser)
    assert browser.post("/signout", data={}).status_code == 403  # no CSRF token: refused, still signed in
    assert browser.get("/memory").status_code == 200
    out = browser.post("/signout", data={"csrf": csrf})
    assert out.status_code == 303 and out.headers["location"] == "/signin?out=1"
    assert "signed out" in browser.get("/signin?out=1").text.lower()
    # The row is revoked: the old cookie, replayed, gets nothing.
    replay = team.client()
    replay.cookies.set(SESSION_COOKIE, secret)
    assert replay.get("/memory").status_code == 303
    session = team.store.device_by_token(token_hash(secret))
    assert session is not None and session.revoked_at is not None


def test_a_browser_session_is_no_api_token(team: Team) -> None:
    browser = team.signed_in("alice", ["acme"])
    secret = browser.cookies[SESSION_COOKIE]
    answer = httpx.post(f"{team.url}/api/v1/web/link", json={}, headers={"Authorization": f"Bearer {secret}"})
    assert answer.status_code == 401
    assert httpx.get(f"{team.url}/api/v1/me", headers={"Authorization": f"Bearer {secret}"}).status_code == 401


def test_a_link_opens_only_workspaces_its_device_syncs(team: Team) -> None:
    answer = httpx.post(f"{team.url}/api/v1/web/link", json={"workspaces": ["globex"]},
                        headers={"Authorization": f"Bearer {team.tokens['bob']}"})  # fmt: skip
    assert answer.status_code == 403
    assert httpx.post(f"{team.url}/api/v1/web/link", json={}).status_code == 401


def test_a_viewer_reads_but_changes_nothing(team: Team) -> None:
    bob = team.signed_in("bob")
    card = bob.get(f"/memory/{team.refs['acme']}")
    assert card.status_code == 200 and ACME_TEXT in card.text
    assert "viewer of acme" in card.text and "Your role in acme is viewer" in card.text
    for verb in ("/pin", "/hide", "/retire", "/protect"):
        assert f'action="/memory/{team.refs["acme"]}{verb}"' not in card.text
    csrf = csrf_of(bob)
    before = team.core("acme").get(team.refs["acme"])
    for action in ("pin", "hide", "retire", "protect"):
        refused = bob.post(f"/memory/{team.refs['acme']}/{action}", data={"csrf": csrf, "back": "/memory"})
        assert refused.status_code == 403 and "may read but not change" in refused.text
    assert bob.post("/rules/sentence", data={"csrf": csrf, "text": "never", "for": "all"}).status_code == 403
    after = team.core("acme").get(team.refs["acme"])
    assert (after.pinned, after.hidden, after.status, after.protected) == (
        before.pinned, before.hidden, before.status, before.protected)  # fmt: skip


def pulled(team: Team, who: str, workspace: str, ref: str) -> dict[str, object]:
    """What ``who``'s machine gets for ``ref`` at its next sync (the pull API, from cursor 0)."""
    answer = httpx.post(f"{team.url}/api/v1/sync/pull", json={"workspace": workspace, "after": 0},
                        headers={"Authorization": f"Bearer {team.tokens[who]}"}).json()  # fmt: skip
    found = [c for c in answer["changes"] if c["key"] == ref]
    assert len(found) == 1, answer
    change: dict[str, object] = found[0]
    return change


def test_an_author_changes_her_memory_and_it_reaches_her_machines(team: Team) -> None:
    ref = team.remember("alice", "acme", "The shop's cron jobs run in UTC, not local time")
    before = pulled(team, "alice", "acme", ref)
    alice = team.signed_in("alice", ["acme"])
    card = alice.get(f"/memory/{ref}").text
    assert f'action="/memory/{ref}/pin"' in card and "read only" not in card
    answer = alice.post(f"/memory/{ref}/pin", data={"csrf": csrf_of(alice), "back": f"/memory/{ref}"})
    assert answer.status_code == 303, answer.text
    assert team.core("acme").get(ref).pinned  # the workspace's copy shows it at once
    after = pulled(team, "alice", "acme", ref)  # and it is alice's record, with a new number
    assert after["owner"] == team.accounts["alice"] and int(after["seq"]) > int(before["seq"])  # type: ignore[call-overload]
    body = after["body"]
    assert isinstance(body, dict) and body["pinned"] is True
    assert [e[1] for e in body["events"]] == ["created", "pinned"]  # its history travels with it
    # A teammate's machine pulls the change too (pinned travels; it is alice's memory still).
    seen = pulled(team, "bob", "acme", ref)
    assert seen["seq"] == after["seq"] and isinstance(seen["body"], dict) and seen["body"]["pinned"] is True
    # Retire and bring back travel the same way.
    csrf = csrf_of(alice)
    assert alice.post(f"/memory/{ref}/retire", data={"csrf": csrf, "why": "moved to the scheduler"}).status_code == 303
    retired = pulled(team, "alice", "acme", ref)
    assert isinstance(retired["body"], dict) and retired["body"]["status"] == "retired"
    assert alice.post(f"/memory/{ref}/bring-back", data={"csrf": csrf}).status_code == 303
    back = pulled(team, "alice", "acme", ref)
    assert isinstance(back["body"], dict) and back["body"]["status"] == "active"


def test_a_hide_reaches_the_authors_machines_and_teammates_see_it_removed(team: Team) -> None:
    ref = team.remember("alice", "acme", "The staging database is reset every Monday morning")
    alice = team.signed_in("alice", ["acme"])
    assert alice.post(f"/memory/{ref}/hide", data={"csrf": csrf_of(alice)}).status_code == 303
    mine = pulled(team, "alice", "acme", ref)
    assert isinstance(mine["body"], dict) and mine["body"]["hidden"] is True
    theirs = pulled(team, "bob", "acme", ref)
    assert theirs["body"] is None and theirs["deleted"] is False  # removed, with no sign
    bob = team.signed_in("bob")
    assert "staging database is reset" not in bob.get("/memory").text


def test_a_teammate_never_changes_your_memory(team: Team) -> None:
    # alice is a member of globex; the memory there is carol's.
    ref = team.refs["globex"]
    before = pulled(team, "carol", "globex", ref)
    alice = team.signed_in("alice", ["globex"])
    refused = alice.post(f"/memory/{ref}/pin", data={"csrf": csrf_of(alice), "back": "/memory"})
    assert refused.status_code == 400 and "belongs to another member" in refused.text
    assert "propose the change through review" in refused.text
    assert not team.core("globex").get(ref).pinned  # nothing kept: the transaction rolled back
    assert pulled(team, "carol", "globex", ref)["seq"] == before["seq"]


def test_a_change_that_cannot_travel_yet_is_refused_and_writes_nothing(team: Team) -> None:
    ref = team.refs["acme"]
    alice = team.signed_in("alice", ["acme"])
    before = pulled(team, "alice", "acme", ref)
    placed = alice.post(f"/memory/{ref}/place", data={"csrf": csrf_of(alice), "decision": "no-agent-runs"})
    assert placed.status_code == 400 and "cannot be made on the team server" in placed.text
    assert team.core("acme").store.placements("acme", [ref]) == []
    assert pulled(team, "alice", "acme", ref)["seq"] == before["seq"]
    rule = alice.post("/rules/sentence", data={"csrf": csrf_of(alice), "text": "Never store customer names.",
                                                "for": "all"})  # fmt: skip
    assert rule.status_code == 400 and "rules store cannot be made on the team server" in rule.text
    assert team.core("acme").stores.rules.rules("acme") == []
    # Health's Repair judges files on this machine's disk: the server has none, so it is not offered.
    assert 'action="/health/repair"' not in alice.get("/health?show=1").text
    repair = alice.post("/health/repair", data={"csrf": csrf_of(alice)})
    assert repair.status_code == 400 and "has no checkout" in repair.text


def test_csrf_and_origin_are_checked(team: Team) -> None:
    alice = team.signed_in("alice")
    csrf = csrf_of(alice)
    switch = {"workspace": "globex"}
    assert alice.post("/workspace", data=switch).status_code == 403  # no token
    assert alice.post("/workspace", data={**switch, "csrf": "0" * 64}).status_code == 403  # wrong token
    other = alice.post("/workspace", data={**switch, "csrf": csrf}, headers={"Origin": "http://evil.example"})
    assert other.status_code == 403 and "another origin" in other.text
    bare = httpx.Client(base_url=team.url, cookies=alice.cookies, follow_redirects=False)
    assert bare.post("/workspace", data={**switch, "csrf": csrf}).status_code == 403  # no Origin at all
    # Signing in from another site's page (login CSRF) is refused too.
    link = link_of(team.link("bob"))
    forged = team.client().post("/signin", data={"link": link}, headers={"Origin": "http://evil.example"})
    assert forged.status_code == 403
    assert team.client().post("/signin", data={"link": link}).status_code == 303  # the link was not spent
    # A Host the pages were not started for (DNS rebinding) gets nothing.
    assert alice.get("/memory", headers={"Host": "evil.example"}).status_code == 400
    # With the token and the origin, the switch goes through.
    assert alice.post("/workspace", data={**switch, "csrf": csrf}).status_code == 303


def test_another_workspace_is_never_shown(team: Team) -> None:
    bob = team.signed_in("bob")  # acme only
    for path in [*PAGES, "/memory?q=invoices+ledger", "/memory?status=all", f"/memory/{team.refs['globex']}"]:
        page = bob.get(path)
        assert page.status_code in (200, 404), (path, page.status_code)
        assert GLOBEX_TEXT not in page.text, path
    csrf = csrf_of(bob)
    asked = bob.post("/workspace", data={"workspace": "globex", "csrf": csrf})
    assert asked.status_code == 403
    bob.cookies.set("kenning_workspace", "globex")  # a hand-set choice is ignored: bob reads acme
    page = bob.get("/memory")
    assert ACME_TEXT in page.text and GLOBEX_TEXT not in page.text
    # alice, in both: the switcher opens each, one at a time.
    alice = team.signed_in("alice")
    acme = alice.get("/memory").text
    assert ACME_TEXT in acme and GLOBEX_TEXT not in acme and 'value="globex"' in acme
    assert alice.post("/workspace", data={"workspace": "globex", "csrf": csrf_of(alice)}).status_code == 303
    globex = alice.get("/memory").text
    assert GLOBEX_TEXT in globex and ACME_TEXT not in globex and "member of globex" in globex
    assert alice.get(f"/memory/{team.refs['acme']}").status_code == 404


def test_a_session_loses_a_workspace_its_account_leaves(team: Team) -> None:
    alice = team.signed_in("alice")
    from kenning.store.server.protocol import Role

    team.store.remove_member("globex", team.accounts["alice"])
    try:
        page = alice.get("/memory").text
        assert 'value="globex"' not in page and GLOBEX_TEXT not in page
        assert alice.post("/workspace", data={"workspace": "globex", "csrf": csrf_of(alice)}).status_code == 403
    finally:
        team.store.set_member("globex", team.accounts["alice"], Role.MEMBER)


def test_every_page_has_its_stores_on_the_server(team: Team) -> None:
    alice = team.signed_in("alice", ["acme"])
    for path in PAGES:
        page = alice.get(path)
        assert page.status_code == 200, (path, page.status_code, page.text[:500])
        assert 'aria-label="Pages"' in page.text and "Not available on this server yet" not in page.text


def test_a_signed_in_member_approves_a_device_code(team: Team) -> None:
    started = httpx.post(f"{team.url}/api/v1/login/device", json={"label": "new-laptop"}).json()
    assert f"/device?code={started['user_code']}" in started["approve_with"]
    poll = {"device_code": started["device_code"]}
    assert "authorization_pending" in httpx.post(f"{team.url}/api/v1/login/device/token", json=poll).text
    bob = team.signed_in("bob")
    form = bob.get(f"/device?code={started['user_code']}")
    assert form.status_code == 200 and started["user_code"] in form.text
    csrf = csrf_of(bob, "/device")
    assert bob.post("/device", data={"code": started["user_code"]}).status_code == 403  # no CSRF token
    wrong = bob.post("/device", data={"code": "ZZZZ-ZZZZ", "csrf": csrf})
    assert wrong.status_code == 404 and "No machine is waiting" in wrong.text
    outside = bob.post("/device", data={"code": started["user_code"], "csrf": csrf, "workspace": "globex"})
    assert outside.status_code == 403
    done = bob.post("/device", data={"code": started["user_code"], "csrf": csrf, "workspace": "acme"})
    assert done.status_code == 200 and "Approved" in done.text
    joined = httpx.post(f"{team.url}/api/v1/login/device/token", json=poll).json()
    assert joined["account_name"] == "bob" and joined["workspaces"] == ["acme"]
    assert joined["token"].startswith("kdev_")


def test_the_sign_in_endpoint_is_rate_limited() -> None:
    with team_server(signin_rate=0.001, signin_burst=3) as limited:
        client = limited.client()
        answers = [client.post("/signin", data={"link": f"{LINK_PREFIX}guess{i}"}).status_code for i in range(5)]
        assert answers[:3] == [400, 400, 400] and answers[3:] == [429, 429]
        late = client.post("/signin", data={"link": link_of(limited.link("alice"))})
        assert late.status_code == 429 and int(late.headers["retry-after"]) >= 1


def test_behind_tls_the_session_cookie_is_secure_and_host_bound() -> None:
    with team_server(secure=True) as tls:  # as `kenning serve --behind-proxy` or with --tls-cert
        client = tls.client()
        signed = client.post("/signin", data={"link": link_of(tls.link("alice"))})
        cookie = signed.headers["set-cookie"]
        assert cookie.startswith(f"{SECURE_SESSION_COOKIE}=") and "secure" in cookie.lower()
        secret = cookie.split(";", 1)[0].split("=", 1)[1]
        bare = httpx.Client(base_url=tls.url, follow_redirects=False)
        assert bare.get("/memory", headers={"Cookie": f"{SESSION_COOKIE}={secret}"}).status_code == 303
        page = bare.get("/memory", headers={"Cookie": f"{SECURE_SESSION_COOKIE}={secret}"})
        assert page.status_code == 200 and ACME_TEXT in page.text


def test_the_api_still_answers_beside_the_pages(team: Team) -> None:
    assert httpx.get(f"{team.url}/healthz").json() == {"ok": True}
    me = httpx.get(f"{team.url}/api/v1/me", headers={"Authorization": f"Bearer {team.tokens['alice']}"})
    assert me.status_code == 200 and me.json()["account_name"] == "alice"
    schema = httpx.get(f"{team.url}/api/v1/openapi.json").json()
    assert "/api/v1/web/link" in schema["paths"] and "/memory" not in schema["paths"]
    assert httpx.get(f"{team.url}/api/v1/devices").status_code == 401


def test_kenning_ui_server_prints_a_link_that_signs_in(team: Team, tmp_path: Path) -> None:
    from cli_runner import run
    from kenning.sync import link as links
    from kenning.sync.client import Link

    home = tmp_path / "bob-laptop"
    device = team.store.device_by_token(token_hash(team.tokens["bob"]))
    assert device is not None
    links.save(home, Link(team.url, team.accounts["bob"], "bob", device.id, ("acme",), team.tokens["bob"]))
    ran = run(["ui", "--server", "--no-open", "--json"], tmp_path, home)
    answer = json.loads(ran.stdout)
    assert answer["url"].startswith(f"{team.url}/signin?link={LINK_PREFIX}") and answer["expires_in"] == 300
    browser = team.client()
    assert browser.post("/signin", data={"link": link_of(answer["url"])}).status_code == 303
    assert "Signed in as bob" in browser.get("/memory").text
    said = run(["ui", "--server", "--no-open"], tmp_path, home).stdout
    assert "signs one browser in, once" in said and f"{team.url}/signin?link=" in said
    # Not logged in: a clear error, no link.
    refused = run(["ui", "--server", "--no-open"], tmp_path, tmp_path / "nowhere", ok=False)
    assert refused.returncode != 0 and "kenning login" in refused.stderr


def test_row_level_security_alone_keeps_a_session_out_of_another_workspace(team: Team) -> None:
    """The pages' core provider with web_login's checks skipped: a viewer that names a
    workspace its session is not good for reads nothing there (the database refuses it)."""
    from kenning.server.web_cores import session_cores
    from kenning.web.auth import Viewer

    bob = team.signed_in("bob")  # a session for acme only
    secret = bob.cookies[SESSION_COOKIE]
    cores = session_cores(team.store, team.clock)
    forged = Viewer("bob", secret, workspace="globex", account=team.accounts["bob"])
    with cores(forged, False) as core:
        assert core.store.get("globex", team.refs["globex"]) is None
        assert list(core.store.iter_all("globex")) == []
    honest = Viewer("bob", secret, workspace="acme", account=team.accounts["bob"])
    with cores(honest, False) as core:
        assert core.store.get("acme", team.refs["acme"]) is not None
    # Signed out, the same secret reads nothing even in its own workspace.
    bob.post("/signout", data={"csrf": csrf_of(bob)})
    with cores(honest, False) as core:
        assert core.store.get("acme", team.refs["acme"]) is None
