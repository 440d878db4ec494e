"""The SQLite store prunes its search to the rows that can reach the top k (see
kenning.store.sqlite.memory_search). The hits must be exactly those of ranking every memory
by Okapi BM25 written out from its definition here, and the term statistics must follow
inserts and updates."""

from __future__ import annotations

import math
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kenning.model import Kind, Memory, Origin, Status
from kenning.store.protocol import MemoryFilter
from kenning.store.sqlite.memories import SqliteMemoryStore
from kenning.store.sqlite.schema import open_database
from kenning.text import memory_terms, terms

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
# Few words, so that memories share terms, hold them several times and tie.
VOCAB = ["cache", "invoice", "ledger", "deploy", "schema", "retry", "webhook", "queue"]

# Now and then a rare word said many times: a memory with one query term can then outrank
# memories holding several, which is what a wrong bound would miss.
plain = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=7).map(" ".join)
rare = st.tuples(st.integers(1, 6), st.sampled_from(VOCAB)).map(lambda p: " ".join(["zebra"] * p[0] + [p[1]]))
sentence = st.integers(0, 7).flatmap(lambda k: rare if k == 0 else plain)
memory_parts = st.tuples(
    sentence,
    st.sampled_from(["", "cache", "ledger retry retry"]),  # reason
    st.lists(st.sampled_from(VOCAB), max_size=2, unique=True),  # tags
    st.sampled_from(["", "src/cache.py", "queue/deploy.ts"]),  # citation
    st.sampled_from(["proj", "other"]),
    st.sampled_from([Status.ACTIVE, Status.ACTIVE, Status.RETIRED]),
)


def make(i: int, parts: tuple[str, str, list[str], str, str, Status]) -> Memory:
    text, reason, tags, source_ref, scope, status = parts
    return Memory(
        ref=f"m:{i:08x}", workspace="w", scope=scope, text=text, kind=Kind.FACT, confidence=0.7,
        origin=Origin.PERSON, created_at=T0, confirmed_at=T0, reason=reason, tags=tuple(tags),
        source_ref=source_ref, status=status, status_at=T0 if status is not Status.ACTIVE else None,
    )  # fmt: skip


def brute_force(memories: list[Memory], query: list[str], limit: int) -> list[tuple[str, float]]:
    """BM25 (k1 1.2, b 0.75, the four columns weighted equally) of every memory in scope
    'proj' and active, best first, ties in insertion order."""
    fields = [columns(m) for m in memories]
    n = len(memories)
    avgdl = sum(len(f) for fs in fields for f in fs) / n
    df = {t: sum(1 for fs in fields if any(t in f for f in fs)) for t in query}
    scored = []
    for i, (m, fs) in enumerate(zip(memories, fields, strict=True)):
        if m.scope != "proj" or m.status is not Status.ACTIVE:
            continue
        length = sum(len(f) for f in fs)
        score, held = 0.0, False
        for t in query:
            freq = sum(w * f.count(t) for w, f in zip((1.0, 1.0, 1.0, 1.0), fs, strict=True))
            if freq:
                held = True
                idf = max(1e-6, math.log((n - df[t] + 0.5) / (df[t] + 0.5)))
                score += idf * freq * 2.2 / (freq + 1.2 * (0.25 + 0.75 * length / avgdl))
        if held:
            scored.append((i, m.ref, score))
    scored.sort(key=lambda s: (-s[2], s[0]))
    return [(ref, score) for _, ref, score in scored[:limit]]


# Both tests draw the same examples; the second also turns the rank-everything shortcut off.
examples = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
corpora = given(
    corpus=st.lists(memory_parts, min_size=1, max_size=40),
    edits=st.lists(st.tuples(st.integers(0, 39), sentence), max_size=5),
    query=st.lists(st.sampled_from([*VOCAB, "zebra"]), min_size=2, max_size=5, unique=True),
    limit=st.integers(1, 6),
)


