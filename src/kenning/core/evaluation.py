"""The search eval: how well ``recall`` finds what a question needs, per question kind.

Two sources of questions with known answers:

- a **labelled set**: a folder with ``memories.jsonl`` and ``queries.jsonl`` in the format of
  the recall-eval set (each memory has ``id``, ``project``, ``kind``, ``text`` and optionally
  ``reason``, ``rejected``, ``subject``, ``trigger``, ``tags``; each query has ``id``,
  ``project``, ``type``, ``query`` and ``relevant`` {memory id: grade 1 or 2}, empty when
  memory cannot answer). Each project's memories are written into a throwaway store, as
  ``kenning remember`` would, and every query is recalled there;
- the user's **own history**: the queries sessions gave ``recall`` and the memories they then
  cited (:mod:`kenning.capture.recall_history`), recalled again in the real store as of the
  moment they were asked, writing nothing. Split by a hash of each question into a half to
  tune on and a half to report, so a change tuned on one half is judged on the other.

Metrics are those of the recall-eval harness: recall@5 (share of the relevant memories in the
first 5), MRR@10 (1 / rank of the first memory of grade 2, or of any grade when none has 2),
and the share of empty answers: false-empty for questions with an answer, abstained for
``none`` questions.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kenning.clock import Clock, from_iso
from kenning.config import Settings
from kenning.errors import Invalid, NotFound
from kenning.model import Kind, Origin

COUNT = 8
NONE = "none"
ALL = "all"
HALVES = ("tune", "report")
MEMORY_FIELDS = ("id", "project", "kind", "text")
QUERY_FIELDS = ("id", "project", "type", "query", "relevant")


@dataclass(frozen=True)
class Question:
    id: str
    kind: str  # the question's type: task, why, … or none (memory cannot answer)
    project: str
    query: str
    relevant: dict[str, int]  # memory id (or ref) -> grade: 2 the one it needs most, 1 also useful
    at: str = ""  # history: when it was asked


@dataclass(frozen=True)
class Answer:
    question: Question
    ranked: list[str]  # memory ids (or refs), best first

    @property
    def recall_at_5(self) -> float:
        rel = self.question.relevant
        return sum(1 for i in self.ranked[:5] if rel.get(i, 0) >= 1) / len(rel) if rel else 0.0

    @property
    def mrr(self) -> float:
        rel = self.question.relevant
        top = 2 if any(g >= 2 for g in rel.values()) else 1
        return next((1.0 / r for r, i in enumerate(self.ranked[:10], 1) if rel.get(i, 0) >= top), 0.0)


@dataclass(frozen=True)
class KindScore:
    kind: str
    n: int
    recall_at_5: float | None  # None for `none` questions
    mrr: float | None
    empty: float  # false-empty, or for `none` the share abstained


@dataclass(frozen=True)
class Report:
    source: str  # the labelled folder, or "history"
    half: str  # all, tune or report
    scores: list[KindScore]
    answers: list[Answer] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_dict(self, *, details: bool = False) -> dict[str, object]:
        out: dict[str, object] = {
            "source": self.source,
            "half": self.half,
            "kinds": [score.__dict__ for score in self.scores],
            "notes": self.notes,
        }
        if details:
            out["questions"] = [{"id": a.question.id, "kind": a.question.kind, "query": a.question.query,
                                 "relevant": a.question.relevant, "ranked": a.ranked,
                                 "recall@5": a.recall_at_5, "mrr": a.mrr} for a in self.answers]  # fmt: skip
        return out


def score(source: str, half: str, answers: Sequence[Answer], notes: Sequence[str] = ()) -> Report:
    """Per-kind scores in order of first appearance, then ``all`` over the answerable kinds."""
    kinds = list(dict.fromkeys(a.question.kind for a in answers))
    groups = [(k, [a for a in answers if a.question.kind == k]) for k in kinds]
    answerable = [a for a in answers if a.question.kind != NONE]
    if answerable:
        groups.append((ALL, answerable))
    out = []
    for kind, group in groups:
        n = len(group)
        empty = sum(1 for a in group if not a.ranked) / n
        if kind == NONE:
            out.append(KindScore(kind, n, None, None, empty))
        else:
            out.append(KindScore(kind, n, sum(a.recall_at_5 for a in group) / n, sum(a.mrr for a in group) / n, empty))
    return Report(source, half, out, list(answers), list(notes))


def half_of(question_id: str) -> str:
    """tune or report, by a stable hash of the question: the split never moves."""
    return HALVES[hashlib.blake2b(question_id.encode("utf-8"), digest_size=2).digest()[0] & 1]


# -- a labelled set ---------------------------------------------------------------------------
def _jsonl(path: Path, fields: Sequence[str]) -> list[dict[str, object]]:
    if not path.is_file():
        raise NotFound(f"{path} does not exist",
                       fix="point at a folder holding memories.jsonl and queries.jsonl (see kenning eval --help)")  # fmt: skip
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise Invalid(f"{path.name} line {n} is not JSON: {exc}", fix="write one JSON object per line") from exc
        missing = [f for f in fields if not isinstance(row, dict) or f not in row]
        if missing:
            raise Invalid(f"{path.name} line {n} lacks {', '.join(missing)}",
                          fix=f"every line needs {', '.join(fields)}")  # fmt: skip
        rows.append(row)
    if not rows:
        raise Invalid(f"{path} holds no rows", fix="write one JSON object per line")
    return rows


@dataclass(frozen=True)
class LabelledSet:
    memories: list[dict[str, object]]
    questions: list[Question]


def load_labelled(folder: Path) -> LabelledSet:
    """Read and check a labelled set; every error names the file, the line and the fix."""
    if not folder.is_dir():
        raise NotFound(f"{folder} is not a folder",
                       fix="give the folder that holds memories.jsonl and queries.jsonl")  # fmt: skip
    memories = _jsonl(folder / "memories.jsonl", MEMORY_FIELDS)
    kinds = {k.value for k in Kind}
    ids: dict[str, str] = {}
    for m in memories:
        if m["kind"] not in kinds:
            raise Invalid(f"memory {m['id']} has kind {m['kind']!r}", fix=f"use one of {', '.join(sorted(kinds))}")
        if str(m["id"]) in ids:
            raise Invalid(f"memory id {m['id']} appears twice", fix="give every memory its own id")
        ids[str(m["id"])] = str(m["project"])
    questions = []
    for q in _jsonl(folder / "queries.jsonl", QUERY_FIELDS):
        relevant = q["relevant"]
        if not isinstance(relevant, dict) or not all(isinstance(g, int) and g in (1, 2) for g in relevant.values()):
            raise Invalid(f"query {q['id']}: relevant must map memory ids to grade 1 or 2",
                          fix='e.g. "relevant": {"m-001": 2, "m-007": 1}, or {} when nothing answers it')  # fmt: skip
        unknown = [i for i in relevant if ids.get(i) != q["project"]]
        if unknown:
            raise Invalid(f"query {q['id']} names memories not in project {q['project']}: {', '.join(unknown[:3])}",
                          fix="label only memories of the query's own project")  # fmt: skip
        kind = str(q["type"]) if relevant else NONE
        questions.append(Question(str(q["id"]), kind, str(q["project"]), str(q["query"]),
                                  {str(i): int(g) for i, g in relevant.items()}))  # fmt: skip
    return LabelledSet(memories, questions)


def run_labelled(folder: Path, clock: Clock | None = None, *, half: str = ALL,
                 progress: Callable[[int, int], None] | None = None) -> Report:  # fmt: skip
    """Write each project's memories into a throwaway store, recall every question there."""
    from kenning.core.remember import RememberRequest
    from kenning.core.service import Core
    from kenning.domain.write_rules import parse_trigger

    data = load_labelled(folder)
    questions = [q for q in data.questions if half == ALL or half_of(q.id) == half]
    notes: list[str] = []
    answers: list[Answer] = []
    done, total = 0, len(data.memories) + len(questions)
    with tempfile.TemporaryDirectory(prefix="kenning-eval-") as tmp:
        for n, project in enumerate(dict.fromkeys(str(m["project"]) for m in data.memories)):
            core = Core.open(Settings(home=Path(tmp) / f"project-{n}"), clock)
            try:
                place = core.place(project=f"eval.local/{project}")
                ids: dict[str, list[str]] = {}
                for m in (m for m in data.memories if m["project"] == project):
                    request = RememberRequest(
                        text=str(m["text"]), kind=Kind(str(m["kind"])), reason=str(m.get("reason") or ""),
                        rejected=str(m.get("rejected") or ""), subject=str(m.get("subject") or ""),
                        when=parse_trigger(str(m["trigger"])) if m.get("trigger") else None,
                        tags=tuple(str(t) for t in m.get("tags") or []),  # type: ignore[attr-defined]
                        origin=Origin.PERSON, source="eval",
                    )  # fmt: skip
                    try:
                        if request.kind is Kind.DECISION:
                            result = core.record_decision(place, request).remembered
                        else:
                            result = core.remember(place, request)
                    except (Invalid, NotFound) as error:
                        notes.append(f"memory {m['id']} refused: {error}")
                        continue
                    if result.memory is None or result.outcome not in ("stored", "strengthened"):
                        notes.append(f"memory {m['id']}: {result.outcome}")
                        continue
                    ids.setdefault(result.memory.ref, []).append(str(m["id"]))
                    done += 1
                    if progress:
                        progress(done, total)
                for q in (q for q in questions if q.project == project):
                    hits = core.recall(place, q.query, count=COUNT, record=False).hits
                    ranked: list[str] = []
                    for h in hits:
                        ranked += [i for i in ids.get(h.memory.ref, []) if i not in ranked]
                    answers.append(Answer(q, ranked))
                    done += 1
                    if progress:
                        progress(done, total)
            finally:
                core.close()
    return score(str(folder), half, answers, notes)


