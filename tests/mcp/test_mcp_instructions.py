"""The MCP server's standing instruction never points a session at `recall` where kenning's
hooks run (they do the pointing, and leave the holdout alone); `--point-at-recall`, which
`kenning install` passes for tools without hooks, adds the line."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from kenning.install.agents import AGENTS, POINT
from kenning.mcp.server import RECALL_LINE

pytestmark = pytest.mark.anyio

KENNING = Path(sys.executable).parent / "kenning"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _instructions(home: Path, *args: str) -> str:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home.parent), "KENNING_HOME": str(home)}
    async with Client(StdioServerParameters(command=str(KENNING), args=["mcp", *args], env=env)) as client:
        return str(client.instructions or "")


async def test_default_instruction_never_names_recall(kenning_home: Path) -> None:
    text = await _instructions(kenning_home)
    assert text.startswith("kenning is this project's memory")
    assert "recall" not in text
    assert "kind \"decision\"" in text  # the rest of the instruction is there


async def test_point_at_recall_adds_the_line(kenning_home: Path) -> None:
    text = await _instructions(kenning_home, POINT)
    assert RECALL_LINE in text and text.splitlines()[1] == RECALL_LINE


def test_install_points_only_tools_without_hooks() -> None:
    for agent in AGENTS:
        entry = agent.entry("/opt/kenning", {})
        args = entry.get("args") or entry.get("command")
        assert (POINT in args) == (not agent.hooks_file), agent.name
