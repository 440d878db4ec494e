"""Session search: BM25 over chunks (porter-stemmed FTS5), a small recency lift and an
importance lift, answering with the sentence that holds the evidence rather than the chunk's
start. Plain functions: the CLI and the MCP server wrap them (tools ``search``, ``show``,
``context``)."""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from kenning.capture.lookup import find_session
from kenning.clock import from_iso, parse_as_of, to_iso
from kenning.errors import Invalid, NotFound
from kenning.quoting import as_data, neutral
from kenning.redact import redact
from kenning.store.protocol import CaptureStore, ChunkFilter, StoredSession, StoredTurn
from kenning.text import STOP_WORDS, stem, words

RECENCY_WEIGHT = 0.08  # at most this much is added for a chunk written just now
RECENCY_DAYS = 30.0  # e-folding time of the recency lift
IMPORTANCE_WEIGHT = 0.06  # importance 5 adds this much
TOOL_RESULT_FACTOR = 0.5  # tool output matches words but rarely holds the answer
# BM25 weight of the turn before, relative to the chunk's own text. Chosen across LoCoMo's
# conversations (bench/capture_locomo.py): every weight tried raised recall@10 on each one, but
# 0.5 and above also lowered session@5 or temporal recall in two of five; 0.25 in one.
CONTEXT_WEIGHT = 0.25
CANDIDATES = 8  # fetch limit x this many chunks by BM25, then re-rank
TYPES = ("decision", "preference", "milestone", "problem", "discovery", "general")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


@dataclass(frozen=True)
class Hit:
    chunk: int
    session: str
    turn: int
    role: str
    tool: str
    project: str
    project_name: str
    at: str
    type: str
    importance: int
    score: float
    evidence: str
    title: str

    def to_dict(self) -> dict[str, Any]:
        """As handed out (tools, ``--json``): what the session said quoted as data."""
        out = asdict(self)
        out["evidence"] = as_data(self.evidence)
        out["title"] = as_data(self.title) if self.title else ""
        out["project_name"] = neutral(self.project_name)
        return out


def query_terms(query: str) -> list[str]:
    seen: list[str] = []
    for word in words(query):
        if word in STOP_WORDS or len(word) > 64:
            continue
        if word not in seen:
            seen.append(word)
    return seen[:32]


def evidence(body: str, terms: list[str], limit: int = 300) -> str:
    """The sentence of ``body`` sharing the most (stemmed) query terms."""
    wanted = {stem(t) for t in terms}
    best, best_score = "", -1
    for sentence in _SENTENCE.split(body):
        sentence = sentence.strip()
        if not sentence:
            continue
        score = len(wanted & {stem(w) for w in words(sentence)})
        if score > best_score:
            best, best_score = sentence, score
    if len(best) > limit:
        best = best[: limit - 1] + "…"
    return best


def _time(value: str, name: str) -> str:
    """A date means its start for ``since`` and its end for ``until``."""
    if not value:
        return ""
    try:
        if name == "since" and len(value.strip()) == 10:
            return to_iso(from_iso(value.strip() + "T00:00:00"))
        return to_iso(parse_as_of(value))
    except (Invalid, ValueError) as exc:
        raise Invalid(f"{name} {value!r} is not a date", fix="give a date like 2026-03-01") from exc


def search(store: CaptureStore, workspace: str, query: str, *, project: str = "", tool: str = "", type: str = "",
           since: str = "", until: str = "", session: str = "", limit: int = 10,
           now: datetime | None = None) -> list[Hit]:  # fmt: skip
    terms = query_terms(query)
    if not terms:
        raise Invalid("the query has no words to search for", fix="give a few words, e.g. `kenning sessions search login timezone`")
    if type and type not in TYPES:
        raise Invalid(f"unknown type {type!r}", fix=f"use one of {', '.join(TYPES)}")
    if limit < 1:
        raise Invalid("limit must be at least 1", fix="pass --limit 10")
    flt = ChunkFilter(project, tool, type, _time(since, "since"), _time(until, "until"), session)
    found = store.search(workspace, terms, flt, max(50, limit * CANDIDATES), weights=(1.0, CONTEXT_WEIGHT))
    if not found:
        return []
    top = max(h.bm25 for h in found) or 1.0
    scored = []
    for h in found:
        c = h.chunk
        score = h.bm25 / top
        if c.role == "tool":
            score *= TOOL_RESULT_FACTOR
        if now is not None and c.at:
            try:
                age = max(0.0, (now - from_iso(c.at)).total_seconds() / 86400)
                score += RECENCY_WEIGHT * math.exp(-age / RECENCY_DAYS)
            except ValueError:
                pass
        score += IMPORTANCE_WEIGHT * c.importance / 5
        scored.append((score, h))
    scored.sort(key=lambda x: -x[0])
    hits: list[Hit] = []
    seen_turns: set[int] = set()
    for score, h in scored:
        c = h.chunk
        if c.turn in seen_turns:
            continue
        seen_turns.add(c.turn)
        hits.append(Hit(c.id, c.session, c.turn, c.role, c.tool, c.project, h.project_name, c.at, c.type,
                        c.importance, round(score, 4), evidence(c.body, terms), h.title or ""))
        if len(hits) >= limit:
            break
    return hits


def _session_view(meta: StoredSession) -> dict[str, Any]:
    """A session's row as handed out: its title (its first prompt) quoted, names neutral."""
    out: dict[str, Any] = asdict(meta)
    out["title"] = as_data(str(meta.title)) if meta.title else ""
    for key in ("project_name", "cwd", "branch"):
        out[key] = neutral(out[key])
    return out


def _turn_view(t: StoredTurn) -> dict[str, Any]:
    """A turn as handed out: redacted again (with the current rules), its words quoted as
    data (lines kept), tool inputs quoted, file names neutral."""
    calls = [{k: (as_data(v) if k == "input" else neutral(v)) for k, v in c.items()} for c in t.tool_calls]
    return {"turn": t.id, "role": t.role, "at": t.at, "text": as_data(redact(t.text), multiline=True) if t.text else "",
            "tool_calls": calls, "files": [neutral(f) for f in t.files], "subagent": t.subagent}


def show(store: CaptureStore, workspace: str, session: str, *, limit: int = 500) -> dict[str, Any]:
    """A captured session, redacted (again, with the current rules), turn by turn."""
    meta = find_session(store, workspace, session)
    turns = store.turns(workspace, meta.id, limit=limit)
    return {"session": _session_view(meta), "turns": [_turn_view(t) for t in turns]}


def context(store: CaptureStore, workspace: str, session: str, chunk: int, *, radius: int = 3) -> dict[str, Any]:
    """The turns around a chunk, for reading a search hit in its place."""
    meta = find_session(store, workspace, session)
    found = store.chunk(workspace, chunk)
    if found is None or found.session != meta.id:
        raise NotFound(f"chunk {chunk} is not in session {meta.id}",
                       fix="use the chunk and session of a `kenning sessions search` result")
    turns = store.turns(workspace, meta.id)
    index = next((i for i, t in enumerate(turns) if t.id == found.turn), None)
    near = [] if index is None else turns[max(0, index - radius): index + radius + 1]
    return {"session": _session_view(meta), "chunk": chunk, "turn": found.turn, "turns": [_turn_view(t) for t in near]}
