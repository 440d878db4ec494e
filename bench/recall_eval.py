"""Recall quality on the recall-eval set, beside FTS5 (words OR-ed, bm25()) and bm25s, per query type.

The set lives outside this repository (bench/recall-eval in the shared data, see _shared_data.py: one-sentence memories of
real projects and agent-phrased queries with graded labels; see its README). Its harness,
score.py, supplies the two baselines and the metrics, so the figures here are the harness's.
kenning is driven the way the harness's adapter drives it: `kenning remember ... --project KEY
--json` per memory and `kenning recall TEXT --json --project KEY -n 8` per query, through the
CLI's own click group in-process.

--cv also cross-validates the decision to answer (recall.EVIDENCE_BAR, NAME_PENALTY,
TECH_PENALTY, WORD_PENALTY): chosen on two projects, measured on the third, for each project
in turn, and prints the figures of the held-out runs beside the in-sample ones.

Run: .venv/bin/python bench/recall_eval.py [--split dev] [--cv] [--no-write]
Writes bench/results/recall.md. Skips (exit 0, with a message) when the set is absent.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import os
import platform
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

from click.testing import CliRunner

from _shared_data import need
from kenning.cli.main import cli
from kenning.config import load_settings
from kenning.core import recall as recall_mod
from kenning.core.service import Core
from kenning.store.protocol import MemoryFilter

RESULTS = Path(__file__).parent / "results" / "recall.md"
TYPES = ["task", "why", "paraphrase", "lookup", "multi", "none"]
K = 8


def load_harness(folder: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("receval_score", folder / "score.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- kenning through the adapter's protocol -------------------------------------------------
def project_key(project: str) -> str:
    return f"receval.local/receval/{project}"


def remember_args(m: dict[str, Any], key: str) -> list[str]:
    args = ["remember", m["text"], "--kind", m["kind"], "--project", key, "--json"]
    for flag, field in (("--reason", "reason"), ("--rejected", "rejected"), ("--subject", "subject"),
                        ("--when", "trigger")):  # fmt: skip
        if m.get(field):
            args += [flag, m[field]]
    for tag in m.get("tags", []):
        args += ["--tag", tag]
    return args


class Kenning:
    """The harness's kenning adapter, in-process: one store per project under a temp folder."""

    name = "kenning"

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.runner = CliRunner()
        self.refs: dict[str, dict[str, list[str]]] = {}
        self.refused: dict[str, dict[str, str]] = {}

    def home(self, project: str) -> Path:
        return self.workdir / project / "home"

    def run(self, project: str, args: list[str]) -> tuple[int, str]:
        result = self.runner.invoke(
            cli, args, env={"KENNING_HOME": str(self.home(project))}, prog_name="kenning"
        )
        if result.exception and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result.exit_code, result.stdout

    def index(self, project: str, memories: list[dict[str, Any]]) -> dict[str, Any]:
        refs: dict[str, list[str]] = defaultdict(list)
        refused: dict[str, str] = {}
        for m in memories:
            code, out = self.run(project, remember_args(m, project_key(project)))
            if code != 0:
                refused[m["id"]] = out.strip()
                continue
            res = json.loads(out)
            if res.get("outcome") in ("stored", "strengthened") and res.get("memory"):
                refs[res["memory"]["ref"]].append(m["id"])
            else:
                refused[m["id"]] = f"outcome {res.get('outcome')}"
        self.refs[project] = refs
        self.refused[project] = refused
        return {"stored": sum(len(v) for v in refs.values()), "refused": refused}

    def query(self, project: str, text: str) -> list[str]:
        code, out = self.run(
            project, ["recall", text, "--json", "--project", project_key(project), "-n", str(K)]
        )
        if code != 0:
            raise RuntimeError(f"kenning recall failed for {text!r}: {out}")
        ids: list[str] = []
        for hit in json.loads(out)["results"]:
            ids += [i for i in self.refs[project].get(hit["ref"], []) if i not in ids]
        return ids


