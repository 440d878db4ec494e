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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
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


@dataclass
class SeenStats:
    """Statistics already read in one transaction, the terms' absent ones included."""

    totals: tuple[int, int] | None = None
    df: dict[str, int] = field(default_factory=dict)

    def missing(self, terms: Sequence[str]) -> list[str] | None:
        """The terms to read (all of them while the totals are unknown); None: none."""
        if self.totals is None:
            return list(terms)
        unseen = [t for t in terms if t not in self.df]
        return unseen or None

    def learn(self, terms: Sequence[str], stats: Stats) -> None:
        self.totals = (stats.docs, stats.tokens)
        self.df.update({t: stats.df.get(t, 0) for t in terms})

    def of(self, terms: Sequence[str]) -> Stats:
        docs, tokens = self.totals or (0, 0)
        return Stats(docs, tokens, {t: n for t in terms if (n := self.df.get(t, 0)) > 0})

    def forget(self) -> None:
        self.totals = None
        self.df.clear()


def term_stats(cur: Cursor, workspace: str | None, terms: Sequence[str]) -> Stats:
    """The statistics of one workspace, or (``workspace`` None: the owner's view) of all,
    summed, as SQLite's single index counts every workspace in its file. One round trip."""
    if workspace is None:
        sql = (
            b"SELECT NULL AS term, coalesce(sum(docs), 0) AS docs, coalesce(sum(tokens), 0) AS tokens"
            b" FROM memory_index_totals UNION ALL"
            b" SELECT term, sum(docs), NULL FROM memory_term_stats WHERE term = ANY(%(terms)s) GROUP BY term"
        )
    else:
        sql = (
            b"SELECT NULL AS term, docs, tokens FROM memory_index_totals WHERE workspace = %(ws)s UNION ALL"
            b" SELECT term, docs, NULL FROM memory_term_stats WHERE workspace = %(ws)s AND term = ANY(%(terms)s)"
        )
    docs = tokens = 0
    df: dict[str, int] = {}
    for row in cur.execute(sql, {"ws": workspace, "terms": list(terms)}).fetchall():
        if row["term"] is None:
            docs, tokens = max(0, int(row["docs"])), int(row["tokens"])
        elif int(row["docs"]) > 0:
            df[row["term"]] = int(row["docs"])
    return Stats(docs, tokens, df)


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
@dataclass
class Pending:
    """Changes to the statistics, kept until the transaction commits (or a read needs them).

    One transaction that writes many memories (an import, a sync) would otherwise update the
    same statistics rows once per memory, and PostgreSQL keeps every version of a row a
    transaction updated until it ends: each lookup walks a longer chain of them."""

    terms: dict[tuple[str, str], int] = field(default_factory=dict)
    totals: dict[str, list[int]] = field(default_factory=dict)

    def add(self, workspace: str, terms: Iterable[str], sign: int, length: int) -> None:
        for term in terms:
            key = (workspace, term)
            self.terms[key] = self.terms.get(key, 0) + sign
        total = self.totals.setdefault(workspace, [0, 0])
        total[0] += sign
        total[1] += sign * length

    def flush(self, cur: Cursor) -> None:
        # In one order everywhere: concurrent writers lock the statistics rows alike.
        changed = sorted((k, d) for k, d in self.terms.items() if d)
        if changed:
            cur.execute(
                b"INSERT INTO memory_term_stats (workspace, term, docs)"
                b" SELECT * FROM unnest(%s::text[], %s::text[], %s::int[])"
                b" ON CONFLICT (workspace, term) DO UPDATE SET docs = memory_term_stats.docs + excluded.docs",
                ([k[0] for k, _ in changed], [k[1] for k, _ in changed], [d for _, d in changed]),
            )
            fewer = [k for k, d in changed if d < 0]
            if fewer:
                cur.execute(
                    b"DELETE FROM memory_term_stats WHERE (workspace, term) IN"
                    b" (SELECT * FROM unnest(%s::text[], %s::text[])) AND docs <= 0",
                    ([k[0] for k in fewer], [k[1] for k in fewer]),
                )
        for workspace, (docs, tokens) in sorted(self.totals.items()):
            if docs or tokens:
                cur.execute(
                    b"INSERT INTO memory_index_totals (workspace, docs, tokens) VALUES (%s, %s, %s)"
                    b" ON CONFLICT (workspace) DO UPDATE SET docs = memory_index_totals.docs + excluded.docs,"
                    b" tokens = memory_index_totals.tokens + excluded.tokens",
                    (workspace, docs, tokens),
                )
        self.terms.clear()
        self.totals.clear()


def index_add(
    cur: Cursor, pending: Pending, workspace: str, memory: int, fields: Sequence[str], *, insert: bool = True
) -> None:
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
    terms = sorted(freq)
    if terms:
        cur.execute(
            b"INSERT INTO memory_postings (workspace, term, memory, freq, length)"
            b" SELECT %s, t, %s, f, %s FROM unnest(%s::text[], %s::float8[]) AS u(t, f)",
            (workspace, memory, length, terms, [freq[t] for t in terms]),
        )
    pending.add(workspace, terms, 1, length)


def index_remove(cur: Cursor, pending: Pending, workspace: str, memory: int) -> None:
    """Take one memory's terms out of the postings and the statistics (its terms row stays)."""
    row = cur.execute(
        b"SELECT text, reason, tags, citation FROM memory_terms WHERE workspace = %s AND memory = %s",
        (workspace, memory),
    ).fetchone()
    if row is None:
        return
    freq, length = weighted_terms([row["text"], row["reason"], row["tags"], row["citation"]])
    cur.execute(b"DELETE FROM memory_postings WHERE workspace = %s AND memory = %s", (workspace, memory))
    pending.add(workspace, freq, -1, length)


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
