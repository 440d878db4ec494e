"""MCP tool-call latency at 10,000 memories: recall and remember through the official client,
in-process (``Client(server)``), beside the same calls made straight on the core.

The difference between the two columns is what the MCP layer costs (JSON-RPC over memory
streams, argument validation, result models, the worker-thread hop). Target: p95 < 30 ms.

Run: .venv/bin/python bench/mcp_latency.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import anyio
from mcp import Client

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.remember import RememberRequest
from kenning.core.scopes import Place
from kenning.core.service import Core
from kenning.domain.write_rules import check_shape, infer_kind
from kenning.errors import KenningError
from kenning.mcp.server import build_server
from kenning.model import Kind
from recall_latency import NOW, make_memories, make_queries  # the same realistic corpus as bench/core

RESULTS = Path(__file__).parent / "results" / "mcp.md"
PROJECT = "github.com/acme/shop"



def seed(core: Core, count: int) -> None:
    """Bulk-load the realistic corpus of bench/recall_latency.py (five projects plus global
    memories, decisions with reasons, lessons, states) straight into the store (not measured)."""
    with core.store.transaction():
        for memory in make_memories(count):
            core.store.insert(memory)


def fresh_sentences(n: int) -> list[tuple[str, str]]:
    """New (text, reason) pairs for remember, from the same generator with other draws (this
    project only), keeping those the write rules accept so every timed call is a real write."""
    out = []
    for m in make_memories(n * 12, seed=99):
        reason = m.reason or "the team agreed on it in review"
        if m.scope != PROJECT or m.kind is Kind.STATE:
            continue
        try:
            check_shape(m.text, kind=infer_kind(m.text, None, ""), reason=reason, by_person=False)
        except KenningError:
            continue
        out.append((m.text, reason))
    assert len(out) >= n, f"only {len(out)} usable sentences"
    return out[:n]


def pct(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def summary(samples: list[float]) -> tuple[float, float, float]:
    return statistics.median(samples), pct(samples, 95), max(samples)


async def paired(direct: Callable[[int], object], through: Callable[[int], Awaitable[object]],
                 n: int) -> tuple[list[float], list[float]]:
    """Alternate the two calls so both see the same store (it grows as remember writes)."""
    a, b = [], []
    for i in range(n):
        t = time.perf_counter()
        direct(i)
        a.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        await through(i)
        b.append((time.perf_counter() - t) * 1000)
    return a, b


async def run(memories: int, calls: int) -> list[tuple[str, tuple[float, float, float]]]:
    home = Path(tempfile.mkdtemp(prefix="kenning-bench-mcp-"))
    settings = Settings(home=home)
    clock = FixedClock(NOW)
    core = Core.open(settings, clock)
    seed(core, memories)
    queries = make_queries(50)
    texts = fresh_sentences(2 * calls)
    repo = home / "shop"
    repo.mkdir()
    for git_args in (["init", "-q"], ["remote", "add", "origin", f"https://{PROJECT}.git"]):
        subprocess.run(["git", *git_args], cwd=repo, check=True, capture_output=True)
    place: Place = core.place(repo)
    assert place.project == PROJECT
    server = build_server(settings, core=core, default_cwd=str(repo))
    rows: list[tuple[str, tuple[float, float, float]]] = []

    def core_recall(i: int) -> object:
        return core.recall(place, queries[i % len(queries)])

    def core_remember(i: int) -> object:
        return core.remember(place, RememberRequest(text=texts[2 * i][0], reason=texts[2 * i][1], source="bench"))

    async with Client(server) as client:
        async def mcp_recall(i: int) -> object:
            result = await client.call_tool("recall", {"query": queries[i % len(queries)]})
            assert not result.is_error, result.content
            return result

        async def mcp_remember(i: int) -> object:
            result = await client.call_tool("remember", {"text": texts[2 * i + 1][0], "reason": texts[2 * i + 1][1], "source": "bench"})
            assert not result.is_error, result.content
            return result

        for _ in range(20):  # warm caches and the worker thread
            await mcp_recall(0)
            core_recall(0)
        direct, through = await paired(core_recall, mcp_recall, calls)
        rows += [("recall, direct core call", summary(direct)), ("recall, MCP in-process client", summary(through))]
        direct, through = await paired(core_remember, mcp_remember, calls)
        rows += [("remember, direct core call", summary(direct)), ("remember, MCP in-process client", summary(through))]
    core.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="1,000 memories and 50 calls (CI size)")
    args = parser.parse_args()
    memories, calls = (1_000, 50) if args.quick else (10_000, 300)
    started = time.perf_counter()
    load = os.getloadavg()[0]
    rows = anyio.run(run, memories, calls)
    lines = [
        "# MCP tool-call latency",
        "",
        f"Run {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')} on {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}; {memories:,} memories over five projects and global (the bench/recall_latency.py corpus), {calls} calls each "
        f"(`.venv/bin/python bench/mcp_latency.py{' --quick' if args.quick else ''}`); load average at start "
        f"{load:.1f} (other processes share the CPUs: compare the two columns, measured alternately).",
        "",
        "| call | p50 ms | p95 ms | max ms |",
        "| --- | ---: | ---: | ---: |",
        *[f"| {name} | {p50:.2f} | {p95:.2f} | {mx:.2f} |" for name, (p50, p95, mx) in rows],
        "",
    ]
    mcp_p95 = max(p95 for name, (_, p95, _) in rows if "MCP" in name)
    lines.append(f"Target p95 < 30 ms through the client: {'met' if mcp_p95 < 30 else 'MISSED'} "
                 f"(worst MCP p95 {mcp_p95:.2f} ms). Total run {time.perf_counter() - started:.0f} s.")  # fmt: skip
    lines.append("")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