# -- running and tables -----------------------------------------------------------------
@dataclass
class Run:
    name: str
    rows: list[dict[str, Any]]
    index_s: float
    query_s: float
    notes: str = ""
    timed: bool = True


def row(harness: ModuleType, project: str, q: dict[str, Any], ids: list[str]) -> dict[str, Any]:
    """The harness's scoring of one answer."""
    ranked = harness.dedupe(ids)[:10]
    rel = q["relevant"]
    return {"id": q["id"], "project": project, "type": q["type"], "ranked": ranked, "relevant": rel,
            "recall@5": harness.recall_at(ranked, rel), "MRR@10": harness.mrr_at(ranked, rel),
            "nDCG@5": harness.ndcg_at(ranked, rel)}  # fmt: skip


def run_retriever(harness: ModuleType, retriever: Any, mems: dict[str, list[dict[str, Any]]],
                  queries: dict[str, list[dict[str, Any]]]) -> Run:  # fmt: skip
    started = time.process_time()
    info = {p: retriever.index(p, ms) or {} for p, ms in mems.items()}
    index_s = time.process_time() - started
    started = time.process_time()
    rows = [
        row(harness, project, q, retriever.query(project, q["query"]))
        for project, qs in queries.items()
        for q in qs
    ]
    refused = sum(len(i.get("refused") or {}) for i in info.values())
    notes = f"{refused} memories refused" if refused else ""
    return Run(retriever.name, rows, index_s, time.process_time() - started, notes)


def type_table(harness: ModuleType, runs: list[Run]) -> list[str]:
    summaries = {r.name: harness.summarise(r.rows) for r in runs}
    names = [r.name for r in runs]
    lines = ["| query type | n | " + " | ".join(f"{n} recall@5 / MRR@10" for n in names) + " |",
             "|---|---:|" + "---:|" * len(names)]  # fmt: skip
    for t in [*TYPES, "all (excl. none)"]:
        first = summaries[names[0]].get(t)
        if not first:
            continue
        cells = []
        for n in names:
            s = summaries[n][t]
            if t == "none":
                cells.append(f"{s['abstain']:.0%} abstained")
            else:
                cells.append(f"{s['recall@5']:.3f} / {s['MRR@10']:.3f}")
        label = f"**{t}**" if t.startswith("all") else t
        lines.append(f"| {label} | {first['n']} | " + " | ".join(cells) + " |")
    return lines


def cpu(r: Run) -> str:
    return f"{r.index_s:.1f} s / {r.query_s:.1f} s" if r.timed else "(same run)"


