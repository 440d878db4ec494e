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

from kenning.capture.lookup import find_session
from kenning.capture.workstate import WorkState, from_transcript
from kenning.clock import to_iso
from kenning.core.service import Core
from kenning.graph import facts
from kenning.graph.decide import corrects, decision_sentences
from kenning.graph.extract import apply, extract_turns
from kenning.quoting import as_data

MAX_DECISIONS = 12
MAX_CORRECTIONS = 6
MAX_LEN = 200

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
            "learnings": [{"predicate": x.predicate, "text": as_data(x.text), "at": x.at} for x in self.learnings],
            "added": [facts.as_dict(a.fact) for a in self.added], "extracted": self.extracted,
        }


def _clip(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= MAX_LEN else text[: MAX_LEN - 1].rsplit(" ", 1)[0] + "…"


def corrections(turns: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str]]:
    users = [t for t in turns if t.get("role") == "user" and (t.get("text") or "").strip()]
    out = []
    for turn in users[1:]:  # the first ask corrects nothing
        text = turn["text"].strip()
        if 8 <= len(text) <= 4000 and corrects(text):
            out.append((turn, text))
    return out


def outcome(state: WorkState) -> str:
    if state.unanswered:
        return f"interrupted: last ask unanswered ({_clip(state.unanswered)[:80]})"
    if state.failing:
        return f"unresolved: {len(state.failing)} failing command(s), last {state.failing[-1][:80]}"
    if state.todos_open:
        return f"in progress: {len(state.todos_open)} todo item(s) open"
    if state.done and _DONE.search(state.done):
        return f"completed: {_clip(state.done)[:120]}"
    return f"ended: {_clip(state.done)[:120]}" if state.done else "ended"


def learn(turns: list[dict[str, Any]], state: WorkState | None) -> list[Learning]:
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


def escalate(core: Core, session_id: str) -> Escalation:
    """Turn one captured session's decisions, corrections and outcome into facts (idempotent)."""
    capture, workspace = core.stores.capture, core.workspace
    row = find_session(capture, workspace, session_id)
    turns: list[dict[str, Any]] = [{"id": t.id, "role": t.role, "text": t.text, "at": t.at}
                                   for t in capture.turns(workspace, row.id) if not t.subagent]  # fmt: skip
    last = capture.last_turn(workspace, row.id)
    path = Path(last.source) if last else None
    result = _escalate(core, row.id, row.project, row.project_name, row.tool, turns, path, row.first_at, row.last_at)
    core.stores.graph.set_progress(workspace, row.id, "escalate", last.id if last else 0, to_iso(core.now()))
    return result


def at_session_end(core: Core, tool: str, session_id: str, transcript: str = "", cwd: str = "") -> Escalation | None:
    """For the SessionEnd hook: escalate the session if it is captured, else read its
    transcript directly (the hook may fire before the sync has read the last lines). Returns
    None when there is nothing to read or the project's capture switch is off."""
    prefix = {"claude-code": "claude", "codex": "codex", "gemini": "gemini", "opencode": "opencode"}.get(tool, tool)
    path = Path(transcript) if transcript else None
    captured = core.stores.capture.session(core.workspace, f"{prefix}:{session_id}")
    if captured is not None and (path is None or not path.is_file()):
        return escalate(core, captured.id)
    if path is None or not path.is_file():
        return None
    from kenning.capture.events import SourceFile
    from kenning.capture.sync import SOURCES, turn_text
    from kenning.core.policy import capture_enabled
    from kenning.gitinfo import project_for

    module = SOURCES.get(tool)
    if module is None:
        return None
    events = module.read(SourceFile(tool, path), 0, {}).events
    folder = cwd or next((e.cwd for e in events if e.cwd), "")
    if not folder:
        return None
    info = project_for(Path(folder))
    if not capture_enabled(core.store, core.workspace, info.key):
        return None
    # Redacted before anything is derived from it, exactly as capture does.
    turns = [{"id": i + 1, "role": e.role, "text": turn_text(e)[0], "at": e.time}
             for i, e in enumerate(events) if not e.subagent]
    times = [e.time for e in events if e.time]
    return _escalate(core, f"{prefix}:{session_id}", info.key, info.name, tool, turns, path,
                     min(times, default=""), max(times, default=""))


def _escalate(core: Core, sid: str, project: str, name: str, tool: str, turns: list[dict[str, Any]],
              path: Path | None, first_at: str, last_at: str) -> Escalation:  # fmt: skip
    result = Escalation(sid, project)
    if not project:
        return result
    state = from_transcript(path, tool) if path is not None and path.is_file() \
        and tool in ("claude-code", "codex") else None
    if state is not None and not state.ended:
        state.ended = last_at
    result.learnings = learn(turns, state)
    graph, workspace = core.stores.graph, core.workspace
    # The sync's extraction may not have run yet (the hook fires as the session ends).
    result.extracted = len(apply(graph, core.clock, workspace, project, name, sid, extract_turns(turns),
                                 default_at=first_at))
    for item in result.learnings:
        added = facts.add(
            graph, core.clock, workspace, project, item.predicate, item.text, project=project, object_kind="text",
            valid_from=item.at or last_at or None, confidence=item.confidence, origin="escalated",
            session=sid, person="user" if item.predicate != "last_session_outcome" else "",
            subject_type="project", subject_name=name,
        )
        if added.added:
            result.added.append(added)
    return result
