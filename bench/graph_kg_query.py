"""kg_query latency at 100k facts, beside a naive baseline in the same run.

Builds a real SQLite store with 100,000 facts (2,000 projects, ~50 facts each: uses, chose,
decided with areas, people, statuses with closed windows), then times, over random entities:

- ``facts.query`` by project (out), by a popular technology (in), with ``as_of``, and a timeline;
- the naive baseline: the same questions on an unindexed copy of the table with one
  ``subject = ? OR object = ?`` query (what a first implementation does);
- ``facts.add`` on the full store (an insert that checks for duplicates and closes a slot).

Run: .venv/bin/python bench/graph_kg_query.py [--quick]
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
from kenning.store.protocol import FactRow
from kenning.store.sqlite.graph_store import SqliteGraphStore
from kenning.store.sqlite.schema import open_database

sys.path.insert(0, str(Path(__file__).parent))
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="10k facts, fewer runs (CI size)")
    args = parser.parse_args()
    total, runs = (10_000, 30) if args.quick else (100_000, 200)
    rng = random.Random(11)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "graph.db"
        t0 = time.perf_counter()
        projects, techs = build(path, total)
        build_s = time.perf_counter() - t0
        db = open_database(path)
        graph = SqliteGraphStore(db)
        as_of = "2025-06-01T00:00:00.000000Z"
        popular = "postgres"

        def naive(entity: str, moment: str = "") -> object:
            sql = ("SELECT * FROM naive_facts WHERE workspace = ? AND (subject = ? OR object = ?)"
                   + (" AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)" if moment else "")
                   + " ORDER BY valid_from DESC LIMIT 200")
            return db.query(sql, [WS, entity, entity] + ([moment, moment] if moment else []))

        rows = [
            ("project facts (out)", lambda: facts.query(graph, WS, rng.choice(projects), direction="out"),
             lambda: naive(rng.choice(projects))),
            ("project facts as_of", lambda: facts.query(graph, WS, rng.choice(projects), as_of=as_of, direction="out"),
             lambda: naive(rng.choice(projects), as_of)),
            ("technology, both directions (200 newest)", lambda: facts.query(graph, WS, popular),
             lambda: naive(popular)),
            ("random technology as_of", lambda: facts.query(graph, WS, rng.choice(techs), as_of=as_of),
             lambda: naive(rng.choice(techs), as_of)),
            ("timeline of a project", lambda: facts.timeline(graph, WS, rng.choice(projects)),
             lambda: naive(rng.choice(projects))),
        ]
        results = []
        for label, ours, base in rows:
            o50, o95 = timed(ours, runs)
            b50, b95 = timed(base, max(10, runs // 4))
            results.append(f"| {label} | {o50:.2f} | {o95:.2f} | {b50:.2f} | {b95:.2f} | {b50 / o50:.0f}x |")
        clock = FixedClock(datetime(2026, 1, 1, tzinfo=UTC))
        adds = []
        for i in range(runs):
            p = rng.choice(projects)
            t1 = time.perf_counter()
            facts.add(graph, clock, WS, p, "decided", f"bench decision {i}", project=p, object_kind="text", area="db")
            adds.append((time.perf_counter() - t1) * 1000)
            clock.advance(seconds=1)
        adds.sort()
        count = graph.count(WS)
        db.close()
    section = "\n".join([
        "## kg_query latency",
        "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, `{platform.machine()}`, {os.cpu_count()} CPUs, "
        f"{count:,} facts ({'quick' if args.quick else 'full'} run; store built in {build_s:.1f} s). "
        f"Milliseconds; ours = `kenning.graph.facts.query` (two indexed queries, subject side and object "
        f"side), baseline = one `subject = ? OR object = ?` query on an unindexed copy.",
        "",
        "| query | ours p50 | ours p95 | baseline p50 | baseline p95 | speed-up (p50) |",
        "|---|---|---|---|---|---|",
        *results,
        "",
        f"`facts.add` of a decision with an area (duplicate check + closing the slot) on the full store: "
        f"p50 {statistics.median(adds):.2f} ms, p95 {adds[int(len(adds) * 0.95) - 1]:.2f} ms.",
        "",
        "Run: `.venv/bin/python bench/graph_kg_query.py` (`--quick` for 10k facts)",
    ])
    update(section, "kg_query latency")
    print(section)


if __name__ == "__main__":
    main()
