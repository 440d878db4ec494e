"""Recall's arithmetic, in Python so that every store ranks the same candidates identically:
BM25 with weighted query terms, the specificity of a term, the feedback terms of the best
candidates, and the evidence that decides whether recall answers at all.

The store supplies the candidates (its exact BM25 top k), each candidate's term frequencies
and length, and the index statistics; nothing here reads a store.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kenning.store.protocol import Hit

K1 = 1.2
# Length normalisation: memories are one sentence each, of similar length, so a long one is
# rarely long for padding. On the recall-eval set 0.5 beat the usual 0.75 in recall@5 in each
# of its three projects (the store's candidate search keeps FTS5's 0.75).
B = 0.5
# Specificity treats a small store as if it held this many memories: a word in the only
# memory of a new store is as telling as a word in one memory of a hundred, not common.
SMALL_STORE = 100
# Pseudo-relevance feedback: the words that best characterise the top FEEDBACK_DOCS
# candidates join the query with at most FEEDBACK_WEIGHT each, so a memory worded unlike
# the task ("run make generate-mocks" for "the mocks are out of date") can still rank.
FEEDBACK_DOCS = 3
FEEDBACK_TERMS = 10
FEEDBACK_WEIGHT = 0.3


@dataclass(frozen=True)
class Stats:
    docs: int
    avgdl: float
    df: Mapping[str, int]


def idf(docs: int, df: int) -> float:
    """Lucene's BM25 idf: positive for every term, so a term in most memories still counts a little."""
    return math.log(1.0 + (docs - df + 0.5) / (df + 0.5))


def bm25(weights: Mapping[str, float], hit: Hit, stats: Stats) -> float:
    """Okapi BM25 of one candidate for query terms weighted by ``weights``."""
    if stats.avgdl <= 0:
        return 0.0
    norm = K1 * (1 - B + B * hit.length / stats.avgdl)
    score = 0.0
    for term, weight in weights.items():
        freq = hit.freqs.get(term, 0.0)
        if freq:
            score += weight * idf(stats.docs, stats.df.get(term, 1)) * freq * (K1 + 1) / (freq + norm)
    return score


def specificity(docs: int, df: int) -> float:
    """How much a match on a term tells, from 0 to 1: its idf over the idf of a term no
    memory holds, in a store of at least SMALL_STORE memories. A term in one memory of a
    hundred is about 0.8; one in every tenth memory about 0.45."""
    n = max(docs, SMALL_STORE)
    return idf(n, df) / idf(n, 0)


def evidence(weights: Mapping[str, float], hit: Hit, stats: Stats) -> float:
    """The strength of a candidate's match: the specificity of each query term it holds,
    times the term's weight (1 for the query's own words, less for a word it was expanded to).
    Counted in memories' terms, so query words the store has never seen neither add nor take."""
    return sum(
        weight * specificity(stats.docs, stats.df.get(term, 1))
        for term, weight in weights.items()
        if hit.freqs.get(term)
    )


def feedback_terms(
    scored: Iterable[tuple[Hit, float]], stats: Stats, known: Iterable[str]
) -> dict[str, float]:
    """Pseudo-relevance feedback (RM3-like): the terms that weigh most in the best-scored
    candidates, each term's share of a candidate's length times the candidate's score
    relative to the best, times the term's idf; the top FEEDBACK_TERMS get weights up to
    FEEDBACK_WEIGHT. Ties break by term so the choice is deterministic."""
    top = sorted(scored, key=lambda s: (-s[1], s[0].memory.ref))[:FEEDBACK_DOCS]
    if not top or top[0][1] <= 0:
        return {}
    best = top[0][1]
    skip = set(known)
    mass: dict[str, float] = {}
    for hit, score in top:
        total = sum(hit.freqs.values()) or 1.0
        for term, freq in hit.freqs.items():
            if term in skip or len(term) < 2:
                continue
            value = (freq / total) * (score / best) * idf(stats.docs, stats.df.get(term, 1))
            mass[term] = mass.get(term, 0.0) + value
    chosen = sorted(mass.items(), key=lambda kv: (-kv[1], kv[0]))[:FEEDBACK_TERMS]
    if not chosen:
        return {}
    peak = chosen[0][1]
    return {term: FEEDBACK_WEIGHT * value / peak for term, value in chosen}
