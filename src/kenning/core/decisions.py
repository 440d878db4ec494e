"""Decisions: a memory plus a decision doc holding the full reasoning and its Outcome.

The same title in the same project (by the same author) replaces the reasoning and keeps
the Outcome lines; a teammate's doc with that title is left alone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from kenning.core.remember import RememberRequest, RememberResult, remember
from kenning.core.scopes import Place
from kenning.domain.lifecycle import HELD_WORDS
from kenning.errors import Invalid
from kenning.model import DecisionDoc, Kind
from kenning.quoting import as_data, by_origin, neutral
from kenning.redacted import Redacted, clip, head, redacted
from kenning.store.protocol import MemoryStore

PENDING = redacted(DecisionDoc.OUTCOME_PENDING)


@dataclass(frozen=True)
class DecisionResult:
    remembered: RememberResult
    doc: DecisionDoc | None


def title_for(text: Redacted) -> Redacted:
    first = text.split(" because ")[0].split(" so that ")[0].strip().rstrip(".")
    # Part of a redacted sentence: a cut of it cannot bring a secret back.
    return clip(redacted(first), 80)


def record(store: MemoryStore, place: Place, request: RememberRequest, now: datetime) -> DecisionResult:
    """Write a decision memory and its doc. ``request.title`` names the doc (default: the sentence)."""
    if request.kind not in (None, Kind.DECISION):
        raise Invalid("record_decision writes decisions only", fix="use remember for other kinds")
    decided = replace(request, kind=Kind.DECISION)
    result = remember(store, place, decided, now)
    memory = result.memory
    if memory is None:
        return DecisionResult(result, None)
    title = head(request.title.strip(), 200, fold=True) if request.title.strip() else title_for(memory.text)
    author = request.source or request.origin.value
    existing = store.decision_doc(place.workspace, memory.scope, title, author)
    if existing is not None:
        doc = DecisionDoc(
            id=existing.id, workspace=existing.workspace, scope=existing.scope, title=title, decision=memory.text,
            reason=memory.reason, rejected=memory.rejected, confidence=memory.confidence,
            source_ref=memory.source_ref, outcome=existing.outcome, memory_ref=memory.ref, author=author,
            created_at=existing.created_at, updated_at=now, area=request.area or existing.area,
        )  # fmt: skip
    else:
        doc = DecisionDoc(
            id=0, workspace=place.workspace, scope=memory.scope, title=title, decision=memory.text,
            reason=memory.reason, rejected=memory.rejected, confidence=memory.confidence,
            source_ref=memory.source_ref, outcome=(PENDING,), memory_ref=memory.ref, author=author,
            created_at=now, updated_at=now, area=request.area,
        )  # fmt: skip
    return DecisionResult(result, store.save_decision_doc(doc))


def add_outcome(store: MemoryStore, doc: DecisionDoc, text: str, now: datetime) -> DecisionDoc:
    """The first line replaces "To be determined."; later lines are added beside it; the
    same line is never written twice."""
    line = redacted(text.strip())
    if not line or line in doc.outcome:
        return doc
    lines = [line] if doc.outcome in ((), (PENDING,)) else [*doc.outcome, line]
    updated = replace(doc, outcome=tuple(lines), updated_at=now)
    store.save_decision_doc(updated)
    return updated


def render(store: MemoryStore, doc: DecisionDoc, *, for_agent: bool) -> str:
    """The doc as text. For an agent or an app, the words of a hidden or held memory read
    ``[held memory]``; the person sees them as written."""
    decision, reason, rejected = str(doc.decision), str(doc.reason), str(doc.rejected)
    memory = store.get(doc.workspace, doc.memory_ref) if doc.memory_ref else None
    if for_agent and memory is not None and (memory.hidden or memory.held):
        decision, reason, rejected = HELD_WORDS, HELD_WORDS if reason else "", HELD_WORDS if rejected else ""
    # For an agent, words someone other than the person wrote are quoted as data.
    origin = memory.origin.value if memory is not None else "agent"

    def words(text: str) -> str:
        return by_origin(text, origin, multiline=True) if for_agent and text not in ("", HELD_WORDS) else text

    lines = [f"# {words(doc.title)}", "", f"Decision: {words(decision)}", f"Why: {words(reason) or '(not given)'}"]
    if rejected:
        lines.append(f"Rejected: {words(rejected)}")
    lines.append(f"Confidence: {doc.confidence:.2f}")
    if doc.source_ref:
        lines.append(f"Source: {neutral(doc.source_ref)}")
    if doc.area:
        lines.append(f"Area: {neutral(doc.area)}")
    if doc.memory_ref:
        lines.append(f"Memory: {doc.memory_ref}")
    # Outcome lines carry pull request titles: other people's words.
    outcome = [line if line == PENDING or not for_agent else as_data(line) for line in doc.outcome]
    lines += ["", "## Outcome", *outcome]
    return "\n".join(lines)
