"""Session search on PostgreSQL: the exact BM25 top k of chunks, scored as SQLite's FTS5 does.

The SQLite store asks FTS5 for ``bm25(capture_fts, w_body, w_context)`` over the query words,
each a quoted phrase, best first and ties by chunk id. FTS5 computes, for each phrase in query
order, ``idf * f (k1+1) / (f + k1 (1 - b + b D / avgdl))``, where f adds the caller's weight of
a column once per instance of the phrase in it (body instances first), D is the chunk's
length in tokens over both columns, avgdl the table's tokens per chunk, and idf
``log((N - n + 0.5) / (n + 0.5))`` (1e-6 when not positive) from the chunks holding the phrase.
:func:`exact` is that arithmetic, operation for operation, from the same integers.

Ranking runs as the memory store's (kenning.store.postgres.memory_search): PostgreSQL sums a
chunk's score over the postings of the query terms and returns the best ``n``; that float
depends on the order the plan adds in, so it only narrows. Python scores those candidates
exactly and orders them (ties by id); a chunk left unfetched scores below the last fetched
one's database score times (1 + TOLERANCE), so when the k-th best is clear of that bound the
cut is exact, and otherwise the next round fetches every chunk that could reach it.

A query word the tokenizer splits into several tokens is a phrase whose tokens must follow
one another; postings hold no positions, so a query holding one is ranked over every chunk
that holds all of a phrase's tokens, each counted on its own re-tokenized text (rare: query
words are words already).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg

from kenning.store.indexing import K1, B, idf
from kenning.store.postgres.chunk_terms import phrase_count, phrases, token_columns
from kenning.store.protocol.capture import ChunkFilter

Cursor = psycopg.Cursor[dict[str, Any]]
Row = dict[str, Any]

TOLERANCE = 1e-9
FIRST_ROUND = 2
FIRST_EXTRA = 16

_SCORE = (
    "sum(q.idf * (((p.body_n * %(w0)s + p.context_n * %(w1)s) * %(k1p1)s)"
    " / ((p.body_n * %(w0)s + p.context_n * %(w1)s) + %(k1)s * (%(omb)s + %(b)s * p.length / %(avgdl)s))))"
)


@dataclass(frozen=True)
class Scored:
    row: Row  # the chunk with its session's project_name and title
    score: float


def exact(counts: Sequence[tuple[int, int]], idfs: Sequence[float], length: int, avgdl: float,
          weights: tuple[float, float]) -> float:  # fmt: skip
    """FTS5's bm25() of one chunk: ``counts`` is each phrase's (body, context) instances."""
    w0, w1 = float(weights[0]), float(weights[1])
    score = 0.0
    for (n0, n1), value in zip(counts, idfs, strict=True):
        f = 0.0
        for _ in range(n0):  # FTS5 adds a column's weight once per instance, in position order
            f += w0
        for _ in range(n1):
            f += w1
        score += value * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + B * length / avgdl)))
    return score


def filter_sql(flt: ChunkFilter) -> tuple[str, dict[str, object]]:
    """``flt`` as SQL over alias ``c`` with named parameters ("TRUE" for no filter)."""
    where: list[str] = []
    params: dict[str, object] = {}
    for column, value in (("project", flt.project), ("tool", flt.tool), ("type", flt.type), ("session", flt.session)):
        if value:
            where.append(f"c.{column} = %(f_{column})s")
            params[f"f_{column}"] = value
    if flt.since:
        where.append("c.at >= %(f_since)s")
        params["f_since"] = flt.since
    if flt.until:
        where.append("c.at <= %(f_until)s")
        params["f_until"] = flt.until
    return " AND ".join(where) or "TRUE", params


def rank(cur: Cursor, workspace: str, words: Sequence[str], flt: ChunkFilter, limit: int,
         weights: tuple[float, float]) -> list[Scored]:  # fmt: skip
    """The ``limit`` chunks of ``workspace`` holding any of ``words`` that pass ``flt``, with
    FTS5's BM25 (positive), best first, ties by id."""
    query = phrases(words)
    tokens = sorted({t for p in query for t in p})
    if not tokens or limit <= 0:
        return []
    docs, total, df = _stats(cur, workspace, tokens)
    if docs <= 0 or total <= 0:
        return []
    avgdl = total / docs
    long = {p: _phrase_hits(cur, workspace, p) for p in query if len(p) > 1}
    idfs = [idf(docs, df.get(p[0], 0) if len(p) == 1 else len(long[p]) if p else 0) for p in query]
    where, fparams = filter_sql(flt)

    def best(ids: list[int]) -> list[Scored]:
        rows = _fetch(cur, workspace, ids, where, fparams)
        counts = _counts(cur, workspace, [r["id"] for r in rows], tokens)
        out = []
        for r in rows:
            mine = counts.get(r["id"], {})
            per = [mine.get(p[0], (0, 0)) if len(p) == 1 else long[p].get(r["id"], (0, 0)) if p else (0, 0)
                   for p in query]  # fmt: skip
            out.append(Scored(r, exact(per, idfs, int(r["tokens"]), avgdl, weights)))
        return sorted(out, key=lambda s: (-s.score, s.row["id"]))

    if long:
        # A phrase of several tokens: every chunk holding a query token is a candidate.
        ids = {int(r["chunk"]) for r in cur.execute(
            b"SELECT DISTINCT chunk FROM capture_postings WHERE workspace = %s AND term = ANY(%s)",
            (workspace, [p[0] for p in query if len(p) == 1]))}  # fmt: skip
        for hits in long.values():
            ids.update(hits)
        return best(sorted(ids))[:limit]
    # An empty phrase (a word of no token characters) adds nothing to any chunk.
    singles = [(p[0], idfs[i]) for i, p in enumerate(query) if p]
    base: dict[str, object] = {
        **fparams, "ws": workspace, "terms": [t for t, _ in singles], "idfs": [v for _, v in singles],
        "w0": float(weights[0]), "w1": float(weights[1]), "k1p1": K1 + 1.0, "k1": K1, "omb": 1 - B, "b": B,
        "avgdl": avgdl,
    }  # fmt: skip
    n = limit * FIRST_ROUND + FIRST_EXTRA
    filtered = False
    threshold: float | None = None
    while True:
        top = _top(cur, base, where if filtered else "", n, threshold)
        complete = threshold is not None or len(top) < n
        found = best([int(r["chunk"]) for r in top])
        if complete:
            return found[:limit]
        floor = float(top[-1]["score"])
        if len(found) >= limit and found[limit - 1].score > floor * (1 + TOLERANCE):
            return found[:limit]
        if len(found) >= limit:
            threshold = found[limit - 1].score * (1 - TOLERANCE)  # a near-tie at the cut
            filtered = True
        elif not filtered:
            filtered = True  # the filter left too few: rank only the chunks that pass it
        else:
            n *= 4


