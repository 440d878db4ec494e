"""The wake-up bundle: identity, newest decisions, top chunks (2 per session), facts; ids on
every line; under 2,000 characters; exact project match."""

from __future__ import annotations

import json
import re
import subprocess
import uuid
from pathlib import Path

from graph_sessions import Shop

from kenning.context import wakeup
from kenning.core import notes
from kenning.graph import facts

DECISIONS = [
    "We decided to use Postgres for the {n} ledger because it has transactions.",
    "We'll use Redis for the {n} cache because reads dominate.",
    "We decided to keep `orders_{n}` in one table because joins were slow.",
]


def _session(home: Path, cwd: Path, n: int, day: int) -> str:
    sid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"wake{n}"))
    folder = home / ".claude" / "projects" / str(cwd).replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for i, text in enumerate(DECISIONS):
        lines.append({"type": "user", "uuid": f"{sid[:8]}-{i}", "sessionId": sid, "cwd": str(cwd),
                      "gitBranch": "main", "timestamp": f"2026-02-{day:02d}T10:0{i}:00.000Z",
                      "message": {"role": "user", "content": text.format(n=f"s{n}")}})
    (folder / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return f"claude:{sid}"


def _other_repo_named_shop(tmp: Path) -> Path:
    other = tmp / "elsewhere" / "shop"
    other.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=other, check=True)
    subprocess.run(["git", "remote", "add", "origin", "git@github.com:someone/shop.git"], cwd=other, check=True)
    return other


def test_bundle_order_limit_and_ids(shop: Shop, tmp_path: Path) -> None:
    for n in range(1, 9):
        _session(shop.home, shop.root, n, day=n)
    other = _other_repo_named_shop(tmp_path)
    _session(shop.home, other, 99, day=27)  # same folder name, another project: must not show
    shop.sync()
    db = shop.core.stores.db
    place = shop.core.place(shop.root)
    other_place = shop.core.place(other)
    assert other_place.project != place.project
    # many old facts, then the newest decisions
    for i in range(300):
        facts.add(shop.core.stores.graph, shop.clock, "local", place.project, "uses", f"lib{i}", project=place.project,
                  valid_from=f"2025-06-01T00:{i // 60:02d}:{i % 60:02d}Z", confidence=0.9)
    facts.add(shop.core.stores.graph, shop.clock, "local", other_place.project, "uses", "Kafka", project=other_place.project)
    notes.decision_record(shop.core, place, "Use Celery for exports", area="jobs", reason="exports take minutes")
    shop.clock.advance(hours=1)
    notes.decision_record(shop.core, place, "Use Dramatiq for exports", area="jobs", reason="simpler retries")
    shop.settings.identity_file.parent.mkdir(parents=True, exist_ok=True)
    shop.settings.identity_file.write_text("\nI am Ada's coding agent for the shop team.\n")

    text = wakeup.bundle(shop.core, place)
    assert len(text) < 2000
    lines = text.splitlines()
    assert lines[1] == "Identity: I am Ada's coding agent for the shop team."
    items = [x for x in lines if x.startswith("- ")]
    assert items and all(re.match(r"- \[(c|f):\d+\] ", x) for x in items)
    # the newest decision is in; the one it closed (same area) is not; no other project's lines
    assert "Use Dramatiq for exports" in text and "Use Celery for exports" not in text
    assert "kafka" not in text.lower() and "s99" not in text
    # chunks: at most 2 per session, newest first
    chunk_ids = [int(m) for m in re.findall(r"\[c:(\d+)\]", text)]
    assert chunk_ids
    rows = {r["id"]: r for r in db.query("SELECT id, session, at FROM capture_chunks")}
    sessions = [rows[c]["session"] for c in chunk_ids]
    assert max(sessions.count(s) for s in sessions) <= 2
    ats = [rows[c]["at"] for c in chunk_ids]
    assert ats == sorted(ats, reverse=True)
    assert "s8" in text  # the newest session is shown
    # every fact line names a fact that is current
    for fid in re.findall(r"\[f:(\d+)\]", text):
        fact = shop.core.stores.graph.get("local", int(fid))
        assert fact is not None and fact.current


def test_facts_newest_first_and_trimmed_from_the_oldest(shop: Shop) -> None:
    place = shop.core.place(shop.root)
    for i in range(40):
        facts.add(shop.core.stores.graph, shop.clock, "local", place.project, "depends_on", f"service-number-{i:02d}-with-a-long-name",
                  project=place.project, valid_from=f"2026-01-{i % 28 + 1:02d}T{i // 28:02d}:00:00Z")
    bundle = wakeup.build(shop.core.stores, shop.settings, place)
    shown = [int(m) for m in re.findall(r"service-number-(\d+)", "\n".join(bundle.facts))]
    assert shown == sorted(shown, key=lambda i: (i % 28 + 1, i // 28), reverse=True)
    assert len(bundle.render()) < 2000
    assert len(shown) == wakeup.MAX_FACTS or len(bundle.render()) > 1800


def test_empty_project_bundle_is_just_the_header(shop: Shop) -> None:
    text = wakeup.bundle(shop.core, shop.core.place(shop.root))
    assert text.startswith("kenning wake-up for shop")
    assert len(text.splitlines()) == 1
