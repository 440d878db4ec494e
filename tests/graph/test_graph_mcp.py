"""The graph tools through the in-process MCP client."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "mcp"))

from mcp import Client  # noqa: E402
from mcp_support import data, error_text  # noqa: E402

from kenning.clock import FixedClock  # noqa: E402
from kenning.config import Settings  # noqa: E402
from kenning.core.service import Core  # noqa: E402
from kenning.mcp.groups import GROUPS
from kenning.mcp.server import build_server  # noqa: E402

ALL_GROUPS = tuple(GROUPS)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client(settings: Settings, core: Core) -> AsyncIterator[Client]:
    async with Client(build_server(settings, core=core, tools=ALL_GROUPS)) as c:
        yield c


async def call(client: Client, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return data(await client.call_tool(name, args))


async def test_graph_tools_round_trip(client: Client, clock: FixedClock) -> None:
    names = {t.name for t in (await client.list_tools()).tools}
    assert {"kg_query", "kg_add", "kg_timeline", "decision_record", "diary_write", "diary_read", "set", "get",
            "wake_up", "smart_resume"} <= names
    await call(client, "kg_add", {"subject": "shop", "predicate": "uses", "object": "Postgres"})
    clock.advance(days=1)
    added = await call(client, "kg_add", {"subject": "shop", "predicate": "uses", "object": "Redis"})
    assert added["added"] and added["closed"] == []  # no supersede by default
    found = await call(client, "kg_query", {"entity": "shop", "predicate": "uses"})
    assert sorted(f["object_id"] for f in found["facts"]) == ["postgres", "redis"]
    past = await call(client, "kg_query", {"entity": "shop", "as_of": "2026-03-02T10:00:00Z"})
    assert [f["object_id"] for f in past["facts"]] == ["postgres"]
    first = await call(client, "decision_record", {"decision": "Use Postgres for the queue", "reasoning": "we run it",
                                                   "area": "queue", "cwd": None})
    clock.advance(days=1)
    second = await call(client, "decision_record", {"decision": "Use Redis streams for the queue",
                                                    "reasoning": "polling was slow", "area": "queue"})
    assert [c["id"] for c in second["closed"]] == [first["fact"]["id"]]
    await call(client, "diary_write", {"text": "Moved the queue."})
    assert (await call(client, "diary_read", {}))["entries"][0]["text"] == "«Moved the queue.»"
    await call(client, "set", {"key": "deploy.target", "value": "fly.io"})
    assert (await call(client, "get", {"key": "deploy.target"}))["value"] == "«fly.io»"
    woke = await call(client, "wake_up", {})
    assert "Use Redis streams for the queue" in woke["text"] and "Use Postgres for the queue" not in woke["text"]
    timeline = await call(client, "kg_timeline", {"entity": "shop"})
    assert len(timeline["facts"]) == 2


async def test_errors_carry_a_fix(client: Client) -> None:
    bad = await client.call_tool("kg_query", {"entity": "shop", "as_of": "yesterday-ish"})
    assert bad.is_error and "Fix:" in error_text(bad)
    missing = await client.call_tool("get", {"key": "nope"})
    assert missing.is_error and "Fix:" in error_text(missing)
    resume = await client.call_tool("smart_resume", {})
    assert resume.is_error and "sync" in error_text(resume)
    strict = await client.call_tool("kg_add", {"subject": "a", "predicate": "uses", "object": "b", "bogus": 1})
    assert strict.is_error
