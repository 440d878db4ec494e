"""Compare session search on two capture stores holding the same captured sessions: the store's
BM25 candidates and what ``kenning.capture.search`` (the CLI's ``sessions search``) makes of
them must be the same chunks in the same order, scores within 1e-9.

A chunk is named by what it is, (session, turn uid, part), not by its id: ids are each
engine's own. Used by tests/store/test_session_search_parity.py (a vendored LoCoMo sample) and
bench/recall_parity.py (the LoCoMo development conversations).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kenning.capture import search as capture_search
from kenning.capture.sync import Projects, SyncSummary, discover, sync_file
from kenning.config import Settings
from kenning.core.policy import capture_enabled
from kenning.core.service import Core
from kenning.store.protocol import CaptureStore, ChunkFilter

TOLERANCE = 1e-9
Key = tuple[str, str, int]  # session, turn uid, part


@dataclass
class SessionReport:
    searches: int = 0  # pipeline searches compared
    hits: int = 0  # pipeline hits compared
    candidates: int = 0  # store candidates compared
    max_bm25_diff: float = 0.0
    max_score_diff: float = 0.0  # of the pipeline's (rounded) scores
    differences: list[str] = field(default_factory=list)

    def note(self, what: str) -> None:
        if len(self.differences) < 50:
            self.differences.append(what)

    def summary(self) -> str:
        return (
            f"{self.searches} session searches ({self.hits} hits, {self.candidates} BM25 candidates); largest"
            f" difference of a BM25 score {self.max_bm25_diff:.3g}, of a search score {self.max_score_diff:.3g};"
            f" {len(self.differences)} differences"
        )


class Names:
    """Chunk id -> (session, turn uid, part) of one store."""

    def __init__(self, store: CaptureStore, workspace: str) -> None:
        self.store, self.workspace = store, workspace
        self.uids: dict[int, str] = {}
        for s in store.all_sessions(workspace):
            self.uids.update({t.id: t.uid for t in store.turns(workspace, s.id)})

    def key(self, session: str, turn: int, part: int) -> Key:
        return (session, self.uids.get(turn, f"?{turn}"), part)


def compare(report: SessionReport, a: tuple[CaptureStore, Names], b: tuple[CaptureStore, Names], workspace: str,
            query: str, *, project: str = "", limits: Sequence[int] = (10,), now: datetime) -> None:  # fmt: skip
    """The store's candidates (as the search pipeline asks for them) and the pipeline's hits."""
    (sa, na), (sb, nb) = a, b
    terms = capture_search.query_terms(query)
    if not terms:
        return
    for limit in limits:
        report.searches += 1
        where = f"{query!r} limit {limit}"
        flt = ChunkFilter(project=project)
        want = max(50, limit * capture_search.CANDIDATES)
        weights = (1.0, capture_search.CONTEXT_WEIGHT)
        ca, cb = sa.search(workspace, terms, flt, want, weights), sb.search(workspace, terms, flt, want, weights)
        keys_a = [na.key(h.chunk.session, h.chunk.turn, h.chunk.part) for h in ca]
        keys_b = [nb.key(h.chunk.session, h.chunk.turn, h.chunk.part) for h in cb]
        if keys_a != keys_b:
            report.note(f"candidates {where}: {keys_a[:8]}... != {keys_b[:8]}...")
            continue
        for x, y, k in zip(ca, cb, keys_a, strict=True):
            report.candidates += 1
            diff = abs(x.bm25 - y.bm25)
            report.max_bm25_diff = max(report.max_bm25_diff, diff)
            if diff > TOLERANCE:
                report.note(f"candidates {where} {k}: bm25 {x.bm25!r} != {y.bm25!r}")
            if (x.chunk.body, x.chunk.context, x.project_name, x.title) != (y.chunk.body, y.chunk.context,
                                                                            y.project_name, y.title):  # fmt: skip
                report.note(f"candidates {where} {k}: the chunks differ")
        ha = capture_search.search(sa, workspace, query, project=project, limit=limit, now=now)
        hb = capture_search.search(sb, workspace, query, project=project, limit=limit, now=now)
        keys_a = [na.key(h.session, h.turn, _part(sa, workspace, h.chunk)) for h in ha]
        keys_b = [nb.key(h.session, h.turn, _part(sb, workspace, h.chunk)) for h in hb]
        if keys_a != keys_b:
            report.note(f"search {where}: {keys_a} != {keys_b}")
            continue
        for x, y, k in zip(ha, hb, keys_a, strict=True):
            report.hits += 1
            report.max_score_diff = max(report.max_score_diff, abs(x.score - y.score))
            if abs(x.score - y.score) > TOLERANCE or (x.evidence, x.title, x.at) != (y.evidence, y.title, y.at):
                report.note(f"search {where} {k}: {x} != {y}")


def compare_terms(report: SessionReport, a: tuple[CaptureStore, Names], b: tuple[CaptureStore, Names],
                  workspace: str, terms: Sequence[str], flt: ChunkFilter, limit: int,
                  weights: tuple[float, float]) -> None:  # fmt: skip
    """The store's own search for ``terms`` as given (words the tokenizer may split, weights
    of any value)."""
    (sa, na), (sb, nb) = a, b
    report.searches += 1
    where = f"{list(terms)} {flt} limit {limit} weights {weights}"
    ca, cb = sa.search(workspace, terms, flt, limit, weights), sb.search(workspace, terms, flt, limit, weights)
    keys_a = [na.key(h.chunk.session, h.chunk.turn, h.chunk.part) for h in ca]
    keys_b = [nb.key(h.chunk.session, h.chunk.turn, h.chunk.part) for h in cb]
    if keys_a != keys_b:
        report.note(f"candidates {where}: {keys_a[:8]}... != {keys_b[:8]}...")
        return
    for x, y, k in zip(ca, cb, keys_a, strict=True):
        report.candidates += 1
        report.max_bm25_diff = max(report.max_bm25_diff, abs(x.bm25 - y.bm25))
        if abs(x.bm25 - y.bm25) > TOLERANCE:
            report.note(f"candidates {where} {k}: bm25 {x.bm25!r} != {y.bm25!r}")


def _part(store: CaptureStore, workspace: str, chunk: int) -> int:
    found = store.chunk(workspace, chunk)
    return found.part if found else -1


# -- LoCoMo conversations as Claude Code transcripts ------------------------------------------
def _when(text: str) -> str:
    """'1:56 pm on 8 May, 2023' -> ISO."""
    try:
        return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC).strftime(
            "%Y-%m-%dT%H:%M:%S.000Z")
    except ValueError:
        return ""


def turn_text(turn: dict[str, str]) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        text += f" [shares a photo: {turn['blip_caption']}]"
    return text


def write_transcripts(home: Path, convs: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, str]:
    """One Claude Code transcript per LoCoMo session, in the project folder /locomo/<name>
    (bench/capture_locomo.py reads the same); returns each turn's dia_id -> its session id."""
    where: dict[str, str] = {}
    for name, data in convs:
        conv = data.get("conversation", data)
        folder = home / ".claude" / "projects" / f"-locomo-{name}"
        folder.mkdir(parents=True, exist_ok=True)
        a = conv.get("speaker_a")
        for key, turns in conv.items():
            m = re.fullmatch(r"session_(\d+)", key)
            if not m or not isinstance(turns, list):
                continue
            sid = f"locomo-{name}-s{m.group(1)}"
            when = _when(str(conv.get(f"{key}_date_time", "")))
            lines = []
            for i, turn in enumerate(turns):
                role = "user" if turn["speaker"] == a else "assistant"
                content: object = turn_text(turn)
                if role == "assistant":
                    content = [{"type": "text", "text": content}]
                lines.append(json.dumps({"type": role, "uuid": f"{name}:{turn['dia_id']}", "sessionId": sid,
                                         "cwd": f"/locomo/{name}",
                                         "timestamp": when[:-4] + f"{i % 1000:03d}Z" if when else "",
                                         "message": {"role": role, "content": content}}))  # fmt: skip
                where[f"{name}:{turn['dia_id']}"] = f"claude:{sid}"
            (folder / f"{sid}.jsonl").write_text("\n".join(lines) + "\n")
    return where


def capture(core: Core, home: Path) -> SyncSummary:
    """Every transcript under ``home`` into ``core``'s capture store, as ``sync_all`` does (the
    same sources, rows and order), without the graph extraction that follows it (no store of
    this comparison)."""
    settings = core.settings or Settings(home=home, workspace=core.workspace)
    store, workspace = core.stores.capture, core.workspace
    projects = Projects(core.store, workspace, lambda key: capture_enabled(core.store, workspace, key))
    summary = SyncSummary()
    for source in discover(home, {}):
        sync_file(store, source, settings, core.clock, projects, summary, lambda n, label="": None)
    return summary


def questions(data: dict[str, Any]) -> list[str]:
    return [str(q["question"]) for q in data.get("qa", []) if q.get("question")]