@examples
@corpora
def test_pruned_search_returns_exactly_the_bm25_top_k(
    corpus: list[tuple[str, str, list[str], str, str, Status]],
    edits: list[tuple[int, str]],
    query: list[str],
    limit: int,
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = open_database(Path(tmp) / "k.db")
        try:
            store = SqliteMemoryStore(db)
            memories = [make(i, parts) for i, parts in enumerate(corpus)]
            for m in memories:
                store.insert(m)
            # Updates move terms in and out of the statistics the pruning bounds rest on.
            for index, text in edits:
                if index < len(memories):
                    memories[index] = memories[index].evolve(text=text)
                    store.update(memories[index])
            stems = sorted({t for word in query for t in terms(word)})
            got = store.search(MemoryFilter("w", ["proj"]), stems, limit=limit)
            expected = brute_force(memories, stems, limit)
            # Equal up to float summation order: scores within a rounding error of each other
            # are one tie (the two sums can split it at the last digit either way), so the
            # order is compared tie group by tie group (see same_ranking).
            assert len(got) == len(expected)
            assert all(math.isclose(h.bm25, s, rel_tol=1e-9, abs_tol=1e-12) for h, (_, s) in zip(got, expected, strict=True))
            assert same_ranking([h.memory.ref for h in got], brute_force(memories, stems, len(memories)))
            total, df = store.doc_freq("w", stems)
            assert total == len(memories)
            assert df == {t: n for t in stems if (n := sum(1 for m in memories if t in held(m)))}
        finally:
            db.close()


def same_ranking(got: list[str], everything: list[tuple[str, float]]) -> bool:
    """Whether ``got`` (a top k) ranks as ``everything`` (every match, best first) does, with
    scores within a rounding error of each other as one tie group: each group wholly inside
    the top k holds the same refs, and the group the cut falls in gives the rest of them."""
    groups: list[list[tuple[str, float]]] = []
    for ref, score in everything:
        if groups and math.isclose(score, groups[-1][0][1], rel_tol=1e-9, abs_tol=1e-12):
            groups[-1].append((ref, score))
        else:
            groups.append([(ref, score)])
    at = 0
    for group in groups:
        if at >= len(got):
            break
        taken = got[at : at + len(group)]
        if not set(taken) <= {ref for ref, _ in group}:
            return False
        at += len(taken)
    return at == len(got)


def test_a_tie_split_at_the_last_digit_is_still_a_tie() -> None:
    """Found by Hypothesis: two memories whose BM25 is the same number, summed in two orders,
    differ in the last bit; either order is the BM25 top k."""
    everything = [("m:4", 3.593890441656304e-06), ("m:1", 3.5938904416563035e-06), ("m:5", 2.05e-06)]
    assert same_ranking(["m:1", "m:4"], everything)
    assert same_ranking(["m:4"], everything) and same_ranking(["m:1"], everything)
    assert not same_ranking(["m:5", "m:1"], everything)
    assert not same_ranking(["m:1", "m:5"], everything)


def columns(m: Memory) -> list[list[str]]:
    """The indexed columns: the sentence; reason and what was rejected; tags, slot key and
    trigger; citation (identifiers split and joined as kenning.text.memory_terms does)."""
    trigger = m.trigger.pattern if m.trigger else ""
    return [memory_terms(m.text), memory_terms(f"{m.reason} {m.rejected}"),
            memory_terms(" ".join([*m.tags, m.subject.replace(".", " "), trigger])), memory_terms(m.source_ref)]  # fmt: skip


def held(m: Memory) -> set[str]:
    return {t for column in columns(m) for t in column}


@examples
@corpora
def test_the_pruning_rounds_themselves_return_exactly_the_bm25_top_k(
    corpus: list[tuple[str, str, list[str], str, str, Status]],
    edits: list[tuple[int, str]],
    query: list[str],
    limit: int,
) -> None:
    """Small stores normally rank every match (below RANK_ALL_BELOW); with that shortcut off,
    the bounded rounds run on every example, so a bound set too low shows up here."""
    from kenning.store.sqlite import memory_search

    saved = memory_search.RANK_ALL_BELOW
    memory_search.RANK_ALL_BELOW = 0
    try:
        test_pruned_search_returns_exactly_the_bm25_top_k.hypothesis.inner_test(corpus, edits, query, limit)  # type: ignore[attr-defined]
    finally:
        memory_search.RANK_ALL_BELOW = saved
