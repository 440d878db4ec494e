"""The team server as one ASGI application (FastAPI): health, the REST API and its OpenAPI
schema (``/api/v1/openapi.json``, browsable at ``/api/v1/docs``).

``create_server_app(store, ...)`` is the whole contract; ``kenning serve`` builds the store
and runs this under uvicorn (kenning.server.run).
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import anyio.to_thread
import orjson
from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from kenning.clock import Clock, SystemClock
from kenning.errors import KenningError, NotFound
from kenning.server.auth import Forbidden, RateLimited, RateLimiter, Unauthorized
from kenning.server.body_limit import BodyLimit
from kenning.server.errors import Conflict, TooLarge
from kenning.store.server.protocol import Busy, NotPermitted, ServerStore
from kenning.sync import wire

if TYPE_CHECKING:
    from kenning.web.common import CoreProvider

log = logging.getLogger("kenning.server")
# Threads that run the routes (each waits on PostgreSQL most of its time): room for every
# client of a busy team to have a request in flight while writers queue for their turn.
ROUTE_THREADS = 100
# What a client is told to wait when the server is past what it can take.
BUSY_RETRY_SECONDS = 5
# A request body larger than this is refused before it is read whole (a push is bounded by
# wire.MAX_BATCH_BYTES; the rest is room for the envelope).
MAX_BODY = wire.MAX_BATCH_BYTES + 64 * 1024


@dataclass(frozen=True)
class Limits:
    rate: float = 50.0  # requests a second per token
    burst: int = 200


def error(status: int, code: str, message: str, fix: str = "", **extra: object) -> JSONResponse:
    body = {"error": code, "message": message, **({"fix": fix} if fix else {}), **extra}
    return JSONResponse(body, status_code=status)


@dataclass(frozen=True)
class PagesConfig:
    """The web app's pages on the server (kenning.server.web_login signs browsers in)."""

    cores: CoreProvider | None = None  # default: the session's workspace on this server (web_cores)
    secure: bool = False  # TLS here or at a proxy: session cookies are Secure whatever the scheme says
    hosts: tuple[str, ...] = ()  # Host names the pages answer; empty: any (a proxy in front checks)
    signin_rate: float = 0.2  # sign-in and approval attempts a second per client address…
    signin_burst: int = 10  # …after a burst of this many


