"""Ranked search over memories for the SQLite store: Okapi BM25 with exact top-k pruning.

FTS5's ``bm25()`` is computed for every row that matches, with no top-k pruning: at 100k
memories a query of a few common words matches ~20k rows and ranking them dominated recall.
:func:`rank` asks FTS5 only for the rows that *could* reach the top ``limit``, in statements
shaped so that FTS5's ``bm25()`` still gives their full score (see :func:`_statements`), with
the term statistics kept in ``memory_term_stats`` (migration m002).

Why the pruning is exact. For a query term t, a memory's BM25 part is
``idf(t) * g(f, D)`` with ``g(f, D) = f (k1+1) / (f + k1 (1 - b + b D / avgdl))``, growing in
the weighted frequency f and shrinking in the length D. The stats keep, per term, the highest
f and the shortest D ever indexed with it (never tightened when a memory changes, so they stay
bounds), hence ``ub(t) = idf(t) * g(max_freq, min_len)`` bounds that part for every memory. A
memory holding the set S of query terms scores below ``ub(S) = sum(ub(t) for t in S)``. Each
round fetches the memories whose ``ub(S)`` lies between a bar tau and the previous bar, and
keeps the best of them that pass the filter; once ``limit`` of those score at least tau,
every memory never fetched has ``ub(S) <= tau`` and so scores strictly less than the k-th
best: it cannot be in the top k. Otherwise tau is lowered (to the k-th best found when there
is one, which makes the next round the last) and the round repeats. When the candidates grow
past ``MAX_CANDIDATES`` the caller ranks every match with ``bm25()`` instead (:func:`rank_fts`).
"""

from __future__ import annotations

import bisect
import math
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kenning.store.indexing import K1, WEIGHTS, B, idf, index_fields, weighted_terms
from kenning.store.sqlite.db import Database

# Past this many candidate rows, ranking every match at once costs less than the rounds.
MAX_CANDIDATES = 6000
# Below this many postings of the query's terms, every match is ranked at once.
RANK_ALL_BELOW = 2000
# Past this many FTS5 statements a round costs more than ranking every match.
MAX_STATEMENTS = 24
ROUNDS = 8
# The first bar, as a share of the best any row could score, and how it falls per round.
START = 0.8
STEP = 0.75
# ub(t) is scaled up by this much so floating-point rounding cannot make a bound fall short.
SLACK = 1.0 + 1e-9


# -- term statistics (kept in step with memory_terms) -------------------------------------
_ADD_TERM = (
    "INSERT INTO memory_term_stats (term, docs, max_freq, min_len) VALUES (?, 1, ?, ?)"
    " ON CONFLICT (term) DO UPDATE SET docs = docs + 1, max_freq = max(max_freq, excluded.max_freq),"
    " min_len = min(min_len, excluded.min_len)"
)
_ADD_TOTAL = (
    "INSERT INTO memory_index_totals (name, value) VALUES (?, ?)"
    " ON CONFLICT (name) DO UPDATE SET value = value + excluded.value"
)


def stats_add(conn: sqlite3.Connection, fields: Sequence[str], sign: int = 1) -> None:
    """Count one memory's stemmed fields in (sign 1) or out of (sign -1) the statistics."""
    freq, length = weighted_terms(fields)
    if sign > 0:
        conn.executemany(_ADD_TERM, [(t, f, length) for t, f in freq.items()])
    else:
        # max_freq and min_len stay as they were: still bounds for the memories left.
        conn.executemany("UPDATE memory_term_stats SET docs = docs - 1 WHERE term = ?", [(t,) for t in freq])
        conn.execute("DELETE FROM memory_term_stats WHERE docs <= 0")
    conn.executemany(_ADD_TOTAL, [("docs", sign), ("tokens", sign * length)])