def overall_table(harness: ModuleType, runs: list[Run]) -> list[str]:
    lines = ["| retriever | recall@5 | MRR@10 | nDCG@5 | false-empty | `none` abstained | CPU (index / queries) |",
             "|---|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for r in runs:
        s = harness.summarise(r.rows)
        a, n = s["all (excl. none)"], s.get("none", {"abstain": 0.0})
        lines.append(f"| {r.name} | {a['recall@5']:.3f} | {a['MRR@10']:.3f} | {a['nDCG@5']:.3f} "
                     f"| {a['false_empty']:.1%} | {n['abstain']:.1%} | {cpu(r)} |")  # fmt: skip
    return lines


# -- cross-validation of the decision to answer ---------------------------------------------
@dataclass(frozen=True)
class Decision:
    """What recall weighs to decide whether to answer one query, and what it would answer."""

    project: str
    type: str
    evidence: float
    names: int
    tech: int
    words: int
    row: dict[str, Any]  # the harness's row for the answer recall gives when it answers


@contextmanager
def always_answering() -> Iterator[None]:
    """Recall with a bar nothing fails: its ranking does not depend on the bar."""
    names = ("EVIDENCE_BAR", "NAME_PENALTY", "TECH_PENALTY", "WORD_PENALTY")
    saved = {n: getattr(recall_mod, n) for n in names}
    for n in names:
        setattr(recall_mod, n, float("-inf") if n == "EVIDENCE_BAR" else 0.0)
    try:
        yield
    finally:
        for n, v in saved.items():
            setattr(recall_mod, n, v)


def decisions(
    harness: ModuleType, kenning: Kenning, queries: dict[str, list[dict[str, Any]]]
) -> list[Decision]:
    """What recall weighs for each query and what it answers when it answers, read from the
    stores the run built (nothing recorded)."""
    out = []
    for project, qs in queries.items():
        core = Core.open(load_settings(home=kenning.home(project)))
        try:
            place = core.place(project=project_key(project))
            flt = MemoryFilter(place.workspace, place.reach)
            for q in qs:
                found = recall_mod.look_up(core.store, flt, q["query"], core.now(), None, 60)
                evidence = found.evidence if found.scored else -1.0
                with always_answering():
                    hits = recall_mod.recall(
                        core.store, place, q["query"], core.now(), count=K, record=False
                    ).hits
                ids: list[str] = []
                for hit in hits:
                    ids += [i for i in kenning.refs[project].get(hit.memory.ref, []) if i not in ids]
                out.append(Decision(project, q["type"], evidence, found.unknown_names, found.unknown_tech,
                                    found.unknown_words, row(harness, project, q, ids)))  # fmt: skip
        finally:
            core.close()
    return out


# (EVIDENCE_BAR, NAME_PENALTY, TECH_PENALTY, WORD_PENALTY)
Rule = tuple[float, float, float, float]
GRID: list[Rule] = [
    (bar / 20, name / 4, tech / 4, word / 20)
    for bar, name, tech, word in itertools.product(range(4, 25), range(0, 9), range(0, 13), range(0, 5))
]


def silent(rule: Rule, d: Decision) -> bool:
    return d.evidence < rule[0] + rule[1] * d.names + rule[2] * d.tech + rule[3] * d.words


def rates(rule: Rule, ds: list[Decision]) -> tuple[float, float]:
    """(abstained on `none`, false-empty on the others) under a rule."""
    none = [d for d in ds if d.type == "none"]
    other = [d for d in ds if d.type != "none"]
    return (sum(silent(rule, d) for d in none) / max(1, len(none)),
            sum(silent(rule, d) for d in other) / max(1, len(other)))  # fmt: skip


def choose(ds: list[Decision], max_false_empty: float) -> Rule:
    """The rule that abstains most on `none` with false-empty at most max_false_empty; ties go
    to the lowest bar, then the smallest penalties."""
    scored = [(r, *rates(r, ds)) for r in GRID]
    return max(
        (s for s in scored if s[2] <= max_false_empty),
        key=lambda s: (s[1], -s[0][0], -s[0][1], -s[0][2], -s[0][3]),
    )[0]


def answered(harness: ModuleType, rule: Rule, d: Decision) -> dict[str, Any]:
    if not silent(rule, d):
        return d.row
    return {**d.row, "ranked": [], "recall@5": 0.0, "MRR@10": 0.0, "nDCG@5": 0.0}


def cross_validate(harness: ModuleType, ds: list[Decision], max_false_empty: float) -> tuple[list[str], Run]:
    """The held-out table, and the run whose rows each answer under the rule chosen without
    their project (the cross-validated figures)."""
    projects = sorted({d.project for d in ds})
    current = (
        recall_mod.EVIDENCE_BAR,
        recall_mod.NAME_PENALTY,
        recall_mod.TECH_PENALTY,
        recall_mod.WORD_PENALTY,
    )
    lines = ["Decision to answer (`EVIDENCE_BAR`, `NAME_PENALTY`, `TECH_PENALTY`, `WORD_PENALTY`), chosen on two "
             f"projects to abstain most on `none` with false-empty <= {max_false_empty:.0%} there, measured on the "
             f"third. Shipped: {current}.", "",
             "| held-out project | chosen on the other two | abstained (held out) | false-empty (held out) "
             "| shipped rule on it: abstained / false-empty |", "|---|---|---:|---:|---:|"]  # fmt: skip
    rows: list[dict[str, Any]] = []
    for held in projects:
        train = [d for d in ds if d.project != held]
        test = [d for d in ds if d.project == held]
        rule = choose(train, max_false_empty)
        rows += [answered(harness, rule, d) for d in test]
        ab, fe = rates(rule, test)
        sab, sfe = rates(current, test)
        lines.append(f"| {held} | {rule} | {ab:.0%} | {fe:.1%} | {sab:.0%} / {sfe:.1%} |")
    ab, fe = rates(current, ds)
    lines += ["", f"Shipped rule on all three: {ab:.0%} abstained, {fe:.1%} false-empty."]
    return lines, Run("kenning, held out", rows, 0.0, 0.0, timed=False)


# -- main ---------------------------------------------------------------------------------
@contextmanager
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="kenning-receval-") as tmp:
        yield Path(tmp)


