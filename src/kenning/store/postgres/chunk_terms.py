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


SEPARATOR = "\x1f"  # a control character: unicode61 never keeps one in a token


@dataclass(frozen=True)
class Postings:
    """The index entries of many chunks, each column one string (terms joined by
    :data:`SEPARATOR`, numbers by commas) for PostgreSQL to split: building and adapting one
    Python object per posting cost more than the rest of a commit. ``lengths``: each chunk's
    length in tokens (both columns), as FTS5 counts it for BM25."""

    terms: str
    chunks: str
    body_counts: str
    context_counts: str
    chunk_lengths: str
    count: int
    lengths: dict[int, int]


def _vocab() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, context, tokenize = '{TOKENIZE}')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    return conn


def postings(rows: Sequence[tuple[int, str, str]]) -> Postings:
    """The postings of each (chunk id, body, context): per chunk and term, the term's count in
    the body and in the context. Counted by SQLite, in C, and joined there."""
    conn = _vocab()
    try:
        conn.executemany("INSERT INTO t (rowid, body, context) VALUES (?, ?, ?)", rows)
        lengths = {int(doc): int(n) for doc, n in conn.execute("SELECT doc, count(*) FROM v GROUP BY doc")}
        got = conn.execute(
            "WITH p AS (SELECT doc, term, sum(col = 'body') AS n0, sum(col = 'context') AS n1 FROM v"
            " GROUP BY doc, term), q AS (SELECT *, sum(n0 + n1) OVER (PARTITION BY doc) AS len FROM p)"
            " SELECT group_concat(term, char(31)), group_concat(doc), group_concat(n0), group_concat(n1),"
            " group_concat(len), count(*) FROM q"
        ).fetchone()
    finally:
        conn.close()
    terms, chunks, n0, n1, length, count = got
    return Postings(terms or "", chunks or "", n0 or "", n1 or "", length or "", int(count), lengths)


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
