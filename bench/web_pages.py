"""Web app page latency at 10,000 memories: every page served by uvicorn on loopback (its own
process, as `kenning ui` runs it), fetched with an httpx client.

The store holds the realistic corpus of bench/recall_latency.py (five projects plus global
memories), with reviews waiting, hook sessions, rules and decision docs, so each page has real
work; the shop project has a checkout folder holding all but one of the files its memories
cite, so Health judges citations on disk. Health keeps its report until a memory, a scope or a
file it looked at changes: the row "/health after a change" writes to the store (from this
process, as a hook would) before each request, so it pays for the whole look every time. Per page: wall-clock p50/p95 of the request, and the server process's CPU time per
request (read from /proc, so other jobs on the machine do not inflate it). The baseline in the
same run is the app's static stylesheet through the same stack (framework, guards, cookie):
the column "× static" is what the page costs beyond serving a file.

Run: .venv/bin/python bench/web_pages.py [--quick] [--size 10000]
Writes bench/results/web.md. Target: every page p95 <= 200 ms at 10k memories.
"""

from __future__ import annotations

import argparse
import os
import platform
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import httpx

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core import rules, work
from kenning.core.remember import RememberRequest
from kenning.core.service import Core
from kenning.model import Kind, Origin
from kenning.store.protocol import ScopeRow
from recall_latency import NOW, PROJECTS, make_memories  # the same realistic corpus as bench/core

RESULTS = Path(__file__).parent / "results" / "web.md"
PROJECT = "github.com/acme/shop"
TARGET_MS = 200.0
HZ = os.sysconf("SC_CLK_TCK")


def seed_workspace(core: Core, home: Path, size: int) -> str:
    """The memory side of the store (not measured), through kenning's own core: the corpus, the
    shop project's checkout, 20 decision docs and 20 proposals waiting. Returns a ref to open the
    card of. bench/web_server_pages.py seeds the server's workspace and its local twin with it."""
    memories = make_memories(size)
    with core.store.transaction():
        for memory in memories:
            core.store.insert(memory)
    place = core.place(project=PROJECT)
    checkout = home / "checkout"
    for path in PROJECTS[PROJECT]["files"][1:]:  # the first one is gone: its citations are dropped
        (checkout / path).parent.mkdir(parents=True, exist_ok=True)
        (checkout / path).write_text("export const total = 1;\n", encoding="utf-8")
    core.store.upsert_scope(ScopeRow(core.workspace, PROJECT, "project", "shop", str(checkout), "", NOW))
    for i in range(20):
        core.record_decision(place, RememberRequest(
            text=f"We keep service {i} behind the gateway", kind=Kind.DECISION, reason="one place for auth",
            origin=Origin.PERSON, source="cli", title=f"Gateway {i}"))  # fmt: skip
    mine = [m.ref for m in memories if m.scope == PROJECT][:60]
    for i in range(0, 40, 2):
        core.propose(place, "merge", mine[i : i + 2], text=f"Merged claim number {i} about the checkout")
    return mine[-1]


def seed(home: Path, size: int) -> str:
    """The store (not measured): :func:`seed_workspace`, with hook sessions and rules beside it."""
    core = Core.open(Settings(home=home), FixedClock(NOW))
    try:
        ref = seed_workspace(core, home, size)
        place = core.place(project=PROJECT)
        for i in range(200):
            work.ensure_session(core, place, ("claude-code", "codex", "gemini")[i % 3], f"s{i}", "", forced=i % 4 == 0)
        rules.add_ready(core, "unused", n=60, project=PROJECT)
        rules.add_ready(core, "proven", n=2)
        rules.add_sentence(core, "Never store customer names in memory.")
        return ref
    finally:
        core.close()


