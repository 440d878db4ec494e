"""Signing in to the team server's pages in a browser.

A browser never sees a device token. A machine that is already logged in (``kenning ui
--server``) asks the API for a **sign-in link** (``POST /api/v1/web/link``): a 256-bit random
token, good once and for :data:`LINK_TTL`, bound to that device's account and workspaces; the
server keeps only its SHA-256. Opening the link shows a page whose form (sent by itself when
scripts run) trades it, in one transaction, for a **browser session**: a ``devices`` row of
kind ``web`` holding the SHA-256 of a fresh session secret, which goes to the browser as a
cookie (HttpOnly, SameSite=Strict, Secure and ``__Host-`` named when the server is reached
over TLS or behind a proxy) and expires after :data:`SESSION_TTL`. Sign-out revokes the row; so
do ``kenning server revoke`` and the device list. A link is refused once used, once expired,
and once the device that asked for it is revoked.

The session is a device row on purpose: the data plane's row-level security (which admits a
transaction by its token's hash) binds a page's reads exactly as it binds a device's sync.

:class:`ServerLogin` is the web app's :class:`kenning.web.auth.Auth` for the server: every
page needs a good session (else a redirect to the sign-in page, which says how to get a
link); the viewer's workspace is the one chosen in the switcher among the session's
workspaces where the account is still a member, and its role there decides what it may do.
It also serves the page where a signed-in member approves another machine's device code
(``kenning login`` without an invite).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from kenning.clock import Clock
from kenning.server.auth import RateLimiter, token_hash
from kenning.store.server.protocol import Device, ServerStore
from kenning.web.auth import Viewer
from kenning.web.render import Pages
from kenning.web.security import Guard, Refusal

LINK_PREFIX = "klnk_"
LINK_TTL = timedelta(minutes=5)
SESSION_TTL = timedelta(hours=12)
SESSION_COOKIE = "kenning_session"
SECURE_SESSION_COOKIE = "__Host-kenning_session"  # Secure, Path=/, no Domain: the browser enforces it
WORKSPACE_COOKIE = "kenning_workspace"
SIGNIN_PATH = "/signin"


def session_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True)
class Signin:
    """What the API answers a machine that asks for a sign-in link."""

    token: str
    path: str  # /signin?link=…, to join to the server's address the machine knows
    expires_in: int


def new_link(store: ServerStore, device: Device, now_clock: Clock, workspaces: Sequence[str] | None = None) -> Signin:
    """Mint a one-time sign-in link for ``device``'s account (its workspaces, or fewer)."""
    token = LINK_PREFIX + secrets.token_urlsafe(32)
    now = now_clock.now()
    wanted = list(device.workspaces if workspaces is None else workspaces)
    store.add_web_link(token_hash(token), device.id, wanted, now, now + LINK_TTL)
    return Signin(token, f"{SIGNIN_PATH}?link={quote(token)}", int(LINK_TTL.total_seconds()))


