"""Size of kenning's MCP `tools/list` answer: what a client that loads every tool puts into
every session's context, for the default tool set and each opt-in group.

Measured through the official client against the real server (in-process): the bytes of the
`tools/list` result as JSON (compact, as on the wire), and a token estimate (bytes / 4). Target:
the default set under 12 KB. Sizes are deterministic, so there is no timing and no noise.

Run: .venv/bin/python bench/mcp_tools_size.py
"""

from __future__ import annotations

import argparse
import platform
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import anyio
from mcp import Client

from kenning.config import Settings
from kenning.mcp.groups import CORE, DEFAULT, GROUPS
from kenning.mcp.server import build_server

RESULTS = Path(__file__).parent / "results" / "mcp_tools.md"
TARGET = 12 * 1024


async def listed_bytes(settings: Settings, groups: tuple[str, ...]) -> tuple[int, int]:
    """(bytes of the tools/list result, number of tools)."""
    async with Client(build_server(settings, tools=groups)) as client:
        result = await client.list_tools()
    body = result.model_dump_json(by_alias=True, exclude_none=True)
    return len(body.encode()), len(result.tools)


async def measure() -> list[tuple[str, int, int]]:
    with tempfile.TemporaryDirectory(prefix="kenning-bench-tools-") as home:
        settings = Settings(home=Path(home))
        rows = [("default (`kenning mcp`): " + ", ".join(DEFAULT), *await listed_bytes(settings, DEFAULT))]
        rows += [(f"core + {name}", *await listed_bytes(settings, (CORE, name))) for name in GROUPS if name != CORE]
        rows.append(("all (`--tools all`)", *await listed_bytes(settings, tuple(GROUPS))))
    return rows


def table(rows: list[tuple[str, int, int]]) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "## MCP tools/list size",
        "",
        f"Run {when} on {platform.machine()}, Python {platform.python_version()} "
        "(`.venv/bin/python bench/mcp_tools_size.py`): the `tools/list` result as compact JSON, through the "
        "official client. Tokens are estimated as bytes / 4. Before the tool groups (kenning 0.1, main at "
        "b405fc8) every session got all 24 tools: 37,837 bytes (~9.5k tokens), measured the same way.",
        "",
        "| tools offered | tools | bytes | ~tokens |",
        "| --- | ---: | ---: | ---: |",
    ]
    lines += [f"| {name} | {count} | {size:,} | {size // 4:,} |" for name, size, count in rows]
    default = rows[0][1]
    verdict = "met" if default < TARGET else "NOT met"
    lines += ["", f"Target: the default set under {TARGET // 1024} KB: {verdict} ({default:,} bytes)."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the same run (sizes take no time)")
    parser.parse_args()
    text = table(anyio.run(measure))
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("# MCP tool-list benchmarks\n\n" + text)


if __name__ == "__main__":
    main()