def serve(home: str, port: int, token: str) -> None:
    """The server process: the app as `kenning ui` builds it, with a known token."""
    import uvicorn

    from kenning.web.app import create_app, shared_core
    from kenning.web.auth import LocalTokenAuth

    core = Core.open(Settings(home=Path(home)), FixedClock(NOW + timedelta(days=1)))
    app = create_app(shared_core(core), LocalTokenAuth(token))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False, lifespan="off")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_up(client: httpx.Client, path: str, timeout: float = 60.0) -> None:
    """Ask for ``path`` until the server process answers at all."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            client.get(path)
            return
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ  # utime + stime


@dataclass
class Row:
    page: str
    p50: float
    p95: float
    cpu_ms: float
    ratio: float = 0.0


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def measure(client: httpx.Client, pid: int, path: str, n: int, before: Callable[[], None] | None = None,
            label: str = "") -> Row:  # fmt: skip
    for _ in range(3):  # warm
        assert client.get(path).status_code == 200, path
    times = []
    cpu = 0.0
    for _ in range(n):
        if before is not None:
            before()
        cpu0 = cpu_seconds(pid)
        started = time.perf_counter()
        answer = client.get(path)
        times.append((time.perf_counter() - started) * 1000)
        assert answer.status_code == 200, (path, answer.status_code)
        cpu += cpu_seconds(pid) - cpu0
    return Row(label or path, statistics.median(times), pct(times, 0.95), cpu * 1000 / n)


def report(row: Row) -> None:
    print(f"{row.page:45} p50 {row.p50:7.1f} ms  p95 {row.p95:7.1f} ms  cpu {row.cpu_ms:6.1f} ms", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer requests per page")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--serve", nargs=3, metavar=("HOME", "PORT", "TOKEN"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve[0], int(args.serve[1]), args.serve[2])
        return 0
    n = 20 if args.quick else 60
    with tempfile.TemporaryDirectory(prefix="kenning-web-bench-") as tmp:
        home = Path(tmp)
        started = time.perf_counter()
        ref = seed(home, args.size)
        print(f"seeded {args.size} memories in {time.perf_counter() - started:.1f} s", flush=True)
        port = free_port()
        token = secrets.token_urlsafe(16)
        proc = subprocess.Popen([sys.executable, __file__, "--serve", str(home), str(port), token],
                                cwd=Path(__file__).parent)  # fmt: skip
        try:
            base = f"http://127.0.0.1:{port}"
            with httpx.Client(base_url=base, timeout=30) as client:
                wait_up(client, f"/?token={token}")
                paths = ["/static/app.css", "/memory", f"/memory?project={PROJECT}", "/memory?q=why+tax+rounding+order+total",
                         f"/memory/{ref}", "/review", f"/retire?project={PROJECT}", f"/map?project={PROJECT}",
                         "/decisions", f"/rules?project={PROJECT}", "/rules", "/health", "/sessions", "/report"]  # fmt: skip
                writer = Core.open(Settings(home=home), FixedClock(NOW))  # another process writing, as a hook does
                try:
                    rows = []
                    for path in paths:
                        rows.append(measure(client, proc.pid, path, n))
                        report(rows[-1])
                    rows.append(measure(client, proc.pid, "/health", n, lambda: writer.store.mark_recalled(writer.workspace, [ref]),
                                        "/health after a change"))  # fmt: skip
                    report(rows[-1])
                finally:
                    writer.close()
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    static = rows[0]
    for row in rows:
        row.ratio = row.p95 / static.p95 if static.p95 else 0.0
    worst = max(rows[1:], key=lambda r: r.p95)
    load = os.getloadavg()[0]
    command = f".venv/bin/python bench/web_pages.py{' --quick' if args.quick else ''}"
    lines = [
        "# Web app page latency",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}; {args.size:,} memories over five projects and global (the "
        f"bench/recall_latency.py corpus), 20 proposals waiting, 200 hook sessions, 3 rules; uvicorn on loopback in "
        f"its own process, httpx client, {n} requests per page after 3 warm-ups (`{command}`); load average at the "
        f"end {load:.1f} (other jobs share the CPUs: server CPU per request is the steadier column).",
        "",
        "| page | p50 ms | p95 ms | server CPU ms/request | p95 × static |",
        "| --- | ---: | ---: | ---: | ---: |",
        *[f"| `{r.page}` | {r.p50:.1f} | {r.p95:.1f} | {r.cpu_ms:.1f} | {r.ratio:.1f} |" for r in rows],
        "",
        f"Target: every page p95 <= {TARGET_MS:.0f} ms at 10k memories: "
        f"{'met' if worst.p95 <= TARGET_MS else 'NOT met'} (slowest page `{worst.page}`, p95 {worst.p95:.1f} ms).",
        "",
        "`/health` keeps its report until the store's revision (moved by triggers on every memory and scope write, "
        "by any process) or the answer for a file it looked at changes: a repeat look costs one query and a `stat` "
        "per cited file. `/health after a change` writes to the store before each request, so it is the whole look "
        "(every active memory read as a few columns, the shop project's cited files checked on disk). `/rules` "
        "counts what each rule leaves out in SQL, for every project.",
    ]
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0 if worst.p95 <= TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
