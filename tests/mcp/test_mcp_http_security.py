"""``kenning mcp --http`` requires its token and checks Host and Origin for every bound host:
a real server process, the official client with and without the token, and requests from a
host and an origin nobody configured (DNS rebinding)."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio
KENNING = Path(sys.executable).parent / "kenning"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}  # fmt: skip
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(home: Path, *args: str) -> Iterator[int]:
    port = free_port()
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home.parent), "KENNING_HOME": str(home)}
    proc = subprocess.Popen([str(KENNING), "mcp", "--http", "--port", str(port), *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "the HTTP server did not start"
            time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def loopback(kenning_home: Path) -> Iterator[int]:
    yield from serve(kenning_home)


@pytest.fixture
def every_interface(kenning_home: Path) -> Iterator[int]:
    yield from serve(kenning_home, "--host", "0.0.0.0", "--allow-host", "kenning.lan")


def token(home: Path) -> str:
    done = subprocess.run([str(KENNING), "--home", str(home), "mcp", "token"], capture_output=True, text=True,
                          timeout=60, check=True)  # fmt: skip
    return done.stdout.strip()


async def test_the_official_client_needs_the_token(loopback: int, kenning_home: Path) -> None:
    path = kenning_home / "mcp-token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert token(kenning_home) == path.read_text().strip() and len(path.read_text().strip()) >= 40
    url = f"http://127.0.0.1:{loopback}/mcp"
    bearer = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token(kenning_home)}"})
    async with Client(streamable_http_client(url, http_client=bearer)) as client:
        assert {t.name for t in (await client.list_tools()).tools} >= {"recall", "remember"}
    with pytest.raises(Exception):  # noqa: B017 - the SDK wraps the 401 in its own error groups
        async with Client(url) as client:
            await client.list_tools()
    wrong = httpx2.post(url, json=INIT, headers={**HEADERS, "Authorization": "Bearer not-the-token"})
    assert wrong.status_code == 401
    bare = httpx2.post(url, json=INIT, headers=HEADERS)
    assert bare.status_code == 401


def test_host_and_origin_are_checked_on_every_interface(every_interface: int, kenning_home: Path) -> None:
    url = f"http://127.0.0.1:{every_interface}/mcp"
    auth = {**HEADERS, "Authorization": f"Bearer {token(kenning_home)}"}
    assert httpx2.post(url, json=INIT, headers=auth).status_code == 200
    allowed = httpx2.post(url, json=INIT, headers={**auth, "Host": f"kenning.lan:{every_interface}"})
    assert allowed.status_code == 200
    rebound = httpx2.post(url, json=INIT, headers={**auth, "Host": f"attacker.example:{every_interface}"})
    assert rebound.status_code == 421
    page = httpx2.post(url, json=INIT, headers={**auth, "Origin": "http://attacker.example"})
    assert page.status_code == 403
