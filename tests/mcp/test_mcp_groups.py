"""A small MCP surface by default: the core tools every session needs, the rest in groups a
person opts into (`kenning mcp --tools …`), and a tool list that stays small."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp_support import data, git_project

from kenning.config import Settings
from kenning.core.service import Core
from kenning.errors import Invalid
from kenning.install.agents import TOOLS
from kenning.mcp import groups
from kenning.mcp.server import build_server, registered_tools

pytestmark = pytest.mark.anyio
KENNING = Path(sys.executable).parent / "kenning"
CORE_TOOLS = {"recall", "remember", "get_memory", "list_memories", "propose_memory_change", "search_sessions"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def stdio(home: Path, project: Path, *args: str) -> StdioServerParameters:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home.parent), "KENNING_HOME": str(home),
           "CLAUDE_PROJECT_DIR": str(project)}  # fmt: skip
    return StdioServerParameters(command=str(KENNING), args=["mcp", *args], env=env)


async def test_kenning_mcp_offers_the_core_tools_by_default(tmp_path: Path, kenning_home: Path) -> None:
    project = git_project(tmp_path / "shop")
    async with Client(stdio(kenning_home, project)) as client:
        assert {t.name for t in (await client.list_tools()).tools} == CORE_TOOLS
    async with Client(stdio(kenning_home, project, "--tools", "core,work")) as client:
        assert {t.name for t in (await client.list_tools()).tools} == CORE_TOOLS | set(groups.GROUPS["work"])
        run = await client.call_tool("handoff", {"note": "The staging database is down until noon; do not migrate."})
        assert data(run)["note"] > 0
    async with Client(stdio(kenning_home, project, "--tools", "all")) as client:
        assert {t.name for t in (await client.list_tools()).tools} == set(registered_tools(Settings(home=kenning_home)))


def test_every_tool_is_in_exactly_one_group(tmp_path: Path) -> None:
    grouped = [tool for tools in groups.GROUPS.values() for tool in tools]
    assert len(grouped) == len(set(grouped))
    assert sorted(registered_tools(Settings(home=tmp_path))) == sorted(grouped)
    assert set(groups.GROUPS[groups.CORE]) == CORE_TOOLS and groups.DEFAULT == (groups.CORE,)


def test_a_wrong_group_is_refused_with_the_list(tmp_path: Path) -> None:
    with pytest.raises(Invalid) as err:
        groups.parse("core,memorys")
    assert "memorys" in err.value.message and "sessions" in (err.value.fix or "")
    assert groups.parse("work, core") == ("core", "work") and groups.parse("all") == tuple(groups.GROUPS)
    done = subprocess.run([str(KENNING), "mcp", "--tools", "everything"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "KENNING_HOME": str(tmp_path)}, stdin=subprocess.DEVNULL)  # fmt: skip
    assert done.returncode == 1 and "unknown tool group" in done.stderr and "fix:" in done.stderr


def test_install_writes_the_default_groups() -> None:
    installed = TOOLS
    assert installed == ("--tools", ",".join(groups.DEFAULT))


async def test_the_default_tool_list_stays_small_and_keeps_its_meaning(settings: Settings, core: Core,
                                                                        tmp_path: Path) -> None:  # fmt: skip
    project = git_project(tmp_path / "shop")
    async with Client(build_server(settings, core=core, default_cwd=str(project))) as client:
        listed = await client.list_tools()
        size = len(listed.model_dump_json(by_alias=True, exclude_none=True).encode())
        assert size < 12 * 1024, size  # bench/mcp_tools_size.py has the table
        for tool in listed.tools:
            schema = tool.input_schema
            assert "title" not in schema and all("title" not in p for p in schema["properties"].values()), tool.name
            assert tool.description and not tool.description.startswith(" ") and "\n    " not in tool.description
        remember = next(t for t in listed.tools if t.name == "remember").input_schema
        assert remember["required"] == ["text"] and remember["properties"]["cwd"]["type"] == "string"
        assert "Dotted slot key" in remember["properties"]["subject"]["description"]
        # An optional argument sent as null is still accepted, and an unknown one refused.
        assert not (await client.call_tool("recall", {"query": "anything", "cwd": None})).is_error
        assert (await client.call_tool("recall", {"query": "anything", "colour": "red"})).is_error
