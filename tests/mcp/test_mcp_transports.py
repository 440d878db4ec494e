"""The real ``kenning mcp`` process: every tool over stdio, and one session over streamable HTTP."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation
from mcp_support import data, error_text, git_project, snapshot

pytestmark = pytest.mark.anyio

KENNING = Path(sys.executable).parent / "kenning"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def server_env(home: Path, **extra: str) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "HOME": str(home.parent), "KENNING_HOME": str(home), **extra}


async def test_every_tool_over_stdio(tmp_path: Path, kenning_home: Path) -> None:
    project = git_project(tmp_path / "shop")
    params = StdioServerParameters(
        command=str(KENNING), args=["mcp", "--tools", "all"], env=server_env(kenning_home, CLAUDE_PROJECT_DIR=str(project))
    )
    async with Client(params, client_info=Implementation(name="codex-mcp-client", version="0.169.0")) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"recall", "remember", "get_memory", "list_memories", "record_decision", "propose_memory_change"} <= names
        fact = data(await client.call_tool("remember", {"text": "The API gateway terminates TLS before the app"}))
        ref = fact["memory"]["ref"]
        assert fact["memory"]["scope"] == "github.com/acme/shop"  # from CLAUDE_PROJECT_DIR
        assert fact["memory"]["origin_tool"] == "codex-mcp-client"
        decision = data(await client.call_tool("record_decision", {
            "title": "Terminate TLS at the gateway rather than in each service",
            "reasoning": "one certificate to rotate", "used": [ref],
        }))  # fmt: skip
        assert decision["decision_doc"]["id"] > 0
        found = data(await client.call_tool("recall", {"query": "where is TLS terminated"}))
        assert ref in {r["ref"] for r in found["results"]}
        got = data(await client.call_tool("get_memory", {"refs": [ref]}))
        assert got["memories"][0]["uses"] == 1
        listed = data(await client.call_tool("list_memories", {}))
        assert len(listed["memories"]) == 2
        proposal = data(await client.call_tool("propose_memory_change", {"type": "retire", "refs": [ref]}))
        assert proposal["review"] > 0
        sessions = data(await client.call_tool("search_sessions", {"query": "tls gateway", "all_projects": True}))
        assert sessions["hits"] == [] and sessions["note"]
        assert "no captured session" in error_text(await client.call_tool("show_session", {"session": "s-404"}))
        assert "no captured session" in error_text(
            await client.call_tool("session_context", {"session": "s-404", "chunk": 1})
        )
        before = snapshot(kenning_home / "kenning.db")
        assert "count" in error_text(await client.call_tool("recall", {"query": "tls", "count": 0}))
        assert snapshot(kenning_home / "kenning.db") == before


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_streamable_http(tmp_path: Path, kenning_home: Path) -> None:
    project = git_project(tmp_path / "shop")
    port = free_port()
    proc = subprocess.Popen(
        [str(KENNING), "mcp", "--http", "--port", str(port)],
        env=server_env(kenning_home), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "the HTTP server did not start"
            time.sleep(0.1)
        token = (kenning_home / "mcp-token").read_text().strip()  # made at first start (see test_mcp_http_security)
        bearer = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
        async with Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=bearer)) as client:
            stored = data(await client.call_tool("remember", {
                "text": "Feature flags are read from LaunchDarkly at startup", "cwd": str(project),
            }))  # fmt: skip
            assert stored["memory"]["scope"] == "github.com/acme/shop"
            found: dict[str, Any] = data(await client.call_tool("recall", {"query": "feature flags", "cwd": str(project)}))
            assert [r["ref"] for r in found["results"]] == [stored["memory"]["ref"]]
            # Without cwd an HTTP server (shared by many folders) files under personal, not its own folder.
            none = data(await client.call_tool("recall", {"query": "feature flags"}))
            assert none["results"] == []
    finally:
        proc.terminate()
        proc.wait(timeout=10)
