"""Who may use the web app. The app asks an :class:`Auth` about every request; the request
goes on only with a :class:`Viewer`.

Two implementations are meant to exist:

- :class:`LocalTokenAuth` (``kenning ui``): a fresh random token in the URL printed at each
  launch. The first request carrying it gets an HttpOnly, SameSite=Strict cookie holding a
  separate random session secret and is redirected to the same URL without the token, so the
  token never stays in the address bar, history or a Referer. Without the cookie or the token,
  nothing is served.
- the team server's login (``kenning serve``, issue 16): it implements the same protocol —
  ``gate`` reads its own session cookie and answers with a redirect to its login page, which
  it mounts through ``routes`` and opens with ``public_prefixes``; ``Viewer.workspace`` tells
  the core provider which workspace to open.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute

LOCAL_COOKIE = "kenning_ui"
TOKEN_PARAM = "token"


@dataclass(frozen=True)
class Viewer:
    """The person behind a request."""

    name: str  # shown in the header
    session_key: str  # secret per browser session: CSRF tokens are derived from it
    workspace: str | None = None  # the server's choice of workspace; None = the core's own
    can_write: bool = True  # a viewer role (server) reads only
    workspaces: tuple[str, ...] = ()  # the server: the workspaces this session may switch between
    role: str = ""  # the server: the account's role in ``workspace``
    signed_in: bool = False  # the server: a session that can sign out
    account: str = ""  # the server: the account's id (changes are recorded as its own)
    has_checkouts: bool = True  # the files memories cite are on this machine (not on the server)


class Auth(Protocol):
    """How the app learns who is asking."""

    # Paths (prefixes) served without a viewer, such as the server's login page.
    public_prefixes: tuple[str, ...]

    def gate(self, request: Request) -> Viewer | Response:
        """The viewer of ``request``, or the response to send instead (a refusal, a redirect
        to the login page, or the local token exchange)."""
        ...

    def routes(self) -> Sequence[BaseRoute]:
        """Routes the auth itself serves (login, logout); mounted before the app's pages."""
        ...


class LocalTokenAuth:
    """``kenning ui``: one person on this machine, proven by the token printed in the terminal."""

    public_prefixes: tuple[str, ...] = ()

    def __init__(self, token: str | None = None, *, cookie_secure: bool = False) -> None:
        self.token = token or secrets.token_urlsafe(32)
        self._session = secrets.token_urlsafe(32)
        self._secure = cookie_secure

    def routes(self) -> Sequence[BaseRoute]:
        return ()

    def _has_session(self, request: Request) -> bool:
        cookie = request.cookies.get(LOCAL_COOKIE, "")
        return bool(cookie) and hmac.compare_digest(cookie.encode(), self._session.encode())

    def gate(self, request: Request) -> Viewer | Response:
        offered = request.query_params.get(TOKEN_PARAM)
        if offered is not None:
            if not hmac.compare_digest(offered.encode(), self.token.encode()):
                return refusal()
            # Exchange: the cookie carries the session from now on; the token leaves the URL.
            rest = [(k, v) for k, v in request.query_params.multi_items() if k != TOKEN_PARAM]
            clean = request.url.path + (f"?{urlencode(rest)}" if rest else "")
            response = RedirectResponse(clean, status_code=303)
            response.set_cookie(LOCAL_COOKIE, self._session, httponly=True, samesite="strict",
                                secure=self._secure, path="/")  # fmt: skip
            return response
        if self._has_session(request):
            return Viewer("you", self._session)
        return refusal()

    def url(self, base: str) -> str:
        """The address to open: ``base`` with this launch's token."""
        return f"{base.rstrip('/')}/?{TOKEN_PARAM}={self.token}"


def refusal() -> Response:
    """Nothing is served without the token: a plain page that says how to get in."""
    body = (
        "<!doctype html><meta charset=utf-8><title>kenning</title>"
        "<p>This page needs the address that <code>kenning ui</code> printed in your terminal "
        "(it carries a token that changes at every launch). Open that address, or run "
        "<code>kenning ui</code> again.</p>"
    )
    return Response(body, status_code=403, media_type="text/html; charset=utf-8",
                    headers={"Cache-Control": "no-store"})  # fmt: skip
