"""The web app's guards, in the order a request meets them:

1. **Host**: only the names the app was started for (a DNS-rebinding page gets 400).
2. **Auth**: no viewer, no page (:mod:`kenning.web.auth`).
3. **Origin**: a state-changing request must come from the app's own origin.
4. **CSRF token**: every form that changes something carries a token derived (HMAC) from the
   viewer's session secret; :func:`posted_form` checks it before a handler reads a field.
5. **Headers** on every answer: a strict Content-Security-Policy with no inline script or style
   at all (the pages load only ``/static/app.js`` and ``/static/app.css``), no framing, no
   sniffing, no referrer, no caching of pages.

Written by hand rather than taken from a CSRF package: the app needs both checks bound to its
own pluggable auth (local token or the server's login), which is a few lines of HMAC.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from kenning.web.auth import Auth, Viewer

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
FLASH_COOKIE = "kenning_flash"

CSP = "; ".join([
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
])  # fmt: skip
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    # same-origin, not no-referrer: under no-referrer a browser sends "Origin: null" with a plain
    # form post, and the origin check needs the real one. Nothing leaves for another site.
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
}


class Refusal(Exception):
    """A request the guards turn away (answered 403 with the reason)."""


@dataclass(frozen=True)
class Guard:
    auth: Auth
    secret: bytes  # per app instance: signs CSRF tokens and flash messages
    hosts: frozenset[str]  # allowed Host names (without port); empty = any (behind a proxy that checks)
    origins: frozenset[str] = frozenset()  # allowed Origins; empty = the request's own scheme://host
    exempt_prefixes: tuple[str, ...] = ()  # e.g. a bearer-token API that sends no cookies

    # -- CSRF ------------------------------------------------------------------------------
    def csrf_token(self, viewer: Viewer) -> str:
        return hmac.new(self.secret, b"csrf:" + viewer.session_key.encode(), hashlib.sha256).hexdigest()

    def check_origin(self, request: Request) -> None:
        origin = request.headers.get("origin")
        if origin is None:
            # Browsers send Origin with every POST (our Referrer-Policy keeps it for same-origin forms).
            raise Refusal("the request carries no Origin header")
        allowed = self.origins or {f"{request.url.scheme}://{request.headers.get('host', '')}"}
        if origin not in allowed:
            raise Refusal(f"the request comes from another origin ({origin})")

    def check_token(self, request: Request, viewer: Viewer, form: FormData | None) -> None:
        offered = request.headers.get(CSRF_HEADER) or (str(form.get(CSRF_FIELD, "")) if form is not None else "")
        if not offered or not hmac.compare_digest(offered.encode(), self.csrf_token(viewer).encode()):
            raise Refusal("the form's security token is missing or wrong; reload the page and try again")

    # -- flash messages (signed, so a link cannot put words on the page) ---------------------
    def sign_flash(self, message: dict[str, str]) -> str:
        body = base64.urlsafe_b64encode(json.dumps(message, separators=(",", ":")).encode()).decode()
        mac = hmac.new(self.secret, b"flash:" + body.encode(), hashlib.sha256).hexdigest()[:32]
        return f"{body}.{mac}"

    def read_flash(self, value: str) -> dict[str, str] | None:
        body, _, mac = value.rpartition(".")
        want = hmac.new(self.secret, b"flash:" + body.encode(), hashlib.sha256).hexdigest()[:32]
        if not body or not hmac.compare_digest(mac.encode(), want.encode()):
            return None
        try:
            data = json.loads(base64.urlsafe_b64decode(body.encode()))
        except ValueError:
            return None
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else None

    # -- the middleware ---------------------------------------------------------------------
    async def __call__(self, request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        response = await self._guarded(request, call_next)
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        if not request.url.path.startswith("/static/"):
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    async def _guarded(self, request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        host = request.headers.get("host", "").rsplit(":", 1)[0].strip("[]").lower()
        if self.hosts and host not in self.hosts:
            return PlainTextResponse("unknown host", status_code=400)
        path = request.url.path
        if any(path.startswith(p) for p in self.auth.public_prefixes):
            return await call_next(request)
        outcome = self.auth.gate(request)
        if isinstance(outcome, Response):
            return outcome
        request.state.viewer = outcome
        if request.method not in SAFE_METHODS and not any(path.startswith(p) for p in self.exempt_prefixes):
            try:
                self.check_origin(request)
            except Refusal as refused:
                return PlainTextResponse(f"refused: {refused}", status_code=403)
        return await call_next(request)


async def posted_form(request: Request) -> FormData:
    """The form of a state-changing request, after its CSRF token was checked. Every handler
    that changes something starts here (a test walks every route to prove it)."""
    guard: Guard = request.app.state.guard
    viewer: Viewer = request.state.viewer
    form = await request.form()
    try:
        guard.check_token(request, viewer, form)
        if not viewer.can_write:
            raise Refusal("your role in this workspace may read but not change memory")
    except Refusal as refused:
        raise CsrfRefused(str(refused)) from refused
    return form


class CsrfRefused(Exception):
    """Raised by :func:`posted_form`; the app answers 403 with the message."""
