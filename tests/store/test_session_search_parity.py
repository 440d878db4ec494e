"""Session search ranks identically on SQLite and PostgreSQL: the same LoCoMo sample captured
into both through the same pipeline (Claude Code transcripts, ``sync_file`` over what ``discover`` finds), then every
question of the sample and phrasings made from its turns searched on both, as the CLI's
``sessions search`` does and as the store's own BM25: the same chunks in the same order, the
scores equal (the store's BM25 to the bit).

The sample is vendored (tests/fixtures/locomo-sample, see its README); bench/recall_parity.py
compares all five LoCoMo development conversations.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from backends import open_postgres
from session_parity import Names, SessionReport, capture, compare, compare_terms, questions, write_transcripts

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.service import Core
from kenning.store.protocol import ChunkFilter

SAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "locomo-sample" / "30.json"
NOW = datetime(2023, 9, 1, 12, 0, tzinfo=UTC)
pytestmark = pytest.mark.slow


@pytest.fixture
def cores(tmp_path: Path) -> Iterator[tuple[Core, Core]]:
    stores, close = open_postgres(tmp_path)
    clock = FixedClock(NOW)
    sqlite = Core.open(Settings(home=tmp_path / "sqlite"), clock)
    postgres = Core(stores, clock, Settings(home=tmp_path / "postgres"))
    try:
        yield sqlite, postgres
    finally:
        sqlite.close()
        close()


def test_locomo_sample_searches_identically_on_both_engines(tmp_path: Path, cores: tuple[Core, Core]) -> None:
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    home = tmp_path / "home"
    write_transcripts(home, [("30", data)])
    sqlite, postgres = cores
    for core in cores:
        summary = capture(core, home)
        assert summary.errors == []
    a = (sqlite.stores.capture, Names(sqlite.stores.capture, sqlite.workspace))
    b = (postgres.stores.capture, Names(postgres.stores.capture, postgres.workspace))
    counts = a[0].counts(sqlite.workspace)
    assert counts == b[0].counts(postgres.workspace) and counts.turns == 119  # every turn of the sample
    project = a[0].all_sessions(sqlite.workspace)[0].project
    report = SessionReport()
    turns = [t.text for s in a[0].all_sessions(sqlite.workspace) for t in a[0].turns(sqlite.workspace, s.id)]
    queries = questions(data) + [" ".join(text.split()[1:7]) for text in turns[::4]]
    for query in queries:
        compare(report, a, b, sqlite.workspace, query, limits=(5, 10), now=NOW)
    for query in questions(data)[::4]:
        compare(report, a, b, sqlite.workspace, query, project=project, limits=(3,), now=NOW)
    # The store's own search with words as given: words the tokenizer splits (phrases of several
    # tokens), a word of no token character, one query word twice by its stems, other weights,
    # a filter, and ties (the same few common words everywhere).
    rng = random.Random(15)
    for terms in (["self-care"], ["e-mail", "caroline"], ["--"], ["painting", "paintings", "painted"],
                  ["new job", "support"], ["the", "a", "i"], ["lgbtq", "caroline's"]):  # fmt: skip
        for weights in ((1.0, 0.25), (0.3, 0.7)):
            compare_terms(report, a, b, sqlite.workspace, terms, ChunkFilter(), 20, weights)
    for _ in range(10):
        words = rng.sample(sorted({w.lower().strip(".,!?'\"") for t in turns for w in t.split()}), 3)
        compare_terms(report, a, b, sqlite.workspace, words, ChunkFilter(since="2023-05-20"), 7, (1.0, 0.1))
    print(report.summary())  # shown with -s
    assert report.differences == [], report.summary()
    assert report.hits > 300 and report.candidates > 3000, report.summary()
    assert report.max_bm25_diff == 0.0 and report.max_score_diff == 0.0, report.summary()
