"""``remember``: write one typed memory, deduplicated, after every write rule.

Order of the checks matters: shape rules and policy refuse before anything is read; a
near-duplicate strengthens instead of adding; a contradiction of a firmer memory waits in
Needs review; only then is a memory written (superseding its slot, if it has one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from kenning.core import policy as policy_mod
from kenning.core.citations import fresh_reading
from kenning.core.placements import carry_over
from kenning.core.scopes import Place
from kenning.domain import merge
from kenning.domain import write_rules as rules
from kenning.domain.lifecycle import INDEX_PIN_CAP, withheld
from kenning.errors import Invalid, NotFound
from kenning.ids import new_ref, normalize_ref
from kenning.model import (
    DECISION_CONFIDENCE,
    GLOBAL_SCOPE,
    Kind,
    Memory,
    MemoryEvent,
    Origin,
    ReviewItem,
    Status,
    Trigger,
)
from kenning.redacted import Redacted, one_line, redacted
from kenning.store.protocol import MemoryFilter, MemoryStore, UseRow
from kenning.text import term_set

# The near-duplicate and contradiction rules live in kenning.domain.merge (the server uses them too).
NEAR_DUPLICATE = merge.NEAR_DUPLICATE
CONTRADICTION_OVERLAP = merge.CONTRADICTION_OVERLAP
# Neighbours: search hits (BM25 order) sharing at least this share of the shorter sentence's terms.
NEIGHBOUR_FLOOR = 0.2
MAX_NEIGHBOURS = 3
DEFAULT_CONFIDENCE = {
    Origin.PERSON: 0.9,
    Origin.AGENT: 0.7,
    Origin.AUTOMATION: 0.7,
    Origin.APP: 0.6,
    Origin.WIDGET: 0.5,
}
MAX_TEXT = 2000


@dataclass(frozen=True)
class RememberRequest:
    text: str
    kind: Kind | None = None
    reason: str = ""
    rejected: str = ""
    origin: Origin = Origin.AGENT
    source: str = ""  # the writing tool
    source_ref: str = ""
    subject: str = ""
    when: Trigger | None = None
    replaces: tuple[str, ...] = ()
    index: bool = False
    unindex: str = ""
    global_: bool = False
    used: tuple[str, ...] = ()
    confidence: str | float | None = None
    session: str = ""
    branch: str = ""
    title: str = ""
    area: str = ""
    tags: tuple[str, ...] = ()


Outcome = Literal["stored", "strengthened", "held_for_review", "index_full"]


@dataclass(frozen=True)
class RememberResult:
    outcome: Outcome
    memory: Memory | None
    neighbours: list[Memory] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    unplaced: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    review: ReviewItem | None = None
    index: list[Memory] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def confidence_for(request: RememberRequest, kind: Kind) -> float:
    value = request.confidence
    if isinstance(value, str):
        level = value.strip().lower()
        if level not in DECISION_CONFIDENCE:
            raise Invalid(f"confidence {value!r} is unknown", fix="use high, medium or low")
        return DECISION_CONFIDENCE[level]
    if isinstance(value, int | float):
        if not 0.0 < float(value) <= 1.0:
            raise Invalid(
                f"confidence {value} is out of range", fix="give a number between 0 and 1, or high/medium/low"
            )
        return float(value)
    if kind is Kind.DECISION:
        return DECISION_CONFIDENCE["high"]
    return DEFAULT_CONFIDENCE[request.origin]


def _clean(request: RememberRequest) -> tuple[Redacted, Redacted, Redacted, list[str]]:
    text = one_line(request.text)
    if not text:
        raise Invalid("text is empty", fix="give one self-contained sentence")
    if len(text) > MAX_TEXT:
        raise Invalid(
            f"text is {len(text)} characters long",
            fix=f"keep a memory to one sentence (under {MAX_TEXT} characters); put detail in reason",
        )
    warnings = []
    if len([s for s in text.replace("?", ".").replace("!", ".").split(". ") if s.strip()]) > 2:
        warnings.append("longer than a sentence: memories work best as one self-contained sentence")
    return redacted(text), redacted(request.reason.strip()), redacted(request.rejected.strip()), warnings


def _slot_from_text(store: MemoryStore, place: Place, text: str) -> str:
    """A preference without a subject takes an existing slot only when the text clearly
    names it (every word of the slot's last part is in the text) and only one slot fits."""
    have = term_set(text)
    fits = []
    for slot in store.subjects(place.workspace, [place.project], Kind.PREFERENCE):
        last = slot.split(".")[-1].replace("-", " ").replace("_", " ")
        needed = term_set(last)
        if needed and needed <= have:
            fits.append(slot)
    return fits[0] if len(fits) == 1 else ""


def remember(
    store: MemoryStore, place: Place, request: RememberRequest, now: datetime, *, accepted: bool = False
) -> RememberResult:
    """Write one memory. ``accepted`` marks a claim a person accepted from Needs review:
    it is never filtered by policy and never held for review again."""
    c = checked(store, place, request, accepted=accepted)
    with store.transaction():
        result = _write(store, place, request, now, text=c.text, reason=c.reason, rejected=c.rejected, kind=c.kind,
                        subject=c.subject, scope=c.scope, confidence=c.confidence, trigger=c.trigger,
                        replaces=list(c.replaces), warnings=c.warnings, accepted=accepted)  # fmt: skip
        _record_uses(store, place.workspace, list(c.used), request, now)
    return result


@dataclass(frozen=True)
class Checked:
    """A request that passed every write rule, cleaned (redacted, one line, kind and slot
    settled): what is written, here or by the team server (kenning.server)."""

    text: Redacted
    reason: Redacted
    rejected: Redacted
    kind: Kind
    subject: str
    scope: str
    confidence: float
    trigger: Trigger | None
    used: tuple[str, ...]
    replaces: tuple[str, ...]
    warnings: list[str]


def checked(store: MemoryStore, place: Place, request: RememberRequest, *, accepted: bool = False) -> Checked:
    """The write rules of :func:`remember` that come before any write: shape, trigger, slot,
    policy and confidence. Raises Invalid/Refused with the fix, as remember does."""
    text, reason, rejected, warnings = _clean(request)
    by_person = request.origin is Origin.PERSON
    trigger = request.when
    if trigger is not None:
        rules.check_trigger(trigger)
    subject = request.subject.strip()
    if subject and redacted(subject) != subject:
        warnings.append("the subject held a secret; it was dropped")
        subject = ""
    if subject and not rules.valid_subject(subject):
        warnings.append(
            f"subject {subject!r} is not a slot key (two or more dot-joined parts, no spaces, no date); it was dropped"
        )
        subject = ""
    kind = request.kind or rules.infer_kind(text, trigger, subject)
    if trigger is not None and kind is not Kind.LESSON:
        kind = Kind.LESSON
    rules.check_shape(text, kind=kind, reason=reason, by_person=by_person)
    if kind is Kind.STATE and not subject and not by_person:
        from kenning.errors import Refused

        raise Refused(
            "a state memory needs a subject slot key",
            fix='pass subject, e.g. subject="deploy.staging.state" (two or more dot-joined parts)',
        )
    if kind in (Kind.DECISION, Kind.FACT, Kind.LESSON) and subject:
        warnings.append(f"{kind.value} memories take no slot; subject {subject!r} was dropped")
        subject = ""
    scope = GLOBAL_SCOPE if request.global_ else place.project
    policy = policy_mod.resolve(store, place.workspace, place.project)
    if not accepted:
        policy_mod.check_write(policy, kind=kind, origin=request.origin, origin_tool=request.source,
                           texts=[text, reason, rejected])  # fmt: skip
    if kind is Kind.PREFERENCE and not subject:
        subject = _slot_from_text(store, place, text)
    confidence = confidence_for(request, kind)
    used = tuple(normalize_ref(r) for r in request.used)
    replaces = tuple(normalize_ref(r) for r in request.replaces)
    return Checked(text, reason, rejected, kind, subject, scope, confidence, trigger, used, replaces, warnings)


def _write(
    store: MemoryStore, place: Place, request: RememberRequest, now: datetime, *, text: Redacted, reason: Redacted,
    rejected: Redacted, kind: Kind, subject: str, scope: str, confidence: float, trigger: Trigger | None,
    replaces: list[str], warnings: list[str], accepted: bool = False,
) -> RememberResult:  # fmt: skip
    flt = MemoryFilter(place.workspace, [scope])
    own_terms = term_set(text)
    hits = store.search(flt, list(own_terms), limit=30)
    placed = merge.place(text, kind, subject, confidence, request.origin, [h.memory for h in hits], accepted=accepted)
    if placed.action == "strengthen" and placed.other is not None:
        existing = placed.other
        return RememberResult("strengthened", _strengthen(store, place, existing, request, now, reason),
                              neighbours=_neighbours(own_terms, [h.memory for h in hits], existing.ref), warnings=warnings)  # fmt: skip
    if placed.action == "review" and placed.other is not None:
        existing = placed.other
        item = store.add_review(ReviewItem(
            id=0, workspace=place.workspace, scope=scope, kind="contradiction",
            payload={"text": text, "kind": kind.value, "reason": reason, "rejected": rejected,
                     "subject": subject, "origin": request.origin.value, "source": request.source,
                     "source_ref": request.source_ref, "session": request.session, "branch": request.branch,
                     "confidence": confidence, "trigger": trigger.to_text() if trigger else "",
                     "existing": existing.ref},
            proposed_by=request.source or request.origin.value, created_at=now, refs=(existing.ref,),
        ))  # fmt: skip
        return RememberResult("held_for_review", None, review=item, warnings=warnings)

    # Only a write that pins needs the index; reading every memory on each write costs ~1 s at 10k.
    pinned_now = [m for m in store.find(flt) if m.pinned or m.index_pinned] if request.index else []
    if request.index and len(pinned_now) >= INDEX_PIN_CAP:
        if not request.unindex:
            return RememberResult("index_full", None, index=pinned_now, warnings=[
                *warnings, f"the index holds {INDEX_PIN_CAP} pinned memories; pass unindex=<ref> to make room"])  # fmt: skip
        out = store.get(place.workspace, normalize_ref(request.unindex))
        if out is None or out.scope != scope:
            raise NotFound(
                f"unindex ref {request.unindex} is not in this project's index",
                fix="pick a ref from the index listed in the result",
            )
        store.update(out.evolve(pinned=False, index_pinned=False))
        store.add_event(place.workspace, MemoryEvent(out.ref, now, "unindexed"))

    memory = Memory(
        ref=_fresh_ref(store, place.workspace), workspace=place.workspace, scope=scope, text=text, kind=kind, confidence=confidence,
        origin=request.origin, created_at=now, confirmed_at=now, reason=reason, rejected=rejected, trigger=trigger,
        subject=subject, origin_tool=request.source, session=request.session, branch=request.branch or place.branch,
        index_pinned=request.index, held=request.origin is Origin.WIDGET,
        source_ref=redacted(request.source_ref.strip()), tags=tuple(redacted(t) for t in request.tags),
    )  # fmt: skip
    if memory.source_ref:
        source_hash, citation = fresh_reading(place.root, memory.source_ref)
        memory = memory.evolve(source_hash=source_hash, citation=citation)
    store.insert(memory)
    store.add_event(place.workspace, MemoryEvent(memory.ref, now, "created", request.source or request.origin.value))

    superseded: list[str] = []
    if subject and kind in (Kind.PREFERENCE, Kind.STATE):
        for old in store.by_subject(place.workspace, [scope], subject):
            if old.ref != memory.ref:
                supersede(store, old, memory.ref, now)
                superseded.append(old.ref)
    retired, unplaced = [], []
    for ref in replaces:
        target = store.get(place.workspace, ref)
        if target is None or target.workspace != place.workspace or target.scope not in (scope, place.project):
            unplaced.append(ref)
        elif target.status is Status.ACTIVE:
            supersede(store, target, memory.ref, now)
            retired.append(ref)
    return RememberResult("stored", memory, neighbours=_neighbours(own_terms, [h.memory for h in hits], memory.ref), retired=retired,
                          unplaced=unplaced, superseded=superseded, warnings=warnings)  # fmt: skip


def supersede(store: MemoryStore, old: Memory, by_ref: str, now: datetime) -> None:
    store.update(old.evolve(status=Status.SUPERSEDED, status_at=now, status_note=by_ref))
    store.add_event(old.workspace, MemoryEvent(old.ref, now, "superseded", "", by_ref))
    store.add_event(old.workspace, MemoryEvent(by_ref, now, "replaced", "", old.ref))
    carry_over(store, old, by_ref, now)


def _strengthen(
    store: MemoryStore, place: Place, existing: Memory, request: RememberRequest, now: datetime, reason: Redacted
) -> Memory:
    updated = merge.strengthened(existing, source=request.source, origin=request.origin, reason=reason,
                                 source_ref=redacted(request.source_ref.strip()), now=now)
    echo = merge.is_echo(existing, source=request.source, origin=request.origin)
    if updated.source_ref:
        # Restating the claim takes a fresh reading of the code it cites.
        source_hash, citation = fresh_reading(place.root, updated.source_ref)
        updated = updated.evolve(source_hash=source_hash, citation=citation)
    store.update(updated)
    store.add_event(
        existing.workspace,
        MemoryEvent(
            existing.ref, now, "echoed" if echo else "confirmed", request.source or request.origin.value
        )
    )
    return updated


def _neighbours(own: frozenset[str], hits: list[Memory], exclude: str) -> list[Memory]:
    out = []
    for m in hits:
        other = term_set(m.text)
        overlap = len(own & other) / max(1, min(len(own), len(other)))
        if m.ref != exclude and overlap >= NEIGHBOUR_FLOOR and not withheld(m):
            out.append(m)
    return out[:MAX_NEIGHBOURS]


def _fresh_ref(store: MemoryStore, workspace: str) -> str:
    while True:
        ref = new_ref()
        if store.get(workspace, ref) is None:
            return ref


def _record_uses(store: MemoryStore, workspace: str, refs: list[str], request: RememberRequest, now: datetime) -> None:
    record_uses(store, workspace, refs, session=request.session, tool=request.source, branch=request.branch, now=now)


def record_uses(
    store: MemoryStore, workspace: str, refs: list[str], *, session: str, tool: str, branch: str, now: datetime
) -> list[str]:
    """Count refs that shaped the work as uses; a use wakes a resting memory. Returns unknown refs."""
    unknown = []
    for ref in refs:
        memory = store.get(workspace, ref)
        if memory is None:
            unknown.append(ref)
            continue
        store.update(memory.evolve(last_used_at=now, uses=memory.uses + 1))
        store.add_use(workspace, UseRow(ref, session, tool, branch, now))
    return unknown
