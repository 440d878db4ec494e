"""Needs review: contradictions of a firmer memory and proposed merges, retirements and
lessons. Nothing here changes memory until a person resolves an item; an "accept all" is
one batch that can be undone."""

from __future__ import annotations

import secrets
from dataclasses import replace
from datetime import datetime
from typing import Any

from kenning.core.curation import bring_back, fetch
from kenning.core.remember import RememberRequest, remember, supersede
from kenning.core.scopes import Place
from kenning.domain import write_rules as rules
from kenning.errors import Invalid, NotFound, Refused
from kenning.ids import normalize_ref
from kenning.model import Kind, MemoryEvent, Origin, ReviewItem, Status, Trigger
from kenning.store.protocol import MemoryStore

CHOICES = {
    "contradiction": ("keep-existing", "replace", "keep-both"),
    "merge": ("accept", "dismiss"),
    "retire": ("accept", "dismiss"),
    "lesson": ("accept", "dismiss"),
}


def propose(store: MemoryStore, place: Place, kind: str, refs: list[str], now: datetime, *, text: str = "",
            when: Trigger | None = None, why: str = "", proposed_by: str = "agent") -> ReviewItem:  # fmt: skip
    """``propose_memory_change``: changes nothing; the proposal waits in Needs review."""
    if kind not in ("merge", "retire", "lesson"):
        raise Invalid(f"change type {kind!r} is unknown", fix="use merge, retire or lesson")
    if not refs:
        raise Invalid("no refs given", fix="list the refs the change is about")
    normal = [normalize_ref(r) for r in refs]
    for ref in normal:
        memory = store.get(place.workspace, ref)
        if memory is None or memory.workspace != place.workspace or memory.scope not in place.reach:
            raise Refused(
                f"{ref} is not a memory of this project",
                fix="propose changes only for refs that list_memories returned here",
            )
    if kind in ("merge", "lesson") and not text.strip():
        raise Invalid(f"a {kind} needs the new text", fix="give the one sentence that replaces the refs")
    if kind == "merge" and len(normal) < 2:
        raise Invalid("a merge needs at least two refs", fix="list every ref the merged sentence replaces")
    if kind == "lesson" and when is None:
        raise Invalid(
            "a lesson proposal needs a trigger", fix='give when, e.g. "shell:^npm publish" or "edit:db/**"'
        )
    if when is not None:
        rules.check_trigger(when)
    payload: dict[str, Any] = {"text": text.strip(), "why": why, "trigger": when.to_text() if when else ""}
    return store.add_review(
        ReviewItem(0, place.workspace, place.project, kind, payload, proposed_by, now, refs=tuple(normal))
    )


def _effects(item: ReviewItem) -> dict[str, list[str]]:
    eff = item.payload.get("effects")
    return eff if isinstance(eff, dict) else {"created": [], "retired": [], "superseded": []}


