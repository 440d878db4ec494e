"""Every tool the server lists, called through the official client against a real
`kenning mcp` subprocess over stdio; and memory_health finding and repairing a gone citation."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp_support import data, git_project

pytestmark = pytest.mark.anyio

KENNING = Path(sys.executable).parent / "kenning"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def server(home: Path, project: Path) -> StdioServerParameters:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home.parent), "KENNING_HOME": str(home),
           "CLAUDE_PROJECT_DIR": str(project)}  # fmt: skip
    return StdioServerParameters(command=str(KENNING), args=["mcp", "--tools", "all"], env=env)


async def test_every_listed_tool_answers_over_stdio(tmp_path: Path, kenning_home: Path) -> None:
    project = git_project(tmp_path / "shop")
    async with Client(server(kenning_home, project)) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        ref = data(await client.call_tool("remember", {"text": "Invoices are rendered by the pdf worker"}))["memory"]["ref"]
        calls: dict[str, dict[str, Any]] = {
            "remember": {"text": "The pdf worker runs on the batch queue"},
            "recall": {"query": "pdf worker invoices"},
            "recall_workspaces": {"query": "pdf worker invoices", "workspaces": ["local"]},
            "get_memory": {"refs": [ref]},
            "list_memories": {},
            "record_decision": {"title": "Render invoices asynchronously", "reasoning": "requests must stay fast"},
            "propose_memory_change": {"type": "retire", "refs": [ref], "why": "worker renamed"},
            "set_goal": {"goal": "Move invoice rendering to the batch queue"},
            "log_progress": {"summary": "Queue consumer written", "open_items": ["Retry policy for failed renders"]},
            "handoff": {"note": "The batch queue needs the new REDIS_URL setting before deploy"},
            "search_sessions": {"query": "pdf worker", "all_projects": True},
            "kg_add": {"subject": "shop", "predicate": "uses", "object": "Redis"},
            "kg_query": {"entity": "shop"},
            "kg_timeline": {"entity": "shop"},
            "decision_record": {"decision": "Use Redis for the batch queue", "reasoning": "we already run it", "area": "queue"},
            "diary_write": {"text": "Moved invoice rendering off the request path."},
            "diary_read": {},
            "set": {"key": "deploy.target", "value": "fly.io"},
            "get": {"key": "deploy.target"},
            "wake_up": {},
            "memory_health": {},
            "memory_report": {},
            "memory_index": {"for": "automation"},
            "place_memory": {"ref": ref, "decision": "no-agent-runs"},
        }
        # Tools that need something made first (a task, a captured session) answer with an
        # error result that says how to fix the call; that is their correct answer here.
        errors_expected = {"get_agent_run": {"task": 1}, "show_session": {"session": "s-none"},
                           "session_context": {"session": "s-none", "chunk": 1}, "smart_resume": {}}  # fmt: skip
        assert listed == set(calls) | set(errors_expected), "a listed tool has no call in this test"
        for name, args in calls.items():
            result = await client.call_tool(name, args)
            assert not result.is_error, (name, result.content)
            assert result.structured_content is not None, name
        for name, args in errors_expected.items():
            result = await client.call_tool(name, args)
            assert result.is_error and result.content, name
        value = data(await client.call_tool("get", {"key": "deploy.target"}))
        assert "fly.io" in str(value)


async def test_memory_health_reports_then_repairs_a_gone_citation(tmp_path: Path, kenning_home: Path) -> None:
    project = git_project(tmp_path / "shop")
    cited = project / "billing.py"
    cited.write_text("def total():\n    return 1\n")
    async with Client(server(kenning_home, project)) as client:
        made = data(await client.call_tool("remember", {"text": "Totals are computed in billing", "source_ref": "billing.py"}))
        ref = made["memory"]["ref"]
        cited.unlink()
        report = data(await client.call_tool("memory_health", {}))
        assert [d["ref"] for d in report["dropped_citations"]] == [ref] and not report["applied"]
        assert "Totals" not in str(report)  # refs only: no memory's words leave through the report
        fixed = data(await client.call_tool("memory_health", {"repair": True}))
        assert fixed["applied"]
        got = data(await client.call_tool("get_memory", {"refs": [ref]}))
        assert got["memories"][0]["source_ref"] in (None, "")
