"""Session tools over captured transcripts, through the in-process MCP client."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client
from mcp_support import data, error_text

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.capture_job import sync_all
from kenning.core.service import Core
from kenning.mcp.groups import GROUPS
from kenning.mcp.server import build_server

ALL_GROUPS = tuple(GROUPS)

pytestmark = pytest.mark.anyio
SESSION = "5b0c1d2e-3f4a-4b5c-8d6e-7f8091a2b3c4"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def line(uid: str, text: str, role: str, minute: int) -> str:
    rec: dict[str, object] = {"type": role, "uuid": uid, "sessionId": SESSION, "cwd": "/home/alice/src/shop",
                              "timestamp": f"2026-03-01T10:{minute:02d}:00.000Z", "message": {"role": role, "content": text}}
    if role == "assistant":
        rec["message"] = {"role": "assistant", "content": [{"type": "text", "text": text}]}
    return json.dumps(rec)


@pytest.fixture
async def client(tmp_path: Path, settings: Settings, core: Core, clock: FixedClock) -> AsyncIterator[Client]:
    home = tmp_path / "home"
    folder = home / ".claude" / "projects" / "-home-alice-src-shop"
    folder.mkdir(parents=True)
    turns = [
        ("Why does the login test fail on CI but pass locally?", "user"),
        ("The CI image runs in UTC while your laptop is in Europe/Paris; the test compares local dates.", "assistant"),
        ("Pin the timezone in conftest then.", "user"),
        ("Done: conftest.py sets TZ=UTC before the app imports its settings.", "assistant"),
    ]
    (folder / f"{SESSION}.jsonl").write_text("\n".join(
        line(f"0000000{i}-aaaa-4bbb-8ccc-dddddddddddd", text, role, i) for i, (text, role) in enumerate(turns)) + "\n")
    sync_all(core, home)
    async with Client(build_server(settings, core=core, tools=ALL_GROUPS)) as c:
        yield c


async def test_search_show_and_context(client: Client) -> None:
    found = data(await client.call_tool("search_sessions", {"query": "timezone CI image UTC", "all_projects": True}))
    assert found["hits"], found
    hit = found["hits"][0]
    assert "UTC" in hit["evidence"] and SESSION in hit["session"]
    around = data(await client.call_tool("session_context", {"session": hit["session"], "chunk": hit["chunk"], "radius": 1}))
    assert around["chunk"] == hit["chunk"] and around["turns"]
    shown = data(await client.call_tool("show_session", {"session": hit["session"]}))
    assert [t["role"] for t in shown["turns"]][:2] == ["user", "assistant"]
    assert "TZ=UTC" in shown["turns"][-1]["text"]


async def test_bad_session_calls_are_errors(client: Client) -> None:
    assert "no captured session" in error_text(await client.call_tool("show_session", {"session": "nope"}))
    assert error_text(await client.call_tool("search_sessions", {"query": "tz", "limit": 0}))
    none = data(await client.call_tool("search_sessions", {"query": "kubernetes helm", "all_projects": True}))
    assert none["hits"] == [] and none["note"]