def reindex(conn: sqlite3.Connection) -> None:
    """Index every memory again with :func:`index_fields` and rebuild the statistics (m003)."""
    rows = conn.execute(
        "SELECT id, text, reason, rejected, tags, subject, trigger, source_ref FROM memories"
    ).fetchall()
    updates = []
    for row in rows:
        trigger = str(row[6] or "").partition(":")[2]
        tags = [t for t in str(row[4]).split(" ") if t]
        updates.append([*index_fields(row[1], row[2], row[3], tags, row[5], trigger, row[7]), row[0]])
    conn.executemany(
        "UPDATE memory_terms SET text = ?, reason = ?, tags = ?, citation = ? WHERE id = ?", updates
    )
    conn.execute("DELETE FROM memory_term_stats")
    conn.execute("DELETE FROM memory_index_totals")
    backfill(conn)


def backfill(conn: sqlite3.Connection) -> None:
    """Build the statistics of every memory already indexed (migration m002)."""
    docs: dict[str, int] = {}
    max_freq: dict[str, float] = {}
    min_len: dict[str, int] = {}
    count = tokens = 0
    for row in conn.execute("SELECT text, reason, tags, citation FROM memory_terms"):
        freq, length = weighted_terms([str(v) for v in row])
        count += 1
        tokens += length
        for t, f in freq.items():
            docs[t] = docs.get(t, 0) + 1
            max_freq[t] = max(max_freq.get(t, 0.0), f)
            min_len[t] = min(min_len.get(t, length), length)
    conn.executemany(
        "INSERT INTO memory_term_stats (term, docs, max_freq, min_len) VALUES (?, ?, ?, ?)",
        [(t, n, max_freq[t], min_len[t]) for t, n in docs.items()],
    )
    if count:
        conn.executemany(
            "INSERT INTO memory_index_totals (name, value) VALUES (?, ?)",
            [("docs", count), ("tokens", tokens)],
        )


@dataclass(frozen=True)
class TermStats:
    docs: int  # memories indexed
    avgdl: float
    df: dict[str, int]
    max_freq: dict[str, float]
    min_len: dict[str, int]


def term_stats(db: Database, terms: Sequence[str]) -> TermStats:
    totals = {r[0]: int(r[1]) for r in db.query("SELECT name, value FROM memory_index_totals")}
    docs = max(0, totals.get("docs", 0))
    rows = db.query(
        f"SELECT term, docs, max_freq, min_len FROM memory_term_stats WHERE term IN ({_in(terms)})",
        list(terms),
    )
    return TermStats(
        docs=docs,
        avgdl=totals.get("tokens", 0) / docs if docs else 0.0,
        df={r[0]: int(r[1]) for r in rows},
        max_freq={r[0]: float(r[2]) for r in rows},
        min_len={r[0]: int(r[3]) for r in rows},
    )


def _in(values: Sequence[object]) -> str:
    return ",".join("?" for _ in values) or "NULL"


# -- ranking ------------------------------------------------------------------------------
def _tf_part(freq: float, length: int, avgdl: float) -> float:
    return (freq * (K1 + 1.0)) / (freq + K1 * (1 - B + B * length / avgdl))


def _phrase(term: str) -> str:
    # Each term is an FTS5 string (a doubled quote escapes a quote), never query syntax.
    return '"' + term.replace('"', '""') + '"'