# -- the user's own history ------------------------------------------------------------------
def history_questions(core: object) -> list[Question]:
    """Each recall a captured session made and then cited memories after, as a question whose
    relevant memories are those it cited (grade 2) that existed when it was asked."""
    from kenning.capture.recall_history import recall_calls
    from kenning.core.service import Core

    assert isinstance(core, Core)
    out = []
    for call in recall_calls(core.stores.capture, core.workspace, core.store.all_uses(core.workspace)):
        relevant = {}
        for ref in call.cited:
            memory = core.store.get(core.workspace, ref)
            if memory is None or memory.workspace != core.workspace:
                continue
            if call.at and memory.created_at > from_iso(call.at):
                continue  # written after the question: recall then could not have found it
            relevant[ref] = 2
        if relevant:
            qid = f"{call.session}@{call.at}:{call.query}"
            out.append(Question(qid, "history", call.project, call.query, relevant, call.at))
    return out


def run_history(core: object, *, half: str = "report") -> Report:
    """Recall each question of the user's history again, as of when it was asked, writing nothing."""
    from kenning.core.service import Core

    assert isinstance(core, Core)
    questions = history_questions(core)
    picked = [q for q in questions if half == ALL or half_of(q.id) == half]
    answers = []
    for q in picked:
        place = core.place(project=q.project)
        hits = core.recall(place, q.query, as_of=q.at or None, count=COUNT, record=False).hits
        answers.append(Answer(q, [h.memory.ref for h in hits]))
    notes = [f"{len(questions)} recalls followed by a citation in captured sessions; {len(picked)} in this half"]
    if not questions:
        notes.append("capture your agents' sessions first (kenning sessions sync); sessions must call recall "
                     "and cite memories by ref (remember used=[…], or m:… in their replies)")
    return score("history", half, answers, notes)
