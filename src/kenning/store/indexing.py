"""What every backend indexes of a memory, and the BM25 its ``search`` ranks by.

Backend-neutral on purpose: SQLite (FTS5) and PostgreSQL (postings tables) index the same
four stemmed fields, count the same weighted term frequencies and lengths, and so rank the
same candidates (the contract in :mod:`kenning.store.protocol`). :func:`bm25` is FTS5's
``bm25()`` (fts5_aux.c) written out operation for operation, so a backend that scores in
Python returns the very floats SQLite's FTS5 does for the same statistics.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from kenning.text import memory_index_text

K1 = 1.2
B = 0.75
# Column weights (text, reason, tags, citation). Equal: on the recall-eval set a heavier
# sentence column lost to equal weights in every project (bench/recall_eval.py).
WEIGHTS = (1.0, 1.0, 1.0, 1.0)


def index_fields(
    text: str, reason: str, rejected: str, tags: Sequence[str], subject: str, trigger: str, source_ref: str
) -> list[str]:
    """The four indexed columns of a memory: its sentence; its reason with what it turned
    down; its tags with its slot key and trigger pattern (the writer's own topic words:
    ``entity.unique_id``, ``pytest .*tests``); its citation."""
    return [
        memory_index_text(text),
        memory_index_text(f"{reason} {rejected}"),
        memory_index_text(" ".join([*tags, subject.replace(".", " "), trigger])),
        memory_index_text(source_ref),
    ]


def weighted_terms(fields: Sequence[str]) -> tuple[dict[str, float], int]:
    """Weighted term frequency of each term in the four stemmed fields (in the order the
    terms first occur), and their length."""
    freq: dict[str, float] = {}
    length = 0
    for weight, field in zip(WEIGHTS, fields, strict=True):
        tokens = field.split()
        length += len(tokens)
        for token in tokens:
            freq[token] = freq.get(token, 0.0) + weight
    return freq, length


def idf(docs: int, df: int) -> float:
    """As FTS5 computes it (fts5_aux.c): a term in half the rows or more counts almost nothing."""
    value = math.log((docs - df + 0.5) / (df + 0.5))
    return value if value > 0.0 else 1e-6


def bm25(terms: Sequence[str], idfs: Mapping[str, float], freqs: Mapping[str, float], length: int, avgdl: float) -> float:
    """FTS5's bm25() of one row for the query ``terms`` (in the order FTS5 reads its phrases:
    the search's sorted terms), with the same operations in the same order."""
    score = 0.0
    for term in terms:
        f = freqs.get(term, 0.0)
        score += idfs[term] * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + B * length / avgdl)))
    return score
