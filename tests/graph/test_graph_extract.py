"""Extraction during sync, on the fixture transcripts, with known expected facts."""

from __future__ import annotations

import json

from graph_sessions import CLAUDE_SESSION, CODEX_SESSION, Shop

from kenning.graph import extract, facts
from kenning.store.protocol import FactRow

EXPECTED_CLAUDE = {("uses", "celery"), ("chose", "celery"), ("uses", "redis"), ("works_on", "dana")}
EXPECTED_CODEX = {("uses", "sqlite"), ("chose", "sqlite"), ("rejected", "elasticsearch")}


def _current(shop: Shop) -> set[tuple[str, str, str]]:
    rows = shop.core.stores.db.query("SELECT subject, predicate, object FROM graph_facts WHERE valid_to IS NULL")
    return {(r["subject"], r["predicate"], r["object"]) for r in rows}


def _of_session(shop: Shop, session: str) -> list[FactRow]:
    rows = shop.core.stores.db.query("SELECT id FROM graph_facts WHERE session = ? ORDER BY id", (session,))
    found = [shop.core.stores.graph.get("local", r["id"]) for r in rows]
    return [f for f in found if f is not None]


def test_sync_extracts_the_expected_facts_and_nothing_else(shop: Shop) -> None:
    shop.sync()  # extraction runs as part of sync
    place = shop.core.place(shop.root)
    added = _of_session(shop, f"claude:{CLAUDE_SESSION}")
    got = {(f.predicate, f.object if f.predicate != "works_on" else f.subject) for f in added}
    assert got == EXPECTED_CLAUDE
    assert all(f.project == place.project for f in added)
    codex = _of_session(shop, f"codex:{CODEX_SESSION}")
    assert {(f.predicate, f.object) for f in codex} == EXPECTED_CODEX
    # elasticsearch was turned down, so it is not "used"
    assert (place.project, "uses", "elasticsearch") not in _current(shop)
    # facts start when the session said them, not when sync ran
    celery = facts.query(shop.core.stores.graph, "local", "celery", predicate="uses", direction="in")[0]
    assert celery.valid_from.startswith("2026-03-02T10:")


def test_resync_of_the_same_session_adds_nothing(shop: Shop) -> None:
    shop.sync()
    db = shop.core.stores.db
    count = db.one("SELECT count(*) AS n FROM graph_facts")
    assert count is not None and count["n"] > 0
    shop.clock.advance(days=2)
    assert shop.sync() == 0
    assert extract.extract_pending(shop.core.stores, "local", shop.clock) == 0
    # the transcript grows with a turn naming what is already known: still nothing new
    path = next((shop.home / ".claude" / "projects").glob(f"*/{CLAUDE_SESSION}.jsonl"))
    line = json.loads(path.read_text().splitlines()[-1])
    line.update(uuid="0f0e0d0c-aaaa-4bbb-8ccc-000000000001", timestamp="2026-03-02T11:30:00.000Z",
                message={"role": "user", "content": "Keep Celery with Redis as the broker for now."})
    with path.open("a") as fh:
        fh.write(json.dumps(line) + "\n")
    assert shop.sync() == 1
    assert extract.extract_pending(shop.core.stores, "local", shop.clock) == 0
    assert db.one("SELECT count(*) AS n FROM graph_facts")["n"] == count["n"]  # type: ignore[index]
    # and the session is not even read again until it has new turns
    assert extract.extract_session(shop.core.stores, "local", f"claude:{CLAUDE_SESSION}", shop.clock) == []


def test_ambiguous_words_need_a_tech_context() -> None:
    turns = [
        {"id": 1, "role": "user", "text": "Let's go with the simpler plan and react to feedback quickly.", "at": "t1"},
        {"id": 2, "role": "user", "text": "I need a swift answer; express your concerns. Rust on the bike.", "at": "t2"},
        {"id": 3, "role": "user", "text": "The worker is written in Go and the UI uses React components.", "at": "t3"},
        {"id": 4, "role": "user", "text": "Should we use Kafka? Not MongoDB, never MongoDB.", "at": "t4"},
    ]
    got = {(c.predicate, c.object) for c in extract.extract_turns(turns)}
    assert got == {("uses", "Go"), ("uses", "React")}


def test_migration_ends_the_old_technology(shop: Shop) -> None:
    place = shop.core.place(shop.root)
    facts.add(shop.core.stores.graph, shop.clock, "local", place.project, "uses", "MySQL", project=place.project,
              valid_from="2026-01-01T00:00:00Z")
    candidates = extract.extract_turns([{"id": 1, "role": "user", "at": "2026-03-01T10:00:00Z",
                                         "text": "We migrated from MySQL to PostgreSQL last week."}])
    extract.apply(shop.core.stores.graph, shop.clock, "local", place.project, place.name, "s1", candidates)
    current = {f.object for f in facts.query(shop.core.stores.graph, "local", place.project, predicate="uses") if f.current}
    assert current == {"postgres"}
    assert facts.query(shop.core.stores.graph, "local", place.project, predicate="uses", as_of="2026-02-01")[0].object == "mysql"


def test_a_malformed_time_in_a_transcript_does_not_stop_extraction(shop: Shop) -> None:
    candidates = extract.extract_turns([
        {"id": 1, "role": "user", "at": "2022-03-18T18:59:00000Z", "text": "We decided to use Postgres for orders because of transactions."},
    ])  # fmt: skip
    assert candidates
    added = extract.apply(shop.core.stores.graph, shop.clock, "local", "github.com/acme/shop", "shop", "s-bad-time", candidates)
    assert added and all(a.fact.valid_from.startswith("2026-") for a in added)