def _statements(order: list[str], ub: dict[str, float], lo: float, hi: float) -> list[str] | None:
    """FTS5 expressions for the rows whose held query terms S have ``lo < ub(S) <= hi``: one
    per class of rows, the classes disjoint. None when they would be more than MAX_STATEMENTS.

    Each expression names every query term once: among the terms a row must hold (AND), in
    one group of which it holds at least one (OR), or among those it must not hold (NOT). For
    that shape FTS5's bm25() counts every query term the row holds, so the score is the full
    BM25, as ranking the plain OR would give. (In an OR of ANDs a term the row holds can be
    skipped by an AND that failed, and would not count: hence the shape.)"""
    suffix = [0.0] * (len(order) + 1)
    for i in range(len(order) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + ub[order[i]]
    out: list[str] = []

    def emit(held: list[str], group: list[str], absent: list[str]) -> None:
        positive = [_phrase(t) for t in held]
        if group:
            positive.append("(" + " OR ".join(_phrase(t) for t in group) + ")")
        if not positive:
            return  # a row holding no query term never matches
        expression = " AND ".join(positive)
        if absent:
            expression = f"({expression}) NOT ({' OR '.join(_phrase(t) for t in absent)})"
        out.append(expression)

    def walk(i: int, lo: float, hi: float, held: list[str], absent: list[str]) -> None:
        rest = order[i:]
        if len(out) > MAX_STATEMENTS or suffix[i] <= lo or hi < 0:
            return  # no subset of the rest lands in the band
        empty_fits = lo < 0 <= hi
        if not rest:
            if empty_fits:
                emit(held, [], absent)
            return
        smallest = min(ub[t] for t in rest)
        if smallest > lo and suffix[i] <= hi:  # every non-empty subset fits
            emit(held, rest, absent)
            if empty_fits:
                emit(held, [], absent + rest)
            return
        if empty_fits and smallest > hi:  # only the empty subset fits
            emit(held, [], absent + rest)
            return
        walk(i + 1, lo - ub[order[i]], hi - ub[order[i]], [*held, order[i]], absent)
        walk(i + 1, lo, hi, held, [*absent, order[i]])

    walk(0, lo, hi, [], [])
    return out if len(out) <= MAX_STATEMENTS else None


def _snapper(order: list[str], ub: dict[str, float]) -> Callable[[float], float]:
    """Lower a bar to the highest sum of bounds ``ub(S)`` not above it. Rows are fetched when
    their ub(S) exceeds the bar, so both bars fetch the same rows, and the lower one lets a
    round end sooner (its k-th best need only reach the lower bar)."""
    if len(order) > 10:
        return lambda tau: tau
    sums = {0.0}
    for t in order:
        sums |= {s + ub[t] for s in sums}
    levels = sorted(sums)

    def snap(tau: float) -> float:
        return levels[max(0, bisect.bisect_right(levels, tau) - 1)]

    return snap


def rank(
    db: Database, where: str, params: Sequence[object], terms: Sequence[str], limit: int
) -> list[tuple[int, float]] | None:
    """The ``limit`` best (memory id, BM25) among rows passing ``where`` (over alias ``m``),
    best first, ties by id; None when pruning would not pay (rank with FTS5 instead)."""
    stats = term_stats(db, terms)
    present = sorted(t for t in terms if stats.df.get(t, 0) > 0)
    if not present:
        return []
    if len(present) < 2 or sum(stats.df[t] for t in present) <= RANK_ALL_BELOW or stats.avgdl <= 0:
        # One term: every row holding it is a candidate, nothing to prune. Few matches: ranking
        # them all at once costs less than the rounds.
        return None
    weights = {t: idf(stats.docs, stats.df[t]) for t in present}
    # The statistics split the stored fields on spaces, FTS5 tokenizes them: both see the
    # same terms, since the fields are stemmed words joined by single spaces (index_text).
    ub = {t: weights[t] * _tf_part(stats.max_freq[t], stats.min_len[t], stats.avgdl) * SLACK for t in present}
    order = sorted(present, key=lambda t: (-ub[t], t))
    scores: dict[int, float] = {}  # every row fetched, in the filter or not
    allowed: dict[int, bool] = {}  # the filter's verdict, asked only for the best-scored rows
    best: list[tuple[int, float]] = []
    snap = _snapper(order, ub)
    proposed = START * sum(ub.values())
    tau = snap(proposed)
    weights_sql = ", ".join(str(w) for w in WEIGHTS)
    upper = math.inf
    for round_no in range(ROUNDS):
        if round_no == ROUNDS - 1:
            tau = 0.0
        # Each round fetches the band of rows between this bar and the last one (a hair
        # above it, so that rounding cannot leave a row out of both).
        statements = _statements(order, ub, tau, upper)
        if statements is None:
            return None
        upper = tau + 1e-9 * (1.0 + tau)
        if statements:
            room = MAX_CANDIDATES - len(scores)
            rows = db.query(
                " UNION ALL ".join(
                    f"SELECT rowid, bm25(memories_fts, {weights_sql}) FROM memories_fts WHERE memories_fts MATCH ?"
                    for _ in statements
                )
                + " LIMIT ?",
                [*statements, room + 1],
            )
            if len(rows) > room:
                return None
            for rowid, score in rows:
                scores.setdefault(rowid, -score)
            best = _best_allowed(db, where, params, scores, allowed, limit)
        if len(best) >= limit:
            kth = best[-1][1]
            if kth >= tau:
                return best
            tau = snap(kth)  # the next round fetches every row that could beat it, and ends
        elif tau == 0.0:
            return best  # every matching row was scored
        else:
            # Lower the bar geometrically, to the next level that lets in more rows.
            while snap(proposed) >= tau and proposed > 1e-12:
                proposed *= STEP
            tau = snap(proposed) if proposed > 1e-12 else 0.0
    return None


def rank_fts(
    db: Database, where: str, params: Sequence[object], unique: Sequence[str], limit: int
) -> list[tuple[int, float]]:
    """Rank with FTS5's bm25(): for one term, and for the queries pruning cannot narrow."""
    match = " OR ".join('"' + t.replace('"', '""') + '"' for t in unique)
    weights = ", ".join(str(w) for w in WEIGHTS)
    # FTS5 computes bm25() for every match whatever the LIMIT, so rank once, generously,
    # inside FTS (in C), then read the best-ranked ids in chunks, keeping those that pass
    # the scope and status filter. Only when a big ranked list still leaves too few, rank
    # again joined with the filter over every match.
    window = max(limit * 40, 2000)
    ranked = db.query(
        f"SELECT rowid, bm25(memories_fts, {weights}) FROM memories_fts WHERE memories_fts MATCH ?"
        " ORDER BY 2 LIMIT ?",
        [match, window],
    )
    score = {r[0]: -float(r[1]) for r in ranked}
    kept: list[int] = []
    chunk = max(limit * 4, 100)
    for start in range(0, len(ranked), chunk):
        ids = [r[0] for r in ranked[start : start + chunk]]
        # Only ids here: the scope index covers the filter, so no memory row is read yet.
        kept += [r[0] for r in db.query(f"SELECT m.id FROM memories m WHERE m.id IN ({_in(ids)}) AND {where}",
                                             [*ids, *params])]  # fmt: skip
        if len(kept) >= limit:
            break
    if len(kept) < limit and len(ranked) == window:
        rows = db.query(
            f"SELECT m.id, bm25(memories_fts, {weights}) AS score FROM memories_fts"
            f" JOIN memories m ON m.id = memories_fts.rowid"
            f" WHERE memories_fts MATCH ? AND {where} ORDER BY score, m.id LIMIT ?",
            [match, *params, limit],
        )
        return [(r[0], -float(r[1])) for r in rows]
    return sorted(((i, score[i]) for i in kept), key=lambda s: (-s[1], s[0]))[:limit]


def _best_allowed(
    db: Database,
    where: str,
    params: Sequence[object],
    scores: dict[int, float],
    allowed: dict[int, bool],
    limit: int,
) -> list[tuple[int, float]]:
    """The ``limit`` best-scored rows that pass the filter, asking the filter in chunks."""
    ranked = sorted(scores.items(), key=lambda s: (-s[1], s[0]))
    best: list[tuple[int, float]] = []
    chunk = max(2 * limit, 100)
    for start in range(0, len(ranked), chunk):
        part = ranked[start : start + chunk]
        unknown = [i for i, _ in part if i not in allowed]
        if unknown:
            passed = {r[0] for r in db.query(f"SELECT m.id FROM memories m WHERE m.id IN ({_in(unknown)}) AND {where}",
                                             [*unknown, *params])}  # fmt: skip
            allowed.update((i, i in passed) for i in unknown)
        best += [s for s in part if allowed[s[0]]]
        if len(best) >= limit:
            return best[:limit]
    return best
