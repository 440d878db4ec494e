"""The guards: nothing without the launch token, the token traded for a strict cookie and taken
out of the URL, every change refused without the CSRF token or from another origin, memory
text escaped, and the security headers on every answer."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from web_seed import PROJECT, SCRIPT_TEXT, Seeded
from web_support import BASE, ORIGIN, csrf_of

from kenning.core.service import Core
from kenning.model import Status
from kenning.web.auth import LOCAL_COOKIE, LocalTokenAuth
from kenning.web.pages import ROUTERS

PAGES = ["/memory", "/review", "/retire", "/map", "/decisions", "/rules", "/health", "/sessions", "/report",
         "/static/app.css", "/static/app.js", "/memory/m:00000000", "/"]  # fmt: skip


@pytest.mark.parametrize("path", PAGES)
def test_without_the_token_nothing_is_served(anonymous: TestClient, path: str) -> None:
    answer = anonymous.get(path)
    assert answer.status_code == 403
    assert "kenning ui" in answer.text and "<main" not in answer.text


def test_a_wrong_token_or_a_forged_cookie_is_refused(anonymous: TestClient, auth: LocalTokenAuth) -> None:
    assert anonymous.get("/memory?token=" + "x" * 43).status_code == 403
    anonymous.cookies.set(LOCAL_COOKIE, auth.token)  # the URL token is not the session secret
    assert anonymous.get("/memory").status_code == 403


def test_the_token_becomes_a_strict_http_only_cookie_and_leaves_the_url(anonymous: TestClient,
                                                                         auth: LocalTokenAuth) -> None:  # fmt: skip
    answer = anonymous.get(f"/review?project={PROJECT}&token={auth.token}")
    assert answer.status_code == 303
    assert answer.headers["location"] == f"/review?project={PROJECT.replace('/', '%2F')}"
    cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    assert auth.token not in cookie
    assert anonymous.get("/review").status_code == 200


def test_an_unknown_host_is_refused_even_with_the_cookie(client: TestClient) -> None:
    # DNS rebinding: a page on evil.example resolving to 127.0.0.1 sends its own Host.
    assert client.get("/memory", headers={"host": "evil.example:8765"}).status_code == 400


def _post_routes() -> list[str]:
    """Every state-changing route of every page (and of the app itself)."""
    routes = [r for router in ROUTERS for r in router.routes]
    return [r.path for r in routes if "POST" in (getattr(r, "methods", None) or set())]  # type: ignore[attr-defined]


def test_every_change_is_refused_without_the_csrf_token_or_from_another_origin(
    client: TestClient, core: Core, seeded: Seeded
) -> None:
    paths = _post_routes()
    assert len(paths) >= 9, paths
    fill = {"{ref}": seeded.fact, "{action}": "hide", "{review_id:int}": str(seeded.merge), "{rule_id:int}": "1"}
    token = csrf_of(client)
    before = core.get(seeded.fact)
    for pattern in paths:
        path = pattern
        for key, value in fill.items():
            path = path.replace(key, value)
        assert "{" not in path, path
        no_token = client.post(path, data={"back": "/memory"}, headers={"origin": ORIGIN})
        assert no_token.status_code == 403, (path, no_token.status_code)
        wrong = client.post(path, data={"csrf": "0" * 64}, headers={"origin": ORIGIN})
        assert wrong.status_code == 403, path
        other = client.post(path, data={"csrf": token}, headers={"origin": "http://evil.example"})
        assert other.status_code == 403 and "another origin" in other.text, path
        none = client.post(path, data={"csrf": token})
        assert none.status_code == 403, path
    # Nothing changed: the memory, the review and the rules are as they were.
    assert core.get(seeded.fact) == before
    assert {i.id for i in core.reviews(core.place(project=PROJECT))} >= {seeded.merge, seeded.retire_item}


def test_with_token_and_origin_a_change_goes_through(client: TestClient, core: Core, seeded: Seeded) -> None:
    token = csrf_of(client)
    answer = client.post(f"/memory/{seeded.fact}/hide", data={"csrf": token, "back": "/memory"},
                         headers={"origin": ORIGIN})  # fmt: skip
    assert answer.status_code == 303 and answer.headers["location"] == "/memory"
    assert core.get(seeded.fact).hidden
    # The redirect never leaves the site, whatever "back" says.
    answer = client.post(f"/memory/{seeded.fact}/give", data={"csrf": token, "back": "//evil.example/x"},
                         headers={"origin": ORIGIN})  # fmt: skip
    assert answer.headers["location"] == f"/memory/{seeded.fact}"
    assert not core.get(seeded.fact).hidden


def test_memory_text_with_markup_renders_as_text(client: TestClient, seeded: Seeded) -> None:
    for path in ("/memory", f"/memory/{seeded.script}", "/memory?q=pwned+page+markup"):
        page = client.get(path).text
        assert "<script>document.title" not in page
        assert "&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;" in page
    # The only script on any page is the app's own file.
    assert re.findall(r"<script[^>]*>", client.get("/memory").text) == ['<script src="/static/app.js" defer>']
    assert SCRIPT_TEXT


def test_every_answer_carries_the_security_headers(client: TestClient) -> None:
    for path in ("/memory", "/static/app.css", "/nowhere"):
        headers = client.get(path).headers
        csp = headers["content-security-policy"]
        assert "script-src 'self'" in csp and "style-src 'self'" in csp and "unsafe-inline" not in csp
        assert "frame-ancestors 'none'" in csp and "default-src 'none'" in csp
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] == "same-origin"
    assert client.get("/memory").headers["cache-control"] == "no-store"


def test_no_page_has_inline_style_or_script(client: TestClient, seeded: Seeded) -> None:
    for path in ("/memory", f"/memory/{seeded.fact}", "/review", f"/retire?project={PROJECT}", f"/map?project={PROJECT}",
                 "/decisions", "/rules", "/health?show=1", "/sessions?q=login", "/report"):  # fmt: skip
        page = client.get(path).text
        assert " style=" not in page and "<style" not in page, path
        assert not re.search(r"<script(?![^>]*\bsrc=)", page), path
        assert not re.search(r"\son[a-z]+=", page), path  # no inline event handlers


def test_bad_input_gets_a_page_that_says_what_to_fix(client: TestClient, core: Core) -> None:
    answer = client.get("/memory?kind=opinion")
    assert answer.status_code == 400
    assert "kind &#39;opinion&#39; is unknown" in answer.text and "decision, preference" in answer.text
    missing = client.get("/memory/m:0000beef")
    assert missing.status_code == 404 and "no memory m:0000beef" in missing.text
    assert client.get("/report?days=3").status_code == 400
    assert client.get("/memory?offset=-1").status_code == 400


def test_flash_messages_cannot_be_forged(client: TestClient, seeded: Seeded) -> None:
    client.cookies.set("kenning_flash", "eyJ0ZXh0IjoiSGkifQ.0000")
    assert "Hi" not in client.get("/memory").text


def test_retired_memory_is_still_served_read_only_by_its_card(client: TestClient, core: Core, seeded: Seeded) -> None:
    core.retire(seeded.gone, "module deleted")
    page = client.get(f"/memory/{seeded.gone}").text
    assert "Bring back" in page and core.get(seeded.gone).status is Status.RETIRED
    assert BASE
