"""memory_index and place_memory through the official MCP client, and what recall and the
index hand out recorded against the session whose hook logged the call (the real hook)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import Implementation
from mcp_support import data, error_text, git_project

from kenning.config import Settings
from kenning.core.remember import RememberRequest
from kenning.core.service import Core
from kenning.mcp.server import build_server
from kenning.model import Kind, Origin, Placing

pytestmark = pytest.mark.anyio
SESSION = "9e11c0de-0000-4000-8000-00000000000a"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return git_project(tmp_path / "shop")


@pytest.fixture
async def client(settings: Settings, core: Core, project: Path) -> AsyncIterator[Client]:
    server = build_server(settings, core=core, default_cwd=str(project), tools=("core", "index"))
    async with Client(server, client_info=Implementation(name="claude-code", version="2.1.0")) as c:
        yield c


def add(core: Core, project: Path, text: str, **kw: Any) -> str:
    result = core.remember(core.place(project), RememberRequest(text=text, origin=Origin.PERSON, **kw))
    assert result.memory is not None
    return result.memory.ref


def hook(tool_name: str, tool_input: dict[str, Any], project: Path, kenning_home: Path, now: str) -> None:
    """Claude Code's PreToolUse for one of kenning's MCP tools, through the real hook process."""
    payload = {"session_id": SESSION, "transcript_path": "/dev/null", "cwd": str(project), "permission_mode": "default",
               "hook_event_name": "PreToolUse", "tool_name": tool_name, "tool_input": tool_input,
               "tool_use_id": "toolu_01"}  # fmt: skip
    env = dict(os.environ, KENNING_HOME=str(kenning_home), KENNING_NOW=now, KENNING_HOLDOUT="off")
    done = subprocess.run([sys.executable, "-m", "kenning.hooks.main", "claude-code", "PreToolUse"],
                          input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=60, check=True)  # fmt: skip
    assert done.stdout == b""


def deliveries(kenning_home: Path) -> list[tuple[str, ...]]:
    with sqlite3.connect(kenning_home / "kenning.db") as conn:
        return conn.execute("SELECT session, channel, ref, tool FROM memory_deliveries ORDER BY id").fetchall()


async def test_memory_index_for_an_agent_and_an_automation(client: Client, core: Core, project: Path,
                                                          kenning_home: Path) -> None:  # fmt: skip
    decision = add(core, project, "We chose Postgres because of its JSON support.", kind=Kind.DECISION)
    fact = add(core, project, "The nightly export runs in the eu-west region.", kind=Kind.FACT)
    out = data(await client.call_tool("memory_index", {}))
    assert [x["ref"] for x in out["lines"]] == [decision] and out["lines"][0]["why"] == "newest"
    assert out["text"].startswith("Memory for shop") and decision in out["text"] and out["also"] == []
    auto = data(await client.call_tool("memory_index", {"for": "automation", "also": 5}))
    assert [x["ref"] for x in auto["also"]] == [fact] and auto["text"].startswith("@memory for shop")
    # No hook logged these calls: given, to no known session, by the client.
    assert deliveries(kenning_home) == [("", "index", decision, "claude-code"), ("", "index", decision, "claude-code"),
                                        ("", "index", fact, "claude-code")]  # fmt: skip
    bad = await client.call_tool("memory_index", {"for": "everyone"})
    assert bad.is_error


async def test_recall_and_index_are_tied_to_the_session_whose_hook_logged_them(
    client: Client, core: Core, project: Path, kenning_home: Path
) -> None:
    ref = add(core, project, "We pin TZ in the tests rather than change the CI image because it is shared.",
              kind=Kind.DECISION)  # fmt: skip
    now = "2026-03-02T08:59:58Z"  # the hook ran two seconds before the server answers
    hook("mcp__kenning__recall", {"query": "pin TZ in the tests"}, project, kenning_home, now)
    found = data(await client.call_tool("recall", {"query": "pin TZ in the tests"}))
    assert [r["ref"] for r in found["results"]] == [ref]
    hook("mcp__kenning__memory_index", {}, project, kenning_home, now)
    data(await client.call_tool("memory_index", {}))
    # Another query than the one logged: no session is claimed for it.
    data(await client.call_tool("recall", {"query": "why pin TZ in the tests at all"}))
    assert deliveries(kenning_home) == [(f"claude-code:{SESSION}", "recall", ref, "claude-code"),
                                        (f"claude-code:{SESSION}", "index", ref, "claude-code"),
                                        ("", "recall", ref, "claude-code")]  # fmt: skip
    log = (kenning_home / "hook-state" / "calls.log").read_text()
    assert "pin TZ" not in log and oct((kenning_home / "hook-state" / "calls.log").stat().st_mode & 0o777) == "0o600"


async def test_place_memory_lists_and_undoes(client: Client, core: Core, project: Path) -> None:
    ref = add(core, project, "Feature flags live in the flags service.", kind=Kind.FACT)
    placed = data(await client.call_tool("place_memory", {"ref": ref, "decision": "not-here"}))
    assert placed["words"].startswith("not relevant here") and placed["place"] == core.place(project).project
    assert core.recall(core.place(project), "feature flags service", record=False).hits == []
    data(await client.call_tool("place_memory", {"ref": ref, "decision": "no-agent-runs"}))
    got = data(await client.call_tool("get_memory", {"refs": [ref]}))
    # get_memory fetches by ref on purpose: a placement keeps a memory from being handed out, not from being read
    assert {p["decision"] for p in got["memories"][0]["placements"]} == {"not-here", "no-agent-runs"}
    undone = data(await client.call_tool("place_memory", {"ref": ref, "decision": "not-here", "undo": True}))
    assert undone["undone"] and [p["decision"] for p in undone["placements"]] == ["no-agent-runs"]
    assert [p.decision for p in core.placements(ref)] == [Placing.NO_AGENT_RUNS]
    again = await client.call_tool("place_memory", {"ref": ref, "decision": "not-here", "undo": True})
    assert "no 'not relevant here' placement" in error_text(again)
    assert "is not a memory ref" in error_text(await client.call_tool("place_memory", {"ref": "nope", "decision": "always"}))
