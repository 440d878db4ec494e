"""Session end: the session's decisions, the user's corrections and its outcome become facts.

Only what the user said or confirmed counts as decided. An assistant line ("Let me check X",
"I'll run the tests") is never a decision; an assistant proposal counts only when the user's
next message confirms it ("yes", "sounds good, go ahead"). Facts are written multi-valued
(a project has many decisions) and never twice; the outcome is single-valued per project
(the newest session's outcome replaces the last one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kenning.clock import Clock, to_iso
from kenning.config import Settings
from kenning.context import resume as resume_mod
from kenning.errors import NotFound
from kenning.graph import facts
from kenning.graph.extract import _DOUBT, _PROPOSAL, CONFIRM, apply, extract_turns, mentions, sentences
from kenning.store.sqlite.db import Database
from kenning.store.sqlite.graph_store import GraphStore

MAX_DECISIONS = 12
MAX_CORRECTIONS = 6
MAX_LEN = 200

_DECISION = re.compile(
    r"\b(?:we(?:'ve| have)? (?:decided|agreed|settled on|chose|picked|went with)|i(?:'ve| have)? decided"
    r"|decided (?:to|on|against)|let'?s (?:not )?\w+"
    r"|we(?:'ll| will) (?:use|go with|stick with|keep|drop|ship|pin)|(?:we're|we are) going (?:to|with)"
    r"|(?:we're|we are|i'm|i am) (?:moving|migrating|switching)\b|replace \S+(?: \S+)? with"
    r"|from now on|going forward|go with|i want (?:us |you )?to use|(?:always|never) use|don'?t ever use"
    r"|the decision (?:is|was)|decision:|use \S+(?: \S+)? (?:instead of|rather than|over)\b)",
    re.IGNORECASE,
)
# "Use Pydantic models for ...": an imperative choice of a named technology.
_IMPERATIVE = re.compile(r"^(?:please\s+)?(?:use|adopt|switch to|migrate to|move to|stick with|keep using)\s+",
                         re.IGNORECASE)
# Tentative or exploratory lines that look like decisions but decide nothing.
_NOT_DECISION = re.compile(
    r"\b(?:let'?s (?:see|check|look|try|run|debug|figure|find|start|continue|test|verify|investigate|think|wait)"
    r"|if we (?:decide|go with)|whether (?:to|we)|did we decide|have we decided|what did we decide)\b",
    re.IGNORECASE,
)
_CORRECTION_START = re.compile(
    r"^\s*(?:no\b(?![-\s]*(?:problem|worries|thanks|rush|need|hurry))|nope\b|wrong\b|incorrect\b|not quite\b"
    r"|not right\b|that'?s (?:wrong|not (?:it|what|right))|don'?t\b|do not\b|stop\b|undo\b|revert\b|actually,"
    r"|instead,|why did you\b|you didn'?t\b|you forgot\b|you missed\b|you broke\b|wait,)",
    re.IGNORECASE,
)
_CORRECTION_ANY = re.compile(
    r"\b(?:that'?s not what i (?:asked|meant|wanted|said)|you misunderstood|you misread|you ignored my"
    r"|you shouldn'?t have|i (?:said|asked for|told you)\b.{0,60}\bnot\b)",
    re.IGNORECASE,
)
_DONE = re.compile(r"\b(?:done|fixed|implemented|passes|passing|pass now|merged|committed|shipped|complete[d]?|"
                   r"finished|resolved|works now|all set)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Learning:
    predicate: str  # decided | user_corrected | last_session_outcome
    text: str
    at: str
    confidence: float
    turn: int = 0


@dataclass
class Escalation:
    session: str
    project: str
    learnings: list[Learning] = field(default_factory=list)
    added: list[facts.AddResult] = field(default_factory=list)
    extracted: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.session, "project": self.project,
            "learnings": [{"predicate": x.predicate, "text": x.text, "at": x.at} for x in self.learnings],
            "added": [facts.as_dict(a.fact) for a in self.added], "extracted": self.extracted,
        }


def _clip(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= MAX_LEN else text[: MAX_LEN - 1].rsplit(" ", 1)[0] + "…"


def decision_sentences(turns: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str, float]]:
    """(turn, sentence, confidence) for each decision the user made or confirmed."""
    talk = [t for t in turns if t.get("role") in ("user", "assistant") and (t.get("text") or "").strip()]
    found: list[tuple[dict[str, Any], str, float]] = []
    for index, turn in enumerate(talk):
        if turn["role"] == "user":
            for s in sentences(turn["text"]):
                decides = _DECISION.search(s) or (_IMPERATIVE.match(s) and (mentions(s) or "`" in s))
                if s.endswith("?") or _NOT_DECISION.search(s) or not decides:
                    continue
                found.append((turn, s, 0.85))
            continue
        reply = talk[index + 1] if index + 1 < len(talk) else None
        if reply is None or reply["role"] != "user" or not CONFIRM.match(reply["text"]) \
                or _DOUBT.search(reply["text"][:60]):
            continue
        found.extend((reply, s.rstrip("?") + ("." if s.endswith("?") else ""), 0.75) for s in sentences(turn["text"])
                     if _PROPOSAL.search(s) or (_DECISION.search(s) and not _NOT_DECISION.search(s)))
    return found


def corrections(turns: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str]]:
    users = [t for t in turns if t.get("role") == "user" and (t.get("text") or "").strip()]
    out = []
    for turn in users[1:]:  # the first ask corrects nothing
        text = turn["text"].strip()
        if len(text) > 4000 or len(text) < 8:
            continue
        if _CORRECTION_START.match(text) or _CORRECTION_ANY.search(text):
            out.append((turn, text))
    return out


def outcome(state: resume_mod.WorkState) -> str:
    if state.unanswered:
        return f"interrupted: last ask unanswered ({_clip(state.unanswered)[:80]})"
    if state.failing:
        return f"unresolved: {len(state.failing)} failing command(s), last {state.failing[-1][:80]}"
    if state.todos_open:
        return f"in progress: {len(state.todos_open)} todo item(s) open"
    if state.done and _DONE.search(state.done):
        return f"completed: {_clip(state.done)[:120]}"
    return f"ended: {_clip(state.done)[:120]}" if state.done else "ended"


def learn(turns: list[dict[str, Any]], state: resume_mod.WorkState | None) -> list[Learning]:
    seen: set[str] = set()
    out: list[Learning] = []
    for turn, sentence, conf in decision_sentences(turns):
        key = sentence.lower()
        if key not in seen and sum(1 for x in out if x.predicate == "decided") < MAX_DECISIONS:
            seen.add(key)
            out.append(Learning("decided", _clip(sentence), turn.get("at", ""), conf, int(turn.get("id", 0))))
    for turn, text in corrections(turns)[-MAX_CORRECTIONS:]:
        out.append(Learning("user_corrected", _clip(text), turn.get("at", ""), 0.8, int(turn.get("id", 0))))
    if state is not None:
        out.append(Learning("last_session_outcome", outcome(state), state.ended, 0.8))
    return out


def escalate(db: Database, settings: Settings, session_id: str, clock: Clock) -> Escalation:
    """Turn one captured session's decisions, corrections and outcome into facts (idempotent)."""
    row = db.one("SELECT * FROM capture_sessions WHERE id = ? OR id LIKE ? ORDER BY last_at DESC LIMIT 1",
                 (session_id, "%:" + session_id.replace("%", "")))
    if row is None:
        raise NotFound(f"no captured session {session_id!r}",
                       fix="run kenning sync first, then pass the session id (as kenning sessions lists it)")
    sid, project, name, workspace = row["id"], row["project"], row["project_name"], row["workspace"]
    result = Escalation(sid, project)
    if not project:
        return result
    turns = [dict(r) for r in db.query(
        "SELECT id, role, text, at FROM capture_turns WHERE session = ? AND subagent = '' ORDER BY at, id", (sid,))]
    src = db.one("SELECT source FROM capture_turns WHERE session = ? ORDER BY id DESC LIMIT 1", (sid,))
    path = Path(str(src["source"])) if src else None
    state = resume_mod.from_transcript(path, row["tool"]) if path is not None and path.is_file() \
        and row["tool"] in ("claude-code", "codex") else None
    if state is not None and not state.ended:
        state.ended = row["last_at"]
    result.learnings = learn(turns, state)
    # The sync's extraction may not have run yet (the hook fires as the session ends).
    result.extracted = len(apply(db, clock, workspace, project, name, sid, extract_turns(turns),
                                 default_at=row["first_at"]))
    for item in result.learnings:
        added = facts.add(
            db, clock, workspace, project, item.predicate, item.text, project=project, object_kind="text",
            valid_from=item.at or row["last_at"] or None, confidence=item.confidence, origin="escalated",
            session=sid, person="user" if item.predicate != "last_session_outcome" else "",
            subject_type="project", subject_name=name,
        )
        if added.added:
            result.added.append(added)
    facts_done = db.one("SELECT max(id) AS m FROM capture_turns WHERE session = ?", (sid,))
    GraphStore(db).set_progress(sid, "escalate", int(facts_done["m"] or 0) if facts_done else 0,
                                to_iso(clock.now()))
    return result