def machine() -> str:
    return (f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"load average {os.getloadavg()[0]:.1f} at the start")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--split", default="dev", help="a folder of the set (default: dev)")
    parser.add_argument("--quick", action="store_true", help="accepted for run_all; the set is small")
    parser.add_argument("--cv", action="store_true", help="also cross-validate the decision to answer")
    parser.add_argument("--max-false-empty", type=float, default=0.02, help="for --cv (default 0.02)")
    parser.add_argument("--no-write", action="store_true", help="print the tables, do not write results")
    args = parser.parse_args(argv)
    folder = need("bench/recall-eval", "the recall-eval set")
    split = folder / args.split
    if not (split / "memories.jsonl").is_file():
        print(f"skipped: the recall-eval set has no split {args.split!r} at {split}")
        return 0
    harness = load_harness(folder)
    mems, queries = harness.load_split(str(split))
    where = machine()
    runs = []
    baselines: list[Callable[[], Any]] = [harness.Fts5Or, harness.Bm25s]
    for make in baselines:
        try:
            runs.append(run_retriever(harness, make(), mems, queries))
        except ImportError:
            print("bm25s is not installed (pip install -e '.[dev]'); its column is left out", file=sys.stderr)
    with workdir() as tmp:
        kenning = Kenning(tmp)
        runs.append(run_retriever(harness, kenning, mems, queries))
        cv: list[str] = []
        if args.cv:
            cv, held_out = cross_validate(harness, decisions(harness, kenning, queries), args.max_false_empty)
            runs.append(held_out)
    n_m = sum(map(len, mems.values()))
    n_q = sum(map(len, queries.values()))
    lines = [
        "# Recall quality (recall-eval)",
        "",
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {where}. Command: "
        f"`python bench/recall_eval.py{' --cv' if args.cv else ''}`",
        "",
        f"The `{args.split}` half of ../shared/bench/recall-eval: {len(mems)} projects, {n_m} memories, {n_q} "
        "agent-phrased queries with graded labels; metrics from its score.py (recall@5 over every "
        "relevant memory, MRR@10 of the first grade-2 memory; `none` queries have no answer and count "
        "only as abstained or not). Baselines in the same run: FTS5 (porter) with every query word "
        "OR-ed, ranked by bm25(); bm25s with English stop words and Snowball stemming. kenning runs "
        "through `kenning remember`/`kenning recall` as the harness's adapter drives it."
        + (
            ' "kenning, held out" is the honest figure: each project\'s queries answered or not under the '
            "decision rule chosen on the other two projects (see below); ranking is the same."
            if args.cv
            else ""
        ),
        "",
        *overall_table(harness, runs),
        "",
        "By query type:",
        "",
        *type_table(harness, runs),
    ]
    notes = [f"{r.name}: {r.notes}" for r in runs if r.notes]
    if notes:
        lines += ["", "Indexing: " + "; ".join(notes) + "."]
    if cv:
        lines += ["", *cv]
    table = "\n".join(lines) + "\n"
    print(table)
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(table, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
