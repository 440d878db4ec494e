"""Compare two memory stores holding the same memories: what ``search`` returns and what
``recall`` makes of it must be the same refs in the same order with the same scores.

Used by tests/store/test_search_parity.py (vendored and generated data) and by
bench/recall_parity.py (the whole recall-eval development set and LoCoMo).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from kenning.core import recall as recall_mod
from kenning.core.scopes import Place
from kenning.domain.query import parse
from kenning.model import Status
from kenning.store.protocol import Hit, MemoryFilter, MemoryStore

TOLERANCE = 1e-9


@dataclass
class Report:
    """What was compared, and every difference found (empty when the stores agree)."""

    searches: int = 0
    recalls: int = 0
    phrasings: int = 0
    results: int = 0  # recall results compared
    candidates: int = 0  # search hits compared
    max_score_diff: float = 0.0  # over recall's scores and evidence
    max_bm25_diff: float = 0.0  # over the store's own BM25 of its candidates
    differences: list[str] = field(default_factory=list)

    def note(self, what: str) -> None:
        if len(self.differences) < 50:
            self.differences.append(what)

    def score(self, where: str, a: float, b: float, *, bm25: bool = False) -> None:
        diff = abs(a - b)
        if bm25:
            self.max_bm25_diff = max(self.max_bm25_diff, diff)
        else:
            self.max_score_diff = max(self.max_score_diff, diff)
        if diff > TOLERANCE:
            self.note(f"{where}: score {a!r} != {b!r}")

    def summary(self) -> str:
        return (
            f"{self.recalls} recalls ({self.results} results, {self.phrasings} phrasings scored),"
            f" {self.searches} searches ({self.candidates} candidates); largest difference of a recall score"
            f" {self.max_score_diff:.3g}, of a store's BM25 {self.max_bm25_diff:.3g}; {len(self.differences)} differences"
        )


def copy_memories(source: MemoryStore, target: MemoryStore, workspace: str) -> int:
    """Every scope row and memory of ``workspace``, in the order they were written."""
    for scope in source.list_scopes(workspace):
        target.upsert_scope(scope)
    count = 0
    with target.transaction():
        for memory in source.iter_all(workspace):
            target.insert(memory)
            count += 1
    return count


def compare_search(
    report: Report, a: MemoryStore, b: MemoryStore, flt: MemoryFilter, terms: Sequence[str], limit: int
) -> None:
    report.searches += 1
    where = f"search {list(terms)} limit {limit}"
    ha, hb = a.search(flt, terms, limit=limit), b.search(flt, terms, limit=limit)
    _compare_hits(report, where, ha, hb)


def _compare_hits(report: Report, where: str, ha: list[Hit], hb: list[Hit]) -> None:
    refs_a, refs_b = [h.memory.ref for h in ha], [h.memory.ref for h in hb]
    if refs_a != refs_b:
        report.note(f"{where}: refs {refs_a} != {refs_b}")
        return
    for x, y in zip(ha, hb, strict=True):
        report.candidates += 1
        report.score(f"{where} {x.memory.ref}", x.bm25, y.bm25, bm25=True)
        if x.memory != y.memory:
            report.note(f"{where} {x.memory.ref}: the memories differ")
        if (x.terms, list(x.freqs.items()), x.length) != (y.terms, list(y.freqs.items()), y.length):
            report.note(f"{where} {x.memory.ref}: terms, frequencies or length differ")


def compare_recall(
    report: Report, a: MemoryStore, b: MemoryStore, place: Place, query: str, now: datetime, *, count: int = 25
) -> None:
    """``recall`` on both (nothing recorded), then each phrasing's unrounded scores."""
    report.recalls += 1
    ra = recall_mod.recall(a, place, query, now, count=count, record=False)
    rb = recall_mod.recall(b, place, query, now, count=count, record=False)
    refs_a, refs_b = [h.memory.ref for h in ra.hits], [h.memory.ref for h in rb.hits]
    if refs_a != refs_b:
        report.note(f"recall {query!r}: refs {refs_a} != {refs_b}")
    else:
        for x, y in zip(ra.hits, rb.hits, strict=True):
            report.results += 1
            report.score(f"recall {query!r} {x.memory.ref}", x.score, y.score)
            if (x.coverage, x.weak, x.evidence) != (y.coverage, y.weak, y.evidence):
                report.note(f"recall {query!r} {x.memory.ref}: coverage, weak or evidence differ")
    flt = MemoryFilter(place.workspace, place.reach, statuses=(Status.ACTIVE,))
    window = max(count * 4, recall_mod.WINDOW)
    pa = recall_mod.look_up(a, flt, query, now, None, window)
    pb = recall_mod.look_up(b, flt, query, now, None, window)
    report.phrasings += 1
    if (pa.answers, pa.unknown_names, pa.unknown_words) != (pb.answers, pb.unknown_names, pb.unknown_words):
        report.note(f"look_up {query!r}: answers or unknown words differ")
    report.score(f"look_up {query!r} evidence", pa.evidence, pb.evidence)
    if set(pa.scored) != set(pb.scored):
        report.note(f"look_up {query!r}: candidates {sorted(pa.scored)} != {sorted(pb.scored)}")
        return
    for ref, sa in pa.scored.items():
        sb = pb.scored[ref]
        report.score(f"look_up {query!r} {ref}", sa.score, sb.score)
        report.score(f"look_up {query!r} {ref} evidence", sa.evidence, sb.evidence)


def compare_all(
    report: Report, a: MemoryStore, b: MemoryStore, place: Place, queries: Iterable[str], now: datetime,
    *, limits: Sequence[int] = (8, 32),
) -> Report:  # fmt: skip
    """Recall and plain searches (the query's own terms) of every query."""
    flt = MemoryFilter(place.workspace, place.reach, statuses=(Status.ACTIVE,))
    for query in queries:
        compare_recall(report, a, b, place, query, now)
        terms = parse(query).terms()
        if terms:
            for limit in limits:
                compare_search(report, a, b, flt, terms, limit)
    return report
