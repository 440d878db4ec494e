"""Helpers of the team server tests: a real server on loopback over a real PostgreSQL, and
"machines" — each its own data folder and SQLite store, logged in over HTTP like `kenning login`."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from kenning.clock import SystemClock
from kenning.config import Settings
from kenning.core.remember import RememberRequest, RememberResult
from kenning.core.service import Core
from kenning.model import Kind, Origin
from kenning.server.app import Limits, create_server_app
from kenning.server.auth import new_token, token_hash
from kenning.store import sync_state
from kenning.store.server.postgres import PostgresServerStore
from kenning.store.server.protocol import Role
from kenning.sync.client import Link, SyncClient, WorkspaceReport
from kenning.sync.http import HttpTransport
from live_server import serving


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Running:
    url: str
    store: PostgresServerStore


@contextmanager
def running_server(dsn: str, *, limits: Limits = Limits(rate=1000, burst=1000)) -> Iterator[Running]:
    """The server app under uvicorn in a thread, on 127.0.0.1 (real HTTP), over ``dsn``."""
    store = PostgresServerStore.open(dsn, max_size=8)
    try:
        with serving(create_server_app(store, limits=limits)) as url:
            yield Running(url, store)
    finally:
        store.close()


def api_device(store: PostgresServerStore, account: str, workspaces: list[str] | None = None) -> str:
    """A device token of ``account`` for the REST API (the ``acme`` workspace unless told)."""
    secret = new_token()
    acc = store.account(account)
    assert acc is not None
    store.add_device(acc.id, f"{account}-api", workspaces or ["acme"], token_hash(secret), datetime.now(UTC))
    return secret


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def invite(store: PostgresServerStore, account: str, workspaces: list[str]) -> str:
    token = new_token("kinv_")
    now = datetime.now(UTC)
    acc = store.account(account)
    assert acc is not None
    store.add_invite(acc.id, workspaces, token_hash(token), now, now + timedelta(hours=1))
    return token


def team(store: PostgresServerStore, workspace: str = "acme") -> dict[str, str]:
    """alice (owner) and bob (member) of ``workspace``; their account ids by name."""
    now = datetime.now(UTC)
    alice = store.add_account("alice", now)
    bob = store.add_account("bob", now)
    store.add_workspace(workspace, workspace.title(), alice.id, now)
    store.set_member(workspace, bob.id, Role.MEMBER)
    return {"alice": alice.id, "bob": bob.id}


def alice_two_machines_and_bob(srv: Running, tmp_path: Path) -> tuple[Machine, Machine, Machine]:
    """The team of ``team`` on ``srv`` and its three machines, each logged in with an invite:
    alice's laptop and desk, and bob's computer (close them when done)."""
    team(srv.store)
    return (Machine(tmp_path, "alice-laptop", srv.url, invite(srv.store, "alice", ["acme"])),
            Machine(tmp_path, "alice-desk", srv.url, invite(srv.store, "alice", ["acme"])),
            Machine(tmp_path, "bob", srv.url, invite(srv.store, "bob", ["acme"])))  # fmt: skip


class Machine:
    """One computer: its own data folder and SQLite store, logged in with an invite."""

    def __init__(self, root: Path, name: str, url: str, invite_token: str, workspace: str = "acme") -> None:
        self.home = root / name
        self.settings = Settings(home=self.home, workspace=workspace)
        self.core = Core.open(self.settings, SystemClock())
        anonymous = HttpTransport(url)
        joined = anonymous.post("/api/v1/login/invite", {"invite": invite_token, "label": name})
        anonymous.close()
        self.link = Link(url, joined["account"], joined["account_name"], joined["device"], tuple(joined["workspaces"]),
                         joined["token"])  # fmt: skip
        self.transport = HttpTransport(url, self.link.token)
        self.state = sync_state(self.core.stores)

    def client(self, **kwargs: int) -> SyncClient:
        return SyncClient(self.core.stores, self.state, self.transport, self.link, self.core.now, **kwargs)

    def sync(self) -> list[WorkspaceReport]:
        return self.client().sync()

    def remember(self, text: str, **kwargs: object) -> RememberResult:
        kwargs.setdefault("origin", Origin.PERSON)
        kwargs.setdefault("source", "cli")
        request = RememberRequest(text, **kwargs)  # type: ignore[arg-type]
        return self.core.remember(self.core.place(project="github.com/acme/shop"), request)

    def memories(self, **flags: bool) -> dict[str, object]:
        out = {}
        for m in self.core.store.iter_all(self.settings.workspace):
            out[m.ref] = m
        return out

    def close(self) -> None:
        self.transport.close()
        self.core.close()


KINDS = Kind


class ServerProcess:
    """`kenning serve` as a real process (where killing it is the point)."""

    def __init__(self, home: Path, dsn: str, port: int | None = None) -> None:
        import os
        import subprocess
        import sys

        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "KENNING_HOME": str(home)}
        self.log = (home.parent / f"serve-{self.port}.log").open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kenning.cli", "serve", "--port", str(self.port), "--database", dsn],
            env=env, stdout=self.log, stderr=self.log,
        )  # fmt: skip
        self.wait_ready()

    def wait_ready(self, timeout: float = 60) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"kenning serve exited with {self.proc.returncode}")
            try:
                if httpx.get(self.url + "/readyz", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError("kenning serve did not become ready")

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)

    def stop(self) -> int:
        import signal

        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=60)
        self.log.close()
        return int(self.proc.returncode)
