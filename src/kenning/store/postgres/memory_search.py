"""Ranked search over memories on PostgreSQL: the exact BM25 top k, scored as SQLite's FTS5 does.

The index is a postings table (one row per workspace, term and memory, with the term's
weighted frequency and the memory's length) beside per-term document counts and per-workspace
totals, all kept by the store in the transaction that writes the memory.

Ranking runs in two steps. PostgreSQL sums each memory's BM25 over the postings of the query
terms and returns the best ``n``; that sum is a float whose rounding depends on the order the
plan adds in, so it only narrows. Python then scores those candidates again with
:func:`kenning.store.indexing.bm25` (FTS5's arithmetic, operation for operation, from the
integer statistics and each memory's stored terms) and orders them by that score, ties by
id. The cut is exact: a memory left unfetched has a database score at most the last fetched
one's, so its true score is below ``floor * (1 + TOLERANCE)``; when the k-th best is not
clear of that bound (a tie, or too few candidates passed the filter) the next round fetches
every memory whose database score could reach the k-th best.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg

from kenning.store.indexing import K1, B, bm25, idf, weighted_terms

Cursor = psycopg.Cursor[dict[str, Any]]

# How far a float sum in another order can stray from Python's, relative (a few ulps is
# 1e-15; this leaves room to spare and costs a round only on near-ties).
TOLERANCE = 1e-9
# Rows asked for in the first round: enough that the filter rarely leaves too few.
FIRST_ROUND = 2
FIRST_EXTRA = 16


@dataclass(frozen=True)
class Stats:
    docs: int
    tokens: int
    df: dict[str, int]

    @property
    def avgdl(self) -> float:
        return self.tokens / self.docs if self.docs else 0.0


def term_stats(cur: Cursor, workspace: str | None, terms: Sequence[str]) -> Stats:
    """The statistics of one workspace, or (``workspace`` None: the owner's view) of all,
    summed, as SQLite's single index counts every workspace in its file."""
    if workspace is None:
        totals = cur.execute(
            b"SELECT coalesce(sum(docs), 0) AS docs, coalesce(sum(tokens), 0) AS tokens FROM memory_index_totals"
        ).fetchone()
        rows = cur.execute(
            b"SELECT term, sum(docs) AS docs FROM memory_term_stats WHERE term = ANY(%s) GROUP BY term", (list(terms),)
        ).fetchall()
    else:
        totals = cur.execute(
            b"SELECT docs, tokens FROM memory_index_totals WHERE workspace = %s", (workspace,)
        ).fetchone()
        rows = cur.execute(
            b"SELECT term, docs FROM memory_term_stats WHERE workspace = %s AND term = ANY(%s)",
            (workspace, list(terms)),
        ).fetchall()
    docs = max(0, int(totals["docs"])) if totals else 0
    tokens = int(totals["tokens"]) if totals else 0
    return Stats(docs, tokens, {r["term"]: int(r["docs"]) for r in rows if int(r["docs"]) > 0})


def terms_with_prefix(cur: Cursor, workspace: str | None, prefix: str, limit: int) -> list[str]:
    if not prefix:
        return []
    high = prefix + "\U0010ffff"
    if workspace is None:
        rows = cur.execute(
            b"SELECT DISTINCT term FROM memory_term_stats WHERE term >= %s AND term < %s ORDER BY term LIMIT %s",
            (prefix, high, limit),
        ).fetchall()
    else:
        rows = cur.execute(
            b"SELECT term FROM memory_term_stats WHERE workspace = %s AND term >= %s AND term < %s"
            b" ORDER BY term LIMIT %s",
            (workspace, prefix, high, limit),
        ).fetchall()
    return [str(r["term"]) for r in rows]


# -- keeping the index ------------------------------------------------------------------------
def index_add(cur: Cursor, workspace: str, memory: int, fields: Sequence[str], *, insert: bool = True) -> None:
    """Index one memory's four stemmed fields (``insert`` off: its terms row exists, rewrite it)."""
    if insert:
        cur.execute(
            b"INSERT INTO memory_terms (workspace, memory, text, reason, tags, citation) VALUES (%s, %s, %s, %s, %s, %s)",
            (workspace, memory, *fields),
        )
    else:
        cur.execute(
            b"UPDATE memory_terms SET text = %s, reason = %s, tags = %s, citation = %s WHERE workspace = %s AND memory = %s",
            (*fields, workspace, memory),
        )
    freq, length = weighted_terms(fields)
    # Terms in one order everywhere: concurrent writers lock the stats rows in the same order.
    terms = sorted(freq)
    if terms:
        cur.execute(
            b"INSERT INTO memory_postings (workspace, term, memory, freq, length)"
            b" SELECT %s, t, %s, f, %s FROM unnest(%s::text[], %s::float8[]) AS u(t, f)",
            (workspace, memory, length, terms, [freq[t] for t in terms]),
        )
        cur.execute(
            b"INSERT INTO memory_term_stats (workspace, term, docs) SELECT %s, t, 1 FROM unnest(%s::text[]) AS u(t)"
            b" ON CONFLICT (workspace, term) DO UPDATE SET docs = memory_term_stats.docs + 1",
            (workspace, terms),
        )
    _add_totals(cur, workspace, 1, length)


def index_remove(cur: Cursor, workspace: str, memory: int) -> None:
    """Take one memory's terms out of the postings and the statistics (its terms row stays)."""
    row = cur.execute(
        b"SELECT text, reason, tags, citation FROM memory_terms WHERE workspace = %s AND memory = %s",
        (workspace, memory),
    ).fetchone()
    if row is None:
        return
    freq, length = weighted_terms([row["text"], row["reason"], row["tags"], row["citation"]])
    terms = sorted(freq)
    cur.execute(b"DELETE FROM memory_postings WHERE workspace = %s AND memory = %s", (workspace, memory))
    if terms:
        cur.execute(
            b"UPDATE memory_term_stats SET docs = docs - 1 WHERE workspace = %s AND term = ANY(%s)",
            (workspace, terms),
        )
        cur.execute(
            b"DELETE FROM memory_term_stats WHERE workspace = %s AND term = ANY(%s) AND docs <= 0", (workspace, terms)
        )
    _add_totals(cur, workspace, -1, -length)


def _add_totals(cur: Cursor, workspace: str, docs: int, tokens: int) -> None:
    cur.execute(
        b"INSERT INTO memory_index_totals (workspace, docs, tokens) VALUES (%s, %s, %s)"
        b" ON CONFLICT (workspace) DO UPDATE SET docs = memory_index_totals.docs + excluded.docs,"
        b" tokens = memory_index_totals.tokens + excluded.tokens",
        (workspace, docs, tokens),
    )


# -- ranking ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Candidate:
    id: int
    score: float
    fields: tuple[str, str, str, str]


_SCORE = (
    "sum(q.idf * ((p.freq * %(k1p1)s) / (p.freq + %(k1)s * (%(omb)s + %(b)s * p.length / %(avgdl)s))))"
)


def rank(
    cur: Cursor, workspace: str, where: str, params: dict[str, object], terms: Sequence[str], stats: Stats, limit: int
) -> list[Candidate]:
    """The ``limit`` best memories of ``workspace`` passing ``where`` (SQL over alias ``m``
    with named ``params``) for the sorted, distinct ``terms``: best first, ties by id."""
    present = [t for t in terms if stats.df.get(t, 0) > 0]
    if not present or limit <= 0 or stats.docs <= 0 or stats.tokens <= 0:
        return []
    avgdl = stats.avgdl
    idfs = {t: idf(stats.docs, stats.df.get(t, 0)) for t in terms}
    base: dict[str, object] = {
        **params, "ws": workspace, "terms": present, "idfs": [idfs[t] for t in present], "k1p1": K1 + 1.0,
        "k1": K1, "omb": 1 - B, "b": B, "avgdl": avgdl,
    }  # fmt: skip

    def exact(fields: tuple[str, str, str, str]) -> float:
        freqs, length = weighted_terms(fields)
        return bm25(terms, idfs, freqs, length, avgdl)

    n = limit * FIRST_ROUND + FIRST_EXTRA
    filtered = False
    threshold: float | None = None
    while True:
        rows = _top(cur, base, where if filtered else "", n, threshold)
        complete = threshold is not None or len(rows) < n
        allowed = _allowed(cur, workspace, where, base, [r["memory"] for r in rows])
        best = sorted(
            (Candidate(i, exact(f), f) for i, f in allowed.items()), key=lambda c: (-c.score, c.id)
        )
        if complete:
            return best[:limit]
        floor = float(rows[-1]["score"])
        if len(best) >= limit and best[limit - 1].score > floor * (1 + TOLERANCE):
            return best[:limit]
        if len(best) >= limit:
            # A near-tie at the cut: everything the database scores near the k-th or above.
            threshold = best[limit - 1].score * (1 - TOLERANCE)
            filtered = True
        elif not filtered:
            filtered = True  # the filter left too few: rank only the memories that pass it
        else:
            n *= 4


def _top(cur: Cursor, params: dict[str, object], where: str, n: int, threshold: float | None) -> list[dict[str, Any]]:
    join = " JOIN memories m ON m.workspace = p.workspace AND m.id = p.memory" if where else ""
    cond = f" WHERE {where}" if where else ""
    having = f" HAVING {_SCORE} >= %(threshold)s" if threshold is not None else ""
    limit = "" if threshold is not None else " LIMIT %(n)s"
    sql = (
        f"SELECT p.memory, {_SCORE} AS score FROM unnest(%(terms)s::text[], %(idfs)s::float8[]) AS q(term, idf)"
        f" JOIN memory_postings p ON p.workspace = %(ws)s AND p.term = q.term{join}{cond}"
        f" GROUP BY p.memory{having} ORDER BY score DESC, p.memory{limit}"
    )
    return cur.execute(sql.encode(), {**params, "n": n, "threshold": threshold}).fetchall()


def _allowed(
    cur: Cursor, workspace: str, where: str, params: dict[str, object], ids: list[int]
) -> dict[int, tuple[str, str, str, str]]:
    """The stored terms of those of ``ids`` that pass the filter."""
    if not ids:
        return {}
    rows = cur.execute(
        (
            "SELECT t.memory, t.text, t.reason, t.tags, t.citation FROM memory_terms t"
            " JOIN memories m ON m.workspace = t.workspace AND m.id = t.memory"
            f" WHERE t.workspace = %(ws)s AND t.memory = ANY(%(ids)s) AND {where}"
        ).encode(),
        {**params, "ws": workspace, "ids": ids},
    ).fetchall()
    return {r["memory"]: (r["text"], r["reason"], r["tags"], r["citation"]) for r in rows}
