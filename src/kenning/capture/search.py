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
from kenning.store.sqlite.capture_store import CaptureStore, SearchFilters
from kenning.store.sqlite.db import Database
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


def fts_query(terms: list[str]) -> str:
    # Quoted so FTS5 never reads a user's word as an operator (AND, NEAR, column:...).
    return " OR ".join(f'"{t}"' for t in terms)


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


def search(db: Database, query: str, *, workspace: str = "", project: str = "", tool: str = "", type: str = "",
           since: str = "", until: str = "", session: str = "", limit: int = 10,
           now: datetime | None = None) -> list[Hit]:
    terms = query_terms(query)
    if not terms:
        raise Invalid("the query has no words to search for", fix="give a few words, e.g. `kenning sessions search login timezone`")
    if type and type not in TYPES:
        raise Invalid(f"unknown type {type!r}", fix=f"use one of {', '.join(TYPES)}")
    if limit < 1:
        raise Invalid("limit must be at least 1", fix="pass --limit 10")
    filters = SearchFilters(workspace, project, tool, type, _time(since, "since"), _time(until, "until"), session)
    rows = CaptureStore(db).search(fts_query(terms), filters, max(50, limit * CANDIDATES),
                                   weights=(1.0, CONTEXT_WEIGHT))
    if not rows:
        return []
    top = max(-r["rank"] for r in rows) or 1.0
    scored: list[tuple[float, dict[str, Any]]] = []
    for r in rows:
        score = (-r["rank"]) / top
        if r["role"] == "tool":
            score *= TOOL_RESULT_FACTOR
        if now is not None and r["at"]:
            try:
                age = max(0.0, (now - from_iso(r["at"])).total_seconds() / 86400)
                score += RECENCY_WEIGHT * math.exp(-age / RECENCY_DAYS)
            except ValueError:
                pass
        score += IMPORTANCE_WEIGHT * r["importance"] / 5
        scored.append((score, r))
    scored.sort(key=lambda x: -x[0])
    hits: list[Hit] = []
    seen_turns: set[int] = set()
    for score, r in scored:
        if r["turn"] in seen_turns:
            continue
        seen_turns.add(r["turn"])
        hits.append(Hit(r["id"], r["session"], r["turn"], r["role"], r["tool"], r["project"], r["project_name"],
                        r["at"], r["type"], r["importance"], round(score, 4), evidence(r["body"], terms),
                        r["title"] or ""))
        if len(hits) >= limit:
            break
    return hits


def _session_view(meta: dict[str, Any]) -> dict[str, Any]:
    """A session's row as handed out: its title (its first prompt) quoted, names neutral."""
    out = dict(meta)
    if out.get("title"):
        out["title"] = as_data(str(out["title"]))
    for key in ("project_name", "cwd", "branch"):
        if isinstance(out.get(key), str):
            out[key] = neutral(out[key])
    return out


def _turn_view(t: dict[str, Any]) -> dict[str, Any]:
    """A turn as handed out: redacted again (with the current rules), its words quoted as
    data (lines kept), tool inputs quoted, file names neutral."""
    import json

    calls = [{k: (as_data(str(v)) if k == "input" else neutral(str(v))) for k, v in c.items()}
             for c in json.loads(t["tool_calls"]) if isinstance(c, dict)]  # fmt: skip
    return {"turn": t["id"], "role": t["role"], "at": t["at"], "text": as_data(redact(t["text"]), multiline=True) if t["text"] else "",
            "tool_calls": calls, "files": [neutral(str(f)) for f in json.loads(t["files"])],
            "subagent": t["subagent"]}


def show(db: Database, session: str, *, limit: int = 500) -> dict[str, Any]:
    """A captured session, redacted (again, with the current rules), turn by turn."""
    store = CaptureStore(db)
    meta = find_session(db, session)
    turns = store.turns(meta["id"], limit=limit)
    return {"session": _session_view(meta), "turns": [_turn_view(t) for t in turns]}


def context(db: Database, session: str, chunk: int, *, radius: int = 3) -> dict[str, Any]:
    """The turns around a chunk, for reading a search hit in its place."""
    store = CaptureStore(db)
    meta = find_session(db, session)
    row = store.chunk(chunk)
    if row is None or row["session"] != meta["id"]:
        raise NotFound(f"chunk {chunk} is not in session {meta['id']}",
                       fix="use the chunk and session of a `kenning sessions search` result")
    turns = store.turns(meta["id"], around=row["turn"], radius=radius)
    return {"session": _session_view(meta), "chunk": chunk, "turn": row["turn"], "turns": [_turn_view(t) for t in turns]}
