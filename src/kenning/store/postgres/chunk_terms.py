"""The words of captured chunks exactly as the SQLite store's FTS5 index holds them.

The SQLite capture store indexes a chunk's two columns (body, context) with FTS5's
``porter unicode61 remove_diacritics 2`` tokenizer and ranks with FTS5's ``bm25()``. For the
PostgreSQL store to rank the same chunks with the same scores it must see the same tokens, so
it tokenizes with that very tokenizer: an in-memory SQLite FTS5 table, read back through an
``fts5vocab`` instance table. Not written by hand on purpose: a Python port of unicode61's
character tables and FTS5's Porter stemmer (which differs from Snowball's) would drift from
the engine the other backend runs; this is the reference implementation itself, in C.

A query word is a phrase to FTS5 (the SQLite store quotes each word): usually one token, but a
word the tokenizer splits is a phrase of several (its tokens must follow one another), and a
word of no token characters is an empty phrase that matches nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

TOKENIZE = "porter unicode61 remove_diacritics 2"


@dataclass(frozen=True)
class ChunkTerms:
    """One chunk's index entries: per term, its count in the body and in the context; and the
    chunk's length in tokens (both columns), as FTS5 counts it for BM25."""

    counts: dict[str, tuple[int, int]]
    length: int


def _vocab() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, context, tokenize = '{TOKENIZE}')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    return conn


def chunk_terms(rows: Sequence[tuple[str, str]]) -> list[ChunkTerms]:
    """The index entries of each (body, context), in order."""
    if not rows:
        return []
    conn = _vocab()
    try:
        conn.executemany("INSERT INTO t (rowid, body, context) VALUES (?, ?, ?)",
                         [(i, b, c) for i, (b, c) in enumerate(rows)])  # fmt: skip
        counts: list[dict[str, list[int]]] = [{} for _ in rows]
        lengths = [0] * len(rows)
        for doc, col, term, n in conn.execute("SELECT doc, col, term, count(*) FROM v GROUP BY doc, col, term"):
            pair = counts[doc].setdefault(term, [0, 0])
            pair[0 if col == "body" else 1] = n
            lengths[doc] += n
    finally:
        conn.close()
    return [ChunkTerms({t: (p[0], p[1]) for t, p in c.items()}, n) for c, n in zip(counts, lengths, strict=True)]


def token_columns(rows: Sequence[tuple[str, str]]) -> list[tuple[list[str], list[str]]]:
    """The token sequence of each (body, context), column by column (for phrase matching)."""
    if not rows:
        return []
    conn = _vocab()
    try:
        conn.executemany("INSERT INTO t (rowid, body, context) VALUES (?, ?, ?)",
                         [(i, b, c) for i, (b, c) in enumerate(rows)])  # fmt: skip
        out: list[tuple[list[str], list[str]]] = [([], []) for _ in rows]
        for doc, col, term in conn.execute("SELECT doc, col, term FROM v ORDER BY doc, col, offset"):
            out[doc][0 if col == "body" else 1].append(term)
    finally:
        conn.close()
    return out


def phrases(words: Sequence[str]) -> list[tuple[str, ...]]:
    """Each query word as the phrase of tokens FTS5 reads it as (in order; may be empty)."""
    return [tuple(body) for body, _context in token_columns([(w, "") for w in words])]


def phrase_count(tokens: Sequence[str], phrase: Sequence[str]) -> int:
    """How many times ``phrase`` occurs in ``tokens`` (overlapping occurrences each count, as
    FTS5 counts a phrase's instances)."""
    n = len(phrase)
    if n == 0:
        return 0
    first = phrase[0]
    return sum(1 for i in range(len(tokens) - n + 1) if tokens[i] == first and tuple(tokens[i:i + n]) == tuple(phrase))
