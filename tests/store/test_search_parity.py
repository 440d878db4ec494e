"""SQLite and PostgreSQL rank identically: the same memories in both, the same refs back in
the same order with the same scores (within 1e-9; recall's equal to the bit), from the
store's candidate search up through recall's feedback, evidence and final order.

The whole recall-eval development set and LoCoMo are compared by bench/recall_parity.py; here
the vendored part of recall-eval (tests/fixtures/recall-eval) and a generated store built to
hit the hard cases: thousands of near-identical memories (ties at every cut), a filter that
leaves out most of the best matches, and queries whose postings run past SQLite's pruning
threshold.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from backends import open_postgres
from parity import Report, compare_all, compare_recall, compare_search, copy_memories

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.remember import RememberRequest
from kenning.core.scopes import Place
from kenning.core.service import Core
from kenning.model import GLOBAL_SCOPE, Kind, Memory, Origin, Status, Trigger
from kenning.store.protocol import MemoryFilter, MemoryStore
from kenning.store.sqlite.memories import SqliteMemoryStore
from kenning.store.sqlite.schema import open_database

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "recall-eval"
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
pytestmark = pytest.mark.slow


@pytest.fixture
def postgres(tmp_path: Path) -> Iterator[MemoryStore]:
    stores, close = open_postgres(tmp_path)
    try:
        yield stores.memories
    finally:
        close()


def _rows(name: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines()]


def _request(m: dict[str, object]) -> RememberRequest:
    trigger = str(m.get("trigger") or "")
    return RememberRequest(
        text=str(m["text"]), kind=Kind(str(m["kind"])), reason=str(m.get("reason") or ""),
        rejected=str(m.get("rejected") or ""), subject=str(m.get("subject") or ""),
        when=Trigger.from_text(trigger) if trigger else None, tags=tuple(m.get("tags") or ()),  # type: ignore[arg-type]
        origin=Origin.PERSON, source="cli",  # as `kenning remember` writes them
    )  # fmt: skip


def _words(text: object, n: int) -> str:
    return " ".join(str(text).split()[:n])


def test_recall_eval_ranks_identically_on_both_engines(tmp_path: Path, postgres: MemoryStore) -> None:
    core = Core.open(Settings(home=tmp_path / "home"), FixedClock(NOW - timedelta(days=3)))
    try:
        memories = _rows("memories.jsonl")
        places: dict[str, Place] = {}
        for m in memories:
            project = str(m["project"])
            place = places.setdefault(project, core.place(project=f"receval.local/receval/{project}"))
            core.remember(place, _request(m))
        copied = copy_memories(core.store, postgres, core.workspace)
        assert copied == len(memories)  # every memory of the set is stored, none merged
        report = Report()
        for project, place in places.items():
            queries = [str(q["query"]) for q in _rows("queries.jsonl") if q["project"] == project]
            # And phrasings made from the memories themselves: the start of a sentence, of a
            # reason, the tags (every third memory, to keep the test short).
            mine = [m for m in memories if m["project"] == project][::3]
            queries += [_words(m["text"], 6) for m in mine]
            queries += [_words(m["reason"], 8) for m in mine if m.get("reason")]
            queries += [" ".join(m["tags"]) for m in mine if m.get("tags")]  # type: ignore[arg-type]
            compare_all(report, core.store, postgres, place, queries, NOW)
    finally:
        core.close()
    print(report.summary())  # shown with -s
    assert report.differences == [], report.summary()
    assert report.results > 300 and report.candidates > 3000, report.summary()
    assert report.max_score_diff == 0.0, report.summary()


# -- a generated store of the hard cases ----------------------------------------------------
_SYLLABLES = ["ka", "zo", "rim", "tel", "vax", "nu", "pre", "lod", "qui", "bes", "mar", "fen", "dro", "sil"]


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3))) + "x")
    return sorted(words)


def _generated(rng: random.Random, count: int) -> list[Memory]:
    vocab = _vocabulary(rng, 400)
    weights = [1.0 / (rank + 1) for rank in range(len(vocab))]  # Zipf: a few words everywhere
    out = []
    for i in range(count):
        if i % 7 == 0:
            text = "kafka kafka offsets " + rng.choice(vocab[:3])  # the same profile, many times
        else:
            text = " ".join(rng.choices(vocab, weights, k=rng.randint(3, 14)))
        scope = "proj" if i % 3 else "other"
        status = Status.RETIRED if i % 11 == 0 else Status.ACTIVE
        out.append(Memory(
            ref=f"m:{i:08x}", workspace="local", scope=scope, text=text, kind=Kind.FACT, confidence=0.5 + (i % 5) / 10,
            origin=Origin.AGENT, created_at=NOW - timedelta(hours=i), confirmed_at=NOW - timedelta(hours=i),
            status=status, status_at=NOW if status is Status.RETIRED else None,
            reason=" ".join(rng.choices(vocab, weights, k=rng.randint(0, 6))),
            tags=tuple(rng.sample(vocab[:40], rng.randint(0, 2))),
        ))  # fmt: skip
    return out


def test_generated_store_with_ties_filters_and_pruning_ranks_identically(tmp_path: Path, postgres: MemoryStore) -> None:
    rng = random.Random(15)
    db = open_database(tmp_path / "parity.db")
    sqlite = SqliteMemoryStore(db)
    try:
        memories = _generated(rng, 3000)
        for store in (sqlite, postgres):
            with store.transaction():
                for m in memories:
                    store.insert(m)
        vocab = sorted({w for m in memories for w in m.text.split()})
        report = Report()
        place = Place("local", "proj")
        flt = MemoryFilter("local", ["proj", GLOBAL_SCOPE])
        everything = MemoryFilter("local", ["proj", "other"], statuses=tuple(Status))
        common = vocab[:12]
        for _ in range(40):
            words = rng.sample(common, 2) + rng.sample(vocab, rng.randint(0, 3))
            for limit in (1, 5, 32):
                compare_search(report, sqlite, postgres, flt, words, limit)
                compare_search(report, sqlite, postgres, everything, words, limit)
            compare_recall(report, sqlite, postgres, place, " ".join(words), NOW)
        for limit in (1, 3, 40):  # the identical "kafka kafka offsets" memories: ties at the cut
            compare_search(report, sqlite, postgres, flt, ["kafka"], limit)
            compare_search(report, sqlite, postgres, flt, ["kafka", "offset", vocab[0]], limit)
    finally:
        db.close()
    print(report.summary())  # shown with -s
    assert report.differences == [], report.summary()
    assert report.candidates > 3000, report.summary()
    # Recall computes its scores in Python from the same statistics: equal to the bit. The
    # store's own BM25 differs in the last bits where SQLite's pruning sums the terms in
    # another order.
    assert report.max_score_diff == 0.0, report.summary()
