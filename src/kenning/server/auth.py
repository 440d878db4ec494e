"""Who a request is: a bearer device token, checked against its hash, then the workspace it
asks for checked against the token's scope and the account's role there; and how often it may
ask (a token bucket per token).

The database checks the same again for every data-plane read and write (row-level security,
kenning.store.server.schema), so a mistake here cannot open another workspace.
"""

from __future__ import annotations

import hashlib
import math
import secrets
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from kenning.store.server.protocol import Device, Grant, Role, ServerStore

TOKEN_PREFIX = "kdev_"
INVITE_PREFIX = "kinv_"
# How stale a device's "last seen" may get before a request writes it again.
TOUCH_EVERY = timedelta(minutes=1)


def new_token(prefix: str = TOKEN_PREFIX) -> str:
    """A fresh 256-bit secret, shown once; the server keeps only :func:`token_hash` of it."""
    return prefix + secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Unauthorized(Exception):
    """No usable token (401)."""


class Forbidden(Exception):
    """A good token asking for what it may not have (403)."""


class RateLimited(Exception):
    """Past the token's rate (429); ``wait`` seconds until the next request may go."""

    def __init__(self, wait: float) -> None:
        # Whole seconds, rounded up, as Retry-After says them: a client that waits what the
        # message says is never refused again for being early.
        self.retry_after = max(1, math.ceil(wait))
        super().__init__(f"too many requests for this token; retry after {self.retry_after} s")
        self.wait = wait


@dataclass(frozen=True)
class Principal:
    device: Device
    token_hash: str
    roles: Mapping[str, Role] = field(default_factory=dict)  # its account's, in the workspaces the token lists

    @property
    def account(self) -> str:
        return self.device.account


def authenticate(store: ServerStore, header: str | None, now: datetime) -> Principal:
    scheme, _, token = (header or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("send the device token as 'Authorization: Bearer <token>' (kenning login gives one)")
    digest = token_hash(token.strip())
    found = store.signed_in(digest)
    device, roles = found if found is not None else (None, {})
    if device is None or device.kind != "device":
        # A browser session's secret (kind "web") is no API token: it lives in an HttpOnly cookie.
        raise Unauthorized("this token is unknown to the server; run: kenning login URL")
    if device.revoked_at is not None:
        raise Unauthorized("this device token was revoked; run: kenning login URL")
    if not device.valid(now):
        raise Unauthorized("this device token expired; run: kenning login URL")
    if device.last_seen_at is None or now - device.last_seen_at > TOUCH_EVERY:
        store.touch_device(device.id, now)
    return Principal(device, digest, roles)


def grant(principal: Principal, workspace: str, *, write: bool) -> tuple[Grant, Role]:
    """The data-plane grant for ``workspace``, after the application's own checks."""
    if workspace not in principal.device.workspaces:
        raise Forbidden(f"this device token is not scoped to workspace {workspace!r}"
                        f" (it syncs: {', '.join(principal.device.workspaces) or 'none'})")  # fmt: skip
    role = principal.roles.get(workspace)
    if role is None:
        raise Forbidden(f"your account is not a member of workspace {workspace!r}")
    if write and not role.writes:
        raise Forbidden(f"your role in workspace {workspace!r} is {role.value}: it reads only")
    return Grant(principal.token_hash, workspace), role


@dataclass
class _Bucket:
    tokens: float
    at: float


class RateLimiter:
    """A token bucket per key: ``rate`` requests a second, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: dict[str, _Bucket] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """0 when the request may go; else the seconds until it may."""
        now = time.monotonic()
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = self._buckets[key] = _Bucket(float(self.burst), now)
            bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.at) * self.rate)
            bucket.at = now
            if bucket.tokens >= 1:
                bucket.tokens -= 1
                return 0.0
            return (1 - bucket.tokens) / self.rate
