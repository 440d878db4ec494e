"""What every API route needs from a request: the store, the time, the caller (rate-limited)."""

from __future__ import annotations

from datetime import datetime

from fastapi import Request

from kenning.server.auth import Principal, RateLimited, authenticate
from kenning.store.server.protocol import ServerStore


def store_of(request: Request) -> ServerStore:
    store: ServerStore = request.app.state.store
    return store


def now_of(request: Request) -> datetime:
    moment: datetime = request.app.state.clock.now()
    return moment


def caller(request: Request) -> Principal:
    """The request's principal (401 without a good token; 429 past its rate)."""
    principal = authenticate(store_of(request), request.headers.get("authorization"), now_of(request))
    wait = request.app.state.limiter.take(principal.device.id)
    if wait > 0:
        raise RateLimited(wait)
    request.state.account = principal.account
    return principal


def author_name(store: ServerStore, account: str) -> str:
    """The name an account's records are labelled with in the server's copy of a workspace."""
    found = store.account(account)
    return found.name if found is not None else account