class ServerLogin:
    """The team server's sign-in for the web app (see the module docstring)."""

    public_prefixes: tuple[str, ...] = (SIGNIN_PATH, "/static/")

    def __init__(self, store: ServerStore, clock: Clock, *, secure: bool = False,
                 signin_rate: float = 0.2, signin_burst: int = 10) -> None:  # fmt: skip
        self.store = store
        self.clock = clock
        self.secure = secure  # TLS here or at a proxy in front: cookies are Secure whatever the scheme says
        self.limiter = RateLimiter(signin_rate, signin_burst)  # per client address, on sign-in and approval

    # -- the gate -----------------------------------------------------------------------------
    def _secure(self, request: Request) -> bool:
        return self.secure or request.url.scheme == "https"

    def cookie_name(self, request: Request) -> str:
        return SECURE_SESSION_COOKIE if self._secure(request) else SESSION_COOKIE

    def session(self, request: Request) -> Device | None:
        """The request's browser session when it is good now."""
        secret = request.cookies.get(self.cookie_name(request), "")
        if not secret:
            return None
        device = self.store.device_by_token(session_hash(secret))
        if device is None or device.kind != "web" or not device.valid(self.clock.now()):
            return None
        return device

    def gate(self, request: Request) -> Viewer | Response:
        device = self.session(request)
        if device is None:
            response = RedirectResponse(SIGNIN_PATH, status_code=303)
            if request.cookies.get(self.cookie_name(request)):
                self._forget(request, response)
            return response
        roles = {ws: role for ws in device.workspaces if (role := self.store.role(ws, device.account)) is not None}
        if not roles:
            return self._plain(request, "No workspace", "Your account is no longer a member of any workspace this"
                               " session was opened for. Ask a workspace owner to add you, then sign in again.",
                               status_code=403)  # fmt: skip
        chosen = request.cookies.get(WORKSPACE_COOKIE, "")
        if chosen not in roles:
            chosen = sorted(roles)[0]
        now = self.clock.now()
        if device.last_seen_at is None or now - device.last_seen_at > timedelta(minutes=1):
            self.store.touch_device(device.id, now)
        account = self.store.account(device.account)
        return Viewer(
            account.name if account else device.account, request.cookies[self.cookie_name(request)],
            workspace=chosen, can_write=roles[chosen].writes, workspaces=tuple(sorted(roles)),
            role=roles[chosen].value, signed_in=True, account=device.account, has_checkouts=False,
        )  # fmt: skip

    def routes(self) -> Sequence[BaseRoute]:
        return (
            Route(SIGNIN_PATH, self.signin_page, methods=["GET"]),
            Route(SIGNIN_PATH, self.signin, methods=["POST"]),
            Route("/signout", self.signout, methods=["POST"]),
            Route("/workspace", self.switch, methods=["POST"]),
            Route("/device", self.device_page, methods=["GET"]),
            Route("/device", self.approve, methods=["POST"]),
        )

    # -- pages ---------------------------------------------------------------------------------
    def _plain(self, request: Request, title: str, message: str = "", *, status_code: int = 200,
               template: str = "signin.html", **context: Any) -> HTMLResponse:  # fmt: skip
        pages: Pages = request.app.state.pages
        html = pages.render(template, title=title, message=message, **context)
        return HTMLResponse(html, status_code=status_code)

    def _limited(self, request: Request) -> Response | None:
        client = request.client.host if request.client else "unknown"
        wait = self.limiter.take(client)
        if wait <= 0:
            return None
        response = self._plain(request, "Too many tries", "Too many sign-in attempts from this address."
                               f" Wait {max(1, round(wait))} seconds and try again.", status_code=429)  # fmt: skip
        response.headers["Retry-After"] = str(max(1, round(wait)))
        return response

    async def signin_page(self, request: Request) -> Response:
        link = request.query_params.get("link", "")
        if request.query_params.get("out"):
            return self._plain(request, "Signed out", "You are signed out. This browser holds no session now.")
        if link:
            return self._plain(request, "Sign in", "", link=link)
        return self._plain(request, "Sign in", "")

    async def signin(self, request: Request) -> Response:
        guard: Guard = request.app.state.guard
        try:
            guard.check_origin(request)  # no session yet, so no CSRF token: the Origin is the check
        except Refusal as refused:
            return self._plain(request, "Refused", f"Refused: {refused}.", status_code=403)
        limited = self._limited(request)
        if limited is not None:
            return limited
        form = await request.form()
        link = str(form.get("link", "")).strip()
        secret = secrets.token_urlsafe(32)
        now = self.clock.now()
        agent = request.headers.get("user-agent", "")[:60]
        device = self.store.claim_web_link(token_hash(link), session_hash(secret), f"browser {agent}".strip(), now,
                                           now + SESSION_TTL) if link.startswith(LINK_PREFIX) else None  # fmt: skip
        if device is None:
            return self._plain(request, "Link not valid", "This sign-in link is unknown, already used or expired"
                               " (a link is good once, for a few minutes). Ask for a new one on your machine:"
                               " kenning ui --server", status_code=400)  # fmt: skip
        response = RedirectResponse("/memory", status_code=303)
        response.set_cookie(self.cookie_name(request), secret, max_age=int(SESSION_TTL.total_seconds()), path="/",
                            httponly=True, samesite="strict", secure=self._secure(request))  # fmt: skip
        return response

    def _check_csrf(self, request: Request, form: Any) -> Viewer:
        guard: Guard = request.app.state.guard
        viewer: Viewer = request.state.viewer
        guard.check_token(request, viewer, form)
        return viewer

    async def signout(self, request: Request) -> Response:
        form = await request.form()
        try:
            self._check_csrf(request, form)
        except Refusal as refused:
            return self._plain(request, "Refused", f"Refused: {refused}.", status_code=403)
        device = self.session(request)
        if device is not None:
            self.store.revoke_device(device.id, self.clock.now())
        response = RedirectResponse(f"{SIGNIN_PATH}?out=1", status_code=303)
        self._forget(request, response)
        return response

    async def switch(self, request: Request) -> Response:
        form = await request.form()
        try:
            viewer = self._check_csrf(request, form)
        except Refusal as refused:
            return self._plain(request, "Refused", f"Refused: {refused}.", status_code=403)
        wanted = str(form.get("workspace", ""))
        if wanted not in viewer.workspaces:
            return self._plain(request, "Not your workspace", f"This session cannot open the workspace {wanted!r}.",
                               status_code=403)  # fmt: skip
        response = RedirectResponse("/memory", status_code=303)
        response.set_cookie(WORKSPACE_COOKIE, wanted, path="/", httponly=True, samesite="strict",
                            secure=self._secure(request), max_age=int(SESSION_TTL.total_seconds()))  # fmt: skip
        return response

    async def device_page(self, request: Request) -> Response:
        viewer: Viewer = request.state.viewer
        guard: Guard = request.app.state.guard
        return self._plain(request, "Approve a machine", "", template="device.html", viewer=viewer,
                           csrf=guard.csrf_token(viewer), code=request.query_params.get("code", ""))  # fmt: skip

    async def approve(self, request: Request) -> Response:
        form = await request.form()
        guard: Guard = request.app.state.guard
        try:
            viewer = self._check_csrf(request, form)
        except Refusal as refused:
            return self._plain(request, "Refused", f"Refused: {refused}.", status_code=403)
        limited = self._limited(request)
        if limited is not None:
            return limited
        device = self.session(request)
        assert device is not None  # the gate let the request in
        code = str(form.get("code", "")).strip().upper()
        wanted = [str(w) for w in form.getlist("workspace")] or list(viewer.workspaces)
        outside = [w for w in wanted if w not in viewer.workspaces]
        context: dict[str, Any] = {"viewer": viewer, "csrf": guard.csrf_token(viewer), "code": code}
        if outside:
            return self._plain(request, "Approve a machine", f"This session may not grant {', '.join(outside)}.",
                               template="device.html", status_code=403, **context)  # fmt: skip
        confirmed = self.store.confirm_device_code(code, device.account, wanted, self.clock.now()) if code else None
        if confirmed is None:
            return self._plain(request, "Approve a machine", f"No machine is waiting with the code {code!r}: check"
                               " the code its terminal shows (it is good for 15 minutes).", template="device.html",
                               status_code=404, **context)  # fmt: skip
        said = f"Approved {confirmed.user_code} ({confirmed.label or 'unnamed'}) for {', '.join(wanted)}."
        return self._plain(request, "Approved", said, template="device.html", approved=True, **context)

    def _forget(self, request: Request, response: Response) -> None:
        response.delete_cookie(self.cookie_name(request), path="/", secure=self._secure(request), httponly=True,
                               samesite="strict")  # fmt: skip
