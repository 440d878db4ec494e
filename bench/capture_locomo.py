"""Session search on LoCoMo: each conversation is captured as sessions (through the real sync,
from Claude Code-shaped transcripts), each question searched, and the turns it returns checked
against the question's evidence turns. Beside it, in the same run, a plain SQLite FTS5 table of
the same turns ranked by bm25().

recall@k: share of a question's evidence turns among the first k results (one result is one
turn; a chunk holding several turns would count as that many). session@5: share of questions
with an evidence session among the sessions of the first 5 results. Categories 1-4.
Run: .venv/bin/python bench/capture_locomo.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sqlite3
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

from _shared_data import need
from capture_throughput import write_section
from kenning.capture.search import query_terms, search
from kenning.capture.sync import sync_all
from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.store.sqlite.schema import open_database

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "capture.md"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def _when(text: str) -> str:
    """'1:56 pm on 8 May, 2023' -> ISO."""
    try:
        return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC).strftime(
            "%Y-%m-%dT%H:%M:%S.000Z")
    except ValueError:
        return ""


def _turn_text(turn: dict[str, str]) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        text += f" [shares a photo: {turn['blip_caption']}]"
    return text


def load(quick: bool) -> list[tuple[str, dict[str, object]]]:
    files = sorted(need("bench/locomo", "the LoCoMo session-search benchmark").glob("*.json"))
    if quick:
        files = files[:2]
    return [(f.stem, json.loads(f.read_text())) for f in files]


def write_transcripts(home: Path, convs: list[tuple[str, dict[str, object]]]) -> dict[str, str]:
    """One Claude Code transcript per LoCoMo session; returns dia_id -> session id."""
    where: dict[str, str] = {}
    for name, data in convs:
        conv = data.get("conversation", data)
        assert isinstance(conv, dict)
        folder = home / ".claude" / "projects" / f"-locomo-{name}"
        folder.mkdir(parents=True, exist_ok=True)
        a = conv.get("speaker_a")
        for key, turns in conv.items():
            m = re.fullmatch(r"session_(\d+)", key)
            if not m or not isinstance(turns, list):
                continue
            sid = f"locomo-{name}-s{m.group(1)}"
            when = _when(str(conv.get(f"{key}_date_time", "")))
            lines = []
            for i, turn in enumerate(turns):
                role = "user" if turn["speaker"] == a else "assistant"
                content: object = _turn_text(turn)
                if role == "assistant":
                    content = [{"type": "text", "text": content}]
                lines.append(json.dumps({"type": role, "uuid": f"{name}:{turn['dia_id']}", "sessionId": sid,
                                         "cwd": f"/locomo/{name}",
                                         "timestamp": when[:-4] + f"{i % 1000:03d}Z" if when else "",
                                         "message": {"role": role, "content": content}}))
                where[f"{name}:{turn['dia_id']}"] = f"claude:{sid}"
            (folder / f"{sid}.jsonl").write_text("\n".join(lines) + "\n")
    return where


def plain_fts(convs: list[tuple[str, dict[str, object]]]) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(text, uid UNINDEXED, conv UNINDEXED)")
    for name, data in convs:
        conv = data.get("conversation", data)
        assert isinstance(conv, dict)
        for key, turns in conv.items():
            if re.fullmatch(r"session_\d+", key) and isinstance(turns, list):
                conn.executemany("INSERT INTO t VALUES (?, ?, ?)",
                                 [(_turn_text(t), f"{name}:{t['dia_id']}", name) for t in turns])
    return conn


def evaluate(quick: bool) -> str:
    convs = load(quick)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        where = write_transcripts(home, convs)
        settings = Settings(home=Path(tmp) / "kenning")
        db = open_database(settings.db_path)
        sync_all(db, settings, home, FixedClock(), import_memory_files=False)
        uid_of = {r["id"]: r["uid"] for r in db.query("SELECT id, uid FROM capture_turns")}
        plain = plain_fts(convs)
        stats: dict[str, dict[int, list[tuple[float, float, float]]]] = {"kenning": defaultdict(list),
                                                                          "plain": defaultdict(list)}
        started = time.perf_counter()
        questions = 0
        for name, data in convs:
            qa = data.get("qa", [])
            assert isinstance(qa, list)
            last = max((v for k, v in where.items() if k.startswith(name + ":")), default="")
            del last
            for q in qa:
                cat = int(q.get("category", 0))
                if cat not in CATEGORIES or not q.get("evidence"):
                    continue
                gold = {f"{name}:{e.strip()}" for e in q["evidence"] for e in e.split(";") if e.strip()}
                gold_sessions = {where.get(g, "") for g in gold}
                questions += 1
                try:
                    hits = search(db, q["question"], project=f"path:/locomo/{name}", limit=10)
                except Exception:
                    hits = []
                ours = [uid_of[h.turn] for h in hits]
                terms = query_terms(q["question"])
                rows = plain.execute(
                    "SELECT uid FROM t WHERE t MATCH ? AND conv = ? ORDER BY bm25(t) LIMIT 10",
                    (" OR ".join(f'"{w}"' for w in terms) or '""', name)).fetchall() if terms else []
                base = [r[0] for r in rows]
                for label, got in (("kenning", ours), ("plain", base)):
                    r5 = len(gold & set(got[:5])) / len(gold)
                    r10 = len(gold & set(got[:10])) / len(gold)
                    s5 = 1.0 if gold_sessions & {where.get(u, "") for u in got[:5]} else 0.0
                    stats[label][cat].append((r5, r10, s5))
        took = time.perf_counter() - started
        db.close()

    def row(label: str, cats: list[int]) -> tuple[float, float, float, int]:
        values = [v for c in cats for v in stats[label][c]]
        n = len(values) or 1
        return (sum(v[0] for v in values) / n, sum(v[1] for v in values) / n, sum(v[2] for v in values) / n,
                len(values))

    lines = [
        "## Session search on LoCoMo",
        "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()}, {os.cpu_count()} CPUs; "
        f"{len(convs)} conversations, {questions} questions (categories 1-4), "
        f"{questions / took:.0f} questions/s for both systems; "
        "`.venv/bin/python bench/capture_locomo.py" + (" --quick`" if quick else "`"),
        "",
        "| system | category | questions | recall@5 | recall@10 | session@5 |",
        "|---|---|---|---|---|---|",
    ]
    for label, title in (("plain", "plain FTS5 bm25()"), ("kenning", "kenning search")):
        for cat, cname in CATEGORIES.items():
            r5, r10, s5, n = row(label, [cat])
            lines.append(f"| {title} | {cat} {cname} | {n} | {r5:.1%} | {r10:.1%} | {s5:.1%} |")
        r5, r10, s5, n = row(label, list(CATEGORIES))
        lines.append(f"| **{title}** | **1-4** | {n} | **{r5:.1%}** | **{r10:.1%}** | **{s5:.1%}** |")
    lines += ["", "Target: recall@10 of at least 70% over categories 1-4, with no model.", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="two conversations instead of five")
    args = parser.parse_args()
    text = evaluate(args.quick)
    print(text)
    write_section(RESULTS, "## Session search on LoCoMo", text)


if __name__ == "__main__":
    main()