def resolve(
    store: MemoryStore, place: Place, review_id: int, choice: str, now: datetime, *, batch: str = ""
) -> ReviewItem:
    item = store.review(place.workspace, review_id)
    if item is None or item.workspace != place.workspace:
        raise NotFound(f"no review item {review_id}", fix="list them with: kenning memory review")
    if item.resolved_at is not None:
        raise Refused(
            f"review item {review_id} was already resolved ({item.resolution})", fix="nothing to do"
        )
    if choice not in CHOICES[item.kind]:
        raise Invalid(
            f"{choice!r} does not resolve a {item.kind}", fix=f"choose one of {', '.join(CHOICES[item.kind])}"
        )
    effects: dict[str, list[str]] = {"created": [], "retired": [], "superseded": []}
    p = item.payload
    with store.transaction():
        if item.kind == "contradiction" and choice != "keep-existing":
            trigger = Trigger.from_text(str(p["trigger"])) if p.get("trigger") else None
            # An accepted proposal is never filtered: it is written as the person's choice.
            memory = _write_direct(store, place, item.scope, str(p["text"]), Kind(str(p["kind"])), str(p.get("reason", "")),
                                   str(p.get("subject", "")), Origin(str(p["origin"])), str(p.get("source", "")),
                                   float(str(p["confidence"])), trigger, str(p.get("session", "")), now)  # fmt: skip
            effects["created"].append(memory)
            if choice == "replace":
                old = fetch(store, place.workspace, str(p["existing"]))
                if old.status is Status.ACTIVE:
                    supersede(store, old, memory, now)
                    effects["superseded"].append(old.ref)
        elif item.kind in ("merge", "lesson") and choice == "accept":
            trigger = Trigger.from_text(str(p["trigger"])) if p.get("trigger") else None
            kinds = {fetch(store, place.workspace, r).kind for r in item.refs}
            kind = Kind.LESSON if item.kind == "lesson" else (kinds.pop() if len(kinds) == 1 else Kind.FACT)
            memory = _write_direct(store, place, item.scope, str(p["text"]), kind, str(p.get("why", "")), "",
                                   Origin.PERSON, item.proposed_by, 0.9, trigger, "", now)  # fmt: skip
            effects["created"].append(memory)
            for ref in item.refs:
                old = fetch(store, place.workspace, ref)
                if old.status is Status.ACTIVE:
                    supersede(store, old, memory, now)
                    effects["superseded"].append(ref)
        elif item.kind == "retire" and choice == "accept":
            for ref in item.refs:
                old = fetch(store, place.workspace, ref)
                if old.status is Status.ACTIVE:
                    store.update(
                        old.evolve(
                            status=Status.RETIRED, status_at=now, status_note=str(p.get("why") or "tidy")
                        )
                    )
                    store.add_event(place.workspace, MemoryEvent(ref, now, "retired", "review"))
                    effects["retired"].append(ref)
        resolved = replace(item, resolved_at=now, resolution=choice, batch=batch,
                           payload={**item.payload, "effects": effects})  # fmt: skip
        store.update_review(resolved)
    return resolved


def _write_direct(store: MemoryStore, place: Place, scope: str, text: str, kind: Kind, reason: str, subject: str,
                  origin: Origin, source: str, confidence: float, trigger: Trigger | None, session: str,
                  now: datetime) -> str:  # fmt: skip
    request = RememberRequest(text=text, kind=kind, reason=reason, subject=subject, origin=Origin.PERSON,
                              source=source, when=trigger, confidence=confidence, session=session)  # fmt: skip
    target = replace(place, project=scope) if scope != place.project else place
    # Written as the person's: the review was their decision, so policy filters do not apply.
    # A near-duplicate would only strengthen; that is fine for an accepted claim.
    result = remember(store, target, request, now, accepted=True)
    if result.memory is None:
        raise Refused("the accepted claim could not be written", fix="write it by hand with kenning remember")
    if origin is not Origin.PERSON and result.outcome == "stored":
        store.update(result.memory.evolve(origin=origin))
    return result.memory.ref


def accept_all(store: MemoryStore, place: Place, now: datetime) -> tuple[str, list[ReviewItem]]:
    """Accept every waiting proposal (contradictions resolve as keep-both) in one batch."""
    batch = "b" + secrets.token_hex(4)
    done = []
    for item in store.reviews(place.workspace, place.reach):
        choice = "keep-both" if item.kind == "contradiction" else "accept"
        done.append(resolve(store, place, item.id, choice, now, batch=batch))
    return batch, done


def undo(store: MemoryStore, place: Place, batch: str, now: datetime) -> list[ReviewItem]:
    """Undo an accept-all: retire what it created, bring back what it retired or replaced."""
    items = [
        i for i in store.reviews(place.workspace, place.reach, open_only=False) if i.batch == batch and batch
    ]
    if not items:
        raise NotFound(f"no batch {batch}", fix="use the batch id that accept-all printed")
    with store.transaction():
        for item in items:
            eff = _effects(item)
            for ref in eff.get("created", []):
                memory = store.get(place.workspace, ref)
                if memory is not None and memory.status is Status.ACTIVE:
                    store.update(
                        memory.evolve(status=Status.RETIRED, status_at=now, status_note=f"undo {batch}")
                    )
                    store.add_event(place.workspace, MemoryEvent(ref, now, "retired", f"undo {batch}"))
            for ref in [*eff.get("retired", []), *eff.get("superseded", [])]:
                memory = store.get(place.workspace, ref)
                if memory is not None and memory.status is not Status.ACTIVE:
                    bring_back(store, place.workspace, ref, now)
            store.update_review(replace(item, resolved_at=None, resolution="", batch="",
                                        payload={k: v for k, v in item.payload.items() if k != "effects"}))  # fmt: skip
    return items
