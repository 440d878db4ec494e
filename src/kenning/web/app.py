"""The web app as one ASGI application (FastAPI): the pages, their static files and the guards.

``create_app(cores, auth)`` is the whole contract:

- ``cores(viewer)`` opens the core for a viewer (a context manager). ``kenning ui`` hands out
  one core over the local store; the team server (issue 16) opens one per request for the
  viewer's workspace.
- ``auth`` decides who the viewer is (:mod:`kenning.web.auth`): the local launch token, or the
  server's login, whose own routes the app mounts.

The server adds its REST API to the same FastAPI app (so both share one OpenAPI schema) and
exempts it from the cookie/CSRF guard with ``csrf_exempt_prefixes`` (its clients send bearer
tokens, not cookies). The pages themselves stay out of the schema.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from importlib.resources import files

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.staticfiles import StaticFiles

from kenning.core.service import Core
from kenning.errors import KenningError, NotFound
from kenning.web.auth import Auth, Viewer
from kenning.web.common import CoreProvider, core_for, page
from kenning.web.pages import ROUTERS
from kenning.web.render import Pages
from kenning.web.security import CsrfRefused, Guard

LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def shared_core(core: Core) -> CoreProvider:
    """A provider that hands every viewer the same core (one person, one local store)."""

    @contextmanager
    def provide(viewer: Viewer) -> Iterator[Core]:
        yield core

    def provider(viewer: Viewer, write: bool = False) -> AbstractContextManager[Core]:
        return provide(viewer)

    return provider


def create_app(cores: CoreProvider, auth: Auth, *, hosts: Iterable[str] = LOCAL_HOSTS,
               origins: Iterable[str] = (), csrf_exempt_prefixes: Iterable[str] = (),
               secret: bytes | None = None) -> FastAPI:  # fmt: skip
    """The web app. ``hosts``: the Host names it answers (empty: any, for a server behind a
    proxy that checks); ``origins``: the allowed Origins of forms (default: the request's own)."""
    app = FastAPI(title="kenning", docs_url=None, redoc_url=None, openapi_url=None)
    guard = Guard(auth, secret or secrets.token_bytes(32), frozenset(h.lower() for h in hosts),
                  frozenset(origins), tuple(csrf_exempt_prefixes))  # fmt: skip
    app.state.guard = guard
    app.state.cores = cores
    app.state.pages = Pages()
    app.middleware("http")(guard)
    app.router.routes.extend(auth.routes())
    app.mount("/static", StaticFiles(directory=str(files("kenning.web") / "static")), name="static")
    for router in ROUTERS:
        app.include_router(router, include_in_schema=False)

    @app.get("/", include_in_schema=False)
    def home() -> Response:
        return RedirectResponse("/memory", status_code=303)

    @app.exception_handler(KenningError)
    def kenning_error(request: Request, error: KenningError) -> Response:
        status = 404 if isinstance(error, NotFound) else 400
        with core_for(request) as core:
            return page(request, core, "error.html", "", status_code=status, error=error)

    @app.exception_handler(CsrfRefused)
    def csrf_refused(request: Request, error: CsrfRefused) -> Response:
        return PlainTextResponse(f"refused: {error}", status_code=403)

    return app