def create_server_app(store: ServerStore, *, clock: Clock | None = None, limits: Limits = Limits(),
                      pages: PagesConfig | None = None) -> FastAPI:  # fmt: skip
    """The server: health, the REST API, and (with ``pages``) the web app behind its sign-in,
    mounted at the root after every API route, with its own guards and error pages."""
    from kenning.server import (
        routes_kinds,
        routes_login,
        routes_memory,
        routes_sessions,
        routes_sync,
        routes_web,
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        anyio.to_thread.current_default_thread_limiter().total_tokens = ROUTE_THREADS
        yield

    app = FastAPI(title="kenning team server", version="1", docs_url="/api/v1/docs", redoc_url=None, lifespan=lifespan,
                  openapi_url="/api/v1/openapi.json",
                  description="Sync, memory recall and writes, accounts and devices of a kenning team server (docs/server.md).")  # fmt: skip
    app.state.store = store
    app.state.clock = clock or SystemClock()
    app.state.limiter = RateLimiter(limits.rate, limits.burst)
    app.include_router(routes_login.router)
    app.include_router(routes_sync.router)
    app.include_router(routes_memory.router)
    app.include_router(routes_sessions.router)
    app.include_router(routes_kinds.router)
    app.include_router(routes_web.router)

    @app.get("/healthz", tags=["health"], summary="The process answers.")
    def healthz() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/readyz", tags=["health"], summary="The database answers and its schema is current.")
    def readyz() -> Response:
        ready = store.ready()
        return JSONResponse({"ready": ready}, status_code=200 if ready else 503)

    # Added before the access log, so it runs inside it: a refused body is logged too.
    app.add_middleware(BodyLimit, limit=MAX_BODY, refuse=_body_too_large)

    @app.middleware("http")
    async def access_log(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        started = time.perf_counter()
        response = await call_next(request)
        log.info("request", extra={"fields": {
            "method": request.method, "path": request.url.path, "status": response.status_code,
            "ms": round((time.perf_counter() - started) * 1000, 1),
            "account": getattr(request.state, "account", ""), "workspace": getattr(request.state, "workspace", ""),
        }})  # fmt: skip
        return response

    @app.exception_handler(RequestValidationError)
    def invalid(request: Request, exc: RequestValidationError) -> Response:
        problems = exc.errors()
        if any(p.get("type") == "json_invalid" for p in problems):
            return error(400, "malformed_json", "the request body is not valid JSON",
                         fix="send one JSON object with Content-Type: application/json")  # fmt: skip
        details = [{"field": ".".join(str(x) for x in p.get("loc", ()) if x != "body"), "problem": p.get("msg", "")}
                   for p in problems]  # fmt: skip
        first = details[0] if details else {"field": "", "problem": "invalid"}
        return error(422, "invalid", f"{first['field'] or 'body'}: {first['problem']}",
                     fix="see details, and the schema at /api/v1/openapi.json", details=details)  # fmt: skip

    @app.exception_handler(Unauthorized)
    def unauthorized(request: Request, exc: Unauthorized) -> Response:
        response = error(401, "unauthorized", str(exc))
        response.headers["WWW-Authenticate"] = "Bearer"
        return response

    @app.exception_handler(Forbidden)
    def forbidden(request: Request, exc: Forbidden) -> Response:
        return error(403, "forbidden", str(exc))

    @app.exception_handler(NotPermitted)
    def not_permitted(request: Request, exc: NotPermitted) -> Response:
        return error(403, "forbidden", str(exc))

    @app.exception_handler(RateLimited)
    def rate_limited(request: Request, exc: RateLimited) -> Response:
        response = error(429, "rate_limited", str(exc), fix="slow down; the limit is per device token")
        response.headers["Retry-After"] = str(exc.retry_after)
        return response

    @app.exception_handler(Busy)
    def busy(request: Request, exc: Busy) -> Response:
        log.warning("busy", extra={"fields": {"path": request.url.path, "problem": str(exc)}})
        response = error(503, "busy", f"the server is busy ({exc})", fix="send the request again in a few seconds")
        response.headers["Retry-After"] = str(BUSY_RETRY_SECONDS)
        return response

    @app.exception_handler(TooLarge)
    def too_large(request: Request, exc: TooLarge) -> Response:
        return error(413, "too_large", str(exc), fix=f"send at most {wire.MAX_BATCH_ITEMS} records a batch")

    @app.exception_handler(KenningError)
    def kenning_error(request: Request, exc: KenningError) -> Response:
        status = 404 if isinstance(exc, NotFound) else 409 if isinstance(exc, Conflict) else 400
        return error(status, type(exc).__name__.lower(), exc.message, exc.fix)

    if pages is not None:
        from kenning.server.web_cores import session_cores
        from kenning.server.web_login import ServerLogin
        from kenning.web.app import create_app

        login = ServerLogin(store, app.state.clock, secure=pages.secure, signin_rate=pages.signin_rate,
                            signin_burst=pages.signin_burst)  # fmt: skip
        # Last, so /api, /healthz and /readyz match first; the pages keep their own middleware
        # (host, session, origin and CSRF checks, security headers) and error pages.
        cores = pages.cores or session_cores(store, app.state.clock)
        app.mount("/", create_app(cores, login, hosts=pages.hosts))
    return app


def _body_too_large(size: int | None) -> Response:
    said = f"{size} bytes" if size is not None else f"over {MAX_BODY} bytes"
    return error(413, "too_large", f"the request body is {said}; the limit is {MAX_BODY}",
                 fix=f"send at most {wire.MAX_BATCH_ITEMS} records and {wire.MAX_BATCH_BYTES} bytes a batch")  # fmt: skip


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, event and the request's fields (never a token or a body)."""

    def format(self, record: logging.LogRecord) -> str:
        out = {"time": datetime.fromtimestamp(record.created).astimezone().isoformat(timespec="milliseconds"),
               "level": record.levelname.lower(), "event": record.getMessage(),
               **getattr(record, "fields", {})}  # fmt: skip
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return orjson.dumps(out).decode()