def _stats(cur: Cursor, workspace: str, tokens: list[str]) -> tuple[int, int, dict[str, int]]:
    docs = total = 0
    df: dict[str, int] = {}
    rows = cur.execute(
        b"SELECT NULL AS term, docs, tokens FROM capture_index_totals WHERE workspace = %(ws)s UNION ALL"
        b" SELECT term, docs, NULL FROM capture_term_stats WHERE workspace = %(ws)s AND term = ANY(%(terms)s)",
        {"ws": workspace, "terms": tokens},
    ).fetchall()
    for row in rows:
        if row["term"] is None:
            docs, total = int(row["docs"]), int(row["tokens"])
        elif int(row["docs"]) > 0:
            df[row["term"]] = int(row["docs"])
    return docs, total, df


def _top(cur: Cursor, params: dict[str, object], where: str, n: int, threshold: float | None) -> list[Row]:
    join = " JOIN capture_chunks c ON c.workspace = p.workspace AND c.id = p.chunk" if where else ""
    cond = f" WHERE {where}" if where else ""
    having = f" HAVING {_SCORE} >= %(threshold)s" if threshold is not None else ""
    limit = "" if threshold is not None else " LIMIT %(n)s"
    sql = (
        f"SELECT p.chunk, {_SCORE} AS score FROM unnest(%(terms)s::text[], %(idfs)s::float8[]) AS q(term, idf)"
        f" JOIN capture_postings p ON p.workspace = %(ws)s AND p.term = q.term{join}{cond}"
        f" GROUP BY p.chunk{having} ORDER BY score DESC, p.chunk{limit}"
    )
    return cur.execute(sql.encode(), {**params, "n": n, "threshold": threshold}).fetchall()


def _fetch(cur: Cursor, workspace: str, ids: list[int], where: str, params: dict[str, object]) -> list[Row]:
    if not ids:
        return []
    sql = (
        "SELECT c.*, s.project_name, s.title FROM capture_chunks c"
        " JOIN capture_sessions s ON s.workspace = c.workspace AND s.id = c.session"
        f" WHERE c.workspace = %(ws)s AND c.id = ANY(%(ids)s) AND {where}"
    )
    return cur.execute(sql.encode(), {**params, "ws": workspace, "ids": ids}).fetchall()


def _counts(cur: Cursor, workspace: str, ids: list[int], tokens: list[str]) -> dict[int, dict[str, tuple[int, int]]]:
    out: dict[int, dict[str, tuple[int, int]]] = {}
    if not ids:
        return out
    rows = cur.execute(
        b"SELECT chunk, term, body_n, context_n FROM capture_postings"
        b" WHERE workspace = %s AND term = ANY(%s) AND chunk = ANY(%s)",
        (workspace, tokens, ids),
    ).fetchall()
    for r in rows:
        out.setdefault(int(r["chunk"]), {})[r["term"]] = (int(r["body_n"]), int(r["context_n"]))
    return out


def _phrase_hits(cur: Cursor, workspace: str, phrase: tuple[str, ...]) -> dict[int, tuple[int, int]]:
    """Every chunk of the workspace holding ``phrase`` (tokens in a row): its (body, context)
    instance counts."""
    need = sorted(set(phrase))
    rows = cur.execute(
        b"SELECT c.id, c.body, c.context FROM capture_chunks c WHERE c.workspace = %(ws)s AND c.id IN ("
        b" SELECT chunk FROM capture_postings WHERE workspace = %(ws)s AND term = ANY(%(terms)s)"
        b" GROUP BY chunk HAVING count(*) = %(n)s)",
        {"ws": workspace, "terms": need, "n": len(need)},
    ).fetchall()
    columns = token_columns([(r["body"], r["context"]) for r in rows])
    out: dict[int, tuple[int, int]] = {}
    for r, (body, context) in zip(rows, columns, strict=True):
        counts = (phrase_count(body, phrase), phrase_count(context, phrase))
        if counts != (0, 0):
            out[int(r["id"])] = counts
    return out

