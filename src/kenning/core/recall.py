"""``recall``: the one search over memories. Lexical and deterministic: BM25 over stemmed
fields (from the store), then coverage, confidence, recency and the why-rule here, so every
backend ranks the same data the same way.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from kenning.core.lifecycle import believed_at, in_recall_pool, is_resting
from kenning.core.scopes import Place
from kenning.errors import Invalid
from kenning.model import Kind, Memory, Status
from kenning.store.protocol import Hit, MemoryFilter, MemoryStore
from kenning.text import terms

DEFAULT_COUNT = 8
MAX_COUNT = 25
MAX_ALSO = 3
# A memory must cover this share of the query's weight (idf-weighted terms) to be returned;
# below WEAK_BELOW it is returned but marked weak. Without the bar, any shared word would
# match and "nothing found" could never be an answer.
COVERAGE_BAR = 0.34
WEAK_BELOW = 0.5
RECENCY_LIFT = 0.15
RECENCY_HALF_LIFE_DAYS = 30.0
NEAR_TIE = 0.05
WHY_RE = re.compile(
    r"^\s*why\b|\bwhy (do|did|does|is|are|was|were|not|we|don'?t)\b|\breason\b", re.IGNORECASE
)

Gate = Callable[[list[Memory]], list[Memory]]


@dataclass(frozen=True)
class RecallHit:
    memory: Memory
    score: float
    coverage: float
    weak: bool
    resting: bool
    until: datetime | None = None


@dataclass(frozen=True)
class RecallResult:
    query: str
    hits: list[RecallHit]
    as_of: datetime | None = None


def _idf(total: int, df: int) -> float:
    return math.log(1.0 + (total - df + 0.5) / (df + 0.5))


def _needed_terms(query_terms: list[str], weights: dict[str, float], df: dict[str, int]) -> list[str]:
    """The rarest query terms that a memory must hold one of to clear the coverage bar.

    A memory holding none of them covers at most the weight of the common rest, which is
    under the bar, so it would be dropped anyway: leaving the common terms out of the index
    query loses no result and spares reading their long posting lists (at 100k memories a
    word like "test" is in a third of them). They still count in coverage below.
    """
    if len(query_terms) < 2:
        return query_terms
    total = sum(weights.values())
    rest = total
    needed: list[str] = []
    for term in sorted(query_terms, key=lambda t: (df.get(t, 0), t)):
        if needed and rest < COVERAGE_BAR * total:
            break
        needed.append(term)
        rest -= weights[term]
    return needed


def _score_phrasing(
    store: MemoryStore, flt: MemoryFilter, phrase: str, now: datetime, as_of: datetime | None, window: int
) -> dict[str, tuple[Hit, float, float]]:
    query_terms = sorted(set(terms(phrase)))
    if not query_terms:
        return {}
    total, df = store.doc_freq(query_terms)
    weights = {t: _idf(total, df.get(t, 0)) for t in query_terms}
    weight_sum = sum(weights.values()) or 1.0
    wanted = set(query_terms)
    needed = _needed_terms(query_terms, weights, df)
    # The store reports which of all the query's terms each hit holds, not only the needed.
    hits = store.search(flt, needed, limit=window, report=query_terms)
    out: dict[str, tuple[Hit, float, float]] = {}
    reference = as_of or now
    for hit in hits:
        memory = hit.memory
        if as_of is not None:
            if not believed_at(memory, as_of):
                continue
        elif not in_recall_pool(memory, now):
            continue
        held = hit.terms & wanted
        coverage = sum(weights[t] for t in held) / weight_sum
        if len(query_terms) > 1 and coverage < COVERAGE_BAR:
            continue
        age_days = max(0.0, (reference - max(memory.created_at, memory.confirmed_at)) / timedelta(days=1))
        recency = 1.0 + RECENCY_LIFT * math.exp(-age_days * math.log(2) / RECENCY_HALF_LIFE_DAYS)
        score = hit.bm25 * memory.confidence * recency * (0.5 + coverage)
        out[memory.ref] = (hit, score, coverage)
    return out


def recall(
    store: MemoryStore,
    place: Place,
    query: str,
    now: datetime,
    *,
    as_of: datetime | None = None,
    also: Sequence[str] = (),
    count: int = DEFAULT_COUNT,
    gate: Gate | None = None,
) -> RecallResult:
    if not query.strip():
        raise Invalid(
            "query is empty", fix="describe the task in your own words, e.g. 'deploy the api to staging'"
        )
    if not 1 <= count <= MAX_COUNT:
        raise Invalid(f"count {count} is out of range", fix=f"ask for 1 to {MAX_COUNT} results")
    if len(also) > MAX_ALSO:
        raise Invalid(f"{len(also)} extra phrasings given", fix=f"give at most {MAX_ALSO} in also")
    statuses = tuple(Status) if as_of is not None else (Status.ACTIVE,)
    flt = MemoryFilter(place.workspace, place.reach, statuses=statuses)
    window = max(count * 6, 60)
    merged: dict[str, tuple[Hit, float, float]] = {}
    for phrase in [query, *also]:
        for ref, scored in _score_phrasing(store, flt, phrase, now, as_of, window).items():
            if ref not in merged or scored[1] > merged[ref][1]:
                merged[ref] = scored
    memories = [h.memory for h, _, _ in merged.values()]
    if gate is not None:
        allowed = {m.ref for m in gate(memories)}
        merged = {ref: v for ref, v in merged.items() if ref in allowed}
    ranked = _order(list(merged.values()), why=bool(WHY_RE.search(query)))
    hits = [
        RecallHit(
            memory=hit.memory,
            score=round(score, 6),
            coverage=round(coverage, 3),
            weak=coverage < WEAK_BELOW,
            resting=is_resting(hit.memory, now),
            until=hit.memory.status_at
            if as_of is not None and hit.memory.status is not Status.ACTIVE
            else None,
        )
        for hit, score, coverage in ranked[:count]
    ]
    if as_of is None:
        store.mark_recalled([h.memory.ref for h in hits])
    return RecallResult(query, hits, as_of)


def _order(scored: list[tuple[Hit, float, float]], *, why: bool) -> list[tuple[Hit, float, float]]:
    ranked = sorted(scored, key=lambda s: (-s[1], s[0].memory.ref))
    # Near-tie on the same subject: the newer belief comes first.
    for i in range(len(ranked) - 1):
        a, b = ranked[i], ranked[i + 1]
        same_slot = a[0].memory.subject and a[0].memory.subject == b[0].memory.subject
        if same_slot and b[1] >= a[1] * (1 - NEAR_TIE) and b[0].memory.created_at > a[0].memory.created_at:
            ranked[i], ranked[i + 1] = b, a
    if why:
        # Stable sort keeps the score order within each group.
        ranked.sort(key=lambda s: s[0].memory.kind is not Kind.DECISION)
    return ranked
