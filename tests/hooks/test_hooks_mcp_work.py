"""The work tools through the official MCP client: set_goal, log_progress, handoff, get_agent_run;
what they write is what the hooks then show."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hookrun_helper import claude, run_hook
from mcp import Client
from mcp.types import Implementation

from kenning.config import Settings
from kenning.core import work
from kenning.core.service import Core
from kenning.mcp.groups import GROUPS
from kenning.mcp.server import build_server

ALL_GROUPS = tuple(GROUPS)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client(settings: Settings, core: Core, repo: Path) -> AsyncIterator[Client]:
    server = build_server(settings, core=core, default_cwd=str(repo), tools=ALL_GROUPS)
    async with Client(server, client_info=Implementation(name="codex", version="0.169")) as c:
        yield c


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert not result.is_error, result.content[0].text if result.content else result
    assert result.structured_content is not None
    return result.structured_content


async def test_goal_progress_and_handoff_reach_the_hooks(client: Client, repo: Path) -> None:
    assert (await call(client, "set_goal", {"goal": "Make checkout work offline."}))["branch"] == "main"
    out = await call(client, "log_progress", {"summary": "Cart state now persists locally.",
                                              "open_items": ["Sync conflicts on reconnect"], "goal": "ignored on main"})  # fmt: skip
    assert out["goal_set"] is False and "trunk" in out["note"] and len(out["open_items_added"]) == 1
    note = await call(client, "handoff", {"note": "Do not bump the service worker cache key; QA pinned it."})
    assert note["to"] == "all"
    brief = run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", "mcp-1")).context
    assert "Goal: «Make checkout work offline.»" in brief and "«Sync conflicts on reconnect»" in brief  # an agent's: quoted
    first = run_hook("claude-code", "UserPromptSubmit", claude(repo, "UserPromptSubmit", "mcp-1")).context
    assert "A note left for you by codex: «Do not bump the service worker cache key" in first


async def test_narration_is_refused_with_a_fix(client: Client) -> None:
    result = await client.call_tool("handoff", {"note": "I'm editing the cart module right now."})
    assert result.is_error and "Fix:" in result.content[0].text


async def test_get_agent_run_returns_the_card(client: Client, core: Core, repo: Path) -> None:
    task = work.add_task(core, core.place(repo), "Fix the offline cart", "Carts vanish after a reload.")
    card = await call(client, "get_agent_run", {"task": task})
    assert card["card"].startswith(f"kenning task #{task}: Fix the offline cart")
    missing = await client.call_tool("get_agent_run", {"task": 999})
    assert missing.is_error
