"""Temporal facts ``subject -> predicate -> object`` with provenance and confidence.

Windows are half-open, ``[valid_from, valid_to)``, with full ISO timestamps: at the moment a
new fact closes an old one the new one holds and the old one no longer does, so ``as_of``
never sees both. Adding never closes anything by default (``uses`` has many values); only
``replace=True``, a single-valued predicate, or a decision with an area closes the current
object(s) of the same slot. A fact that is already current (or known over the time it is
added at) is never inserted again, so re-syncing a session adds nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from kenning.clock import Clock, from_iso, parse_as_of, to_iso
from kenning.errors import Invalid, NotFound
from kenning.graph.vocabulary import Vocabulary, load
from kenning.quoting import as_data, neutral
from kenning.redacted import head, one_line, part, redacted
from kenning.store.protocol import FactRow, GraphStore

# Predicates with one value at a time: a new object closes the current one.
SINGLE_VALUED = frozenset({
    "status", "version", "owner", "lead", "default_branch", "deploys_to", "hosted_on", "license",
    "last_session_outcome", "primary_language",
})
ORIGINS = ("asserted", "recorded", "extracted", "escalated")
DIRECTIONS = ("both", "out", "in")
MAX_NAME = 200
MAX_TEXT_OBJECT = 500


@dataclass(frozen=True)
class AddResult:
    fact: FactRow
    added: bool  # False: the same fact was already current (or known at that time)
    closed: list[int] = field(default_factory=list)


def closes_slot(predicate: str, area: str, *, replace: bool = False) -> bool:
    """Whether a new object of this slot ends the current one(s): a single-valued predicate, a
    decision with an area, or an explicit replace. The same rule holds wherever a fact lands
    (added here, pulled by sync, added on the team server)."""
    return replace or predicate in SINGLE_VALUED or bool(area)


def predicate_id(predicate: str) -> str:
    """``Depends On`` -> ``depends_on``; letters, digits, ``_`` and ``.`` only."""
    text = re.sub(r"[\s\-]+", "_", predicate.strip().lower())
    text = re.sub(r"[^a-z0-9_.]", "", text).strip("_")
    if not text or len(text) > 60:
        raise Invalid(f"predicate {predicate!r} is not usable",
                      fix="give a short verb phrase such as uses, depends_on or decided")
    return text


def entity_key(name: str) -> str:
    key = load().canonical(name)
    if not key or len(key) > MAX_NAME:
        raise Invalid(f"entity {name!r} is empty or longer than {MAX_NAME} characters",
                      fix="name the thing in a few words (a project, a tool, a person)")
    return key


def area_id(area: str) -> str:
    return re.sub(r"\s+", " ", area.strip().lower())[:60]


def _when(value: str | datetime | None, clock: Clock) -> str:
    if value is None or value == "":
        return to_iso(clock.now())
    if isinstance(value, datetime):
        return to_iso(value)
    try:
        return to_iso(from_iso(value.strip()))
    except ValueError as exc:
        raise Invalid(f"time {value!r} is not an ISO date-time",
                      fix="give a time like 2026-03-01T14:00:00Z") from exc


def add(
    store: GraphStore, clock: Clock, workspace: str, subject: str, predicate: str, obj: str, *,
    project: str = "", object_kind: str = "entity", area: str = "", valid_from: str | datetime | None = None,
    confidence: float = 1.0, origin: str = "asserted", session: str = "", memory_ref: str = "", person: str = "",
    evidence: str = "", replace: bool = False, subject_type: str = "", object_type: str = "",
    subject_name: str = "",
) -> AddResult:
    """Add one fact (see the module docstring for what closes what)."""
    if object_kind not in ("entity", "text"):
        raise Invalid(f"object_kind {object_kind!r} is unknown", fix="use entity or text")
    if origin not in ORIGINS:
        raise Invalid(f"origin {origin!r} is unknown", fix=f"use one of {', '.join(ORIGINS)}")
    if not 0.0 < confidence <= 1.0:
        raise Invalid(f"confidence {confidence} is out of range", fix="give a number above 0 and at most 1")
    now = to_iso(clock.now())
    # Names and text are redacted before a key is made of them or any part is cut off.
    subject, subject_name = redacted(subject.strip()), redacted(subject_name.strip())
    s_key = entity_key(subject)
    pred = predicate_id(predicate)
    if object_kind == "entity":
        o_name = redacted(obj.strip())
        o_key = entity_key(o_name)
    else:
        o_name = redacted(one_line(obj))
        if not o_name:
            raise Invalid("the object is empty", fix="give the object of the fact")
        o_key = part(o_name, 0, MAX_TEXT_OBJECT)
    slot_area = area_id(area)
    start = _when(valid_from, clock)
    with store.transaction():
        vocab = load()
        store.ensure_entity(workspace, s_key, subject_name or subject, subject_type or _type_of(vocab, subject), now)
        if object_kind == "entity":
            store.ensure_entity(workspace, o_key, o_name, object_type or _type_of(vocab, obj), now)
        known = [f for f in store.same_fact(workspace, s_key, pred, o_key, slot_area)
                 if f.valid_to is None or f.valid_to > start]
        if known:
            return AddResult(known[-1], False)
        closes = closes_slot(pred, slot_area, replace=replace)
        others = [f for f in store.current_in_slot(workspace, s_key, pred, slot_area) if f.object != o_key] \
            if closes else []
        # A current fact that started after this one (an older session synced late) is not
        # closed: this one is stored as already ended when that one began.
        later = sorted(f.valid_from for f in others if f.valid_from > start)
        row = FactRow(0, workspace, project, s_key, pred, o_key, object_kind, slot_area, start,
                      later[0] if later else None, round(confidence, 3), origin, session, memory_ref, person,
                      head(evidence, 400), now)
        fact_id = store.insert(row)
        closed = []
        for other in others:
            if other.valid_from <= start:
                store.close(workspace, other.id, start, fact_id)
                closed.append(other.id)
        fact = store.get(workspace, fact_id)
        assert fact is not None
        return AddResult(fact, True, closed)


def _type_of(vocab: Vocabulary, name: str) -> str:
    term = vocab.lookup(name)
    return term.type if term else "unknown"


def end(store: GraphStore, clock: Clock, workspace: str, fact_id: int, when: str | datetime | None = None) -> FactRow:
    """End a wrong or outdated fact now (or at ``when``); it stays in the timeline."""
    fact = store.get(workspace, fact_id)
    if fact is None:
        raise NotFound(f"fact f:{fact_id} does not exist", fix="list facts with: kenning graph query <entity>")
    stop = _when(when, clock)
    if fact.valid_to is None:
        if stop < fact.valid_from:
            raise Invalid("a fact cannot end before it starts", fix=f"give a time after {fact.valid_from}")
        with store.transaction():
            store.close(workspace, fact_id, stop, None)
    ended = store.get(workspace, fact_id)
    assert ended is not None
    return ended


def query(
    store: GraphStore, workspace: str, entity: str, *, predicate: str = "", as_of: str | datetime | None = None,
    direction: str = "both", project: str = "", limit: int = 200,
) -> list[FactRow]:
    """Facts about ``entity`` (as subject, object or both), newest first. ``as_of`` (a date
    means the end of that day) keeps only facts whose window holds that moment."""
    if direction not in DIRECTIONS:
        raise Invalid(f"direction {direction!r} is unknown", fix="use both, out or in")
    moment = ""
    if isinstance(as_of, datetime):
        moment = to_iso(as_of)
    elif as_of:
        moment = to_iso(parse_as_of(as_of))
    pred = predicate_id(predicate) if predicate else ""
    return store.query(workspace, resolve(store, workspace, entity), predicate=pred, as_of=moment,
                       direction=direction, project=project, limit=limit)  # fmt: skip


def timeline(store: GraphStore, workspace: str, entity: str, limit: int = 500) -> list[FactRow]:
    """Every fact about one entity, oldest first, ended ones included."""
    return store.timeline(workspace, resolve(store, workspace, entity), limit)


def resolve(store: GraphStore, workspace: str, entity: str) -> str:
    """The entity id for a name as a person types it: the id itself, else the one entity shown
    under that name (a project prints as "shop" but is keyed github.com/acme/shop)."""
    key = entity_key(entity)
    if store.entity(workspace, key) is not None:
        return key
    ids = store.entities_named(workspace, key)
    if len(ids) > 1:
        listed = ", ".join(ids[:5])
        raise Invalid(f"{entity!r} is the name of {len(ids)} entities: {listed}",
                      fix=f"give the full id, e.g. kenning graph query {ids[0]}")  # fmt: skip
    return ids[0] if ids else key


def line(fact: FactRow, *, dates: bool = True) -> str:
    """One fact as text, with its id so a wrong line can be found and ended."""
    area = f" [{neutral(fact.area)}]" if fact.area else ""
    text = f"{fact.ref} {neutral(fact.subject_name)} {neutral(fact.predicate)}{area} {_object(fact)}"
    if dates:
        window = fact.valid_from[:16].replace("T", " ")
        window += " → " + (fact.valid_to[:16].replace("T", " ") if fact.valid_to else "now")
        text += f"  ({window})"
    return text


def _object(fact: FactRow) -> str:
    """A text object came from a transcript or an agent: quoted as data. A name: neutral."""
    return as_data(fact.object_name) if fact.object_kind == "text" else neutral(fact.object_name)


def as_dict(fact: FactRow) -> dict[str, object]:
    """A fact as handed out (tools, ``--json``): its words quoted, its names neutral."""
    return {
        "id": fact.ref, "subject": neutral(fact.subject_name), "subject_id": neutral(fact.subject),
        "predicate": fact.predicate, "object": _object(fact),
        "object_id": neutral(fact.object) if fact.object_kind == "entity" else None,
        "object_kind": fact.object_kind, "area": neutral(fact.area), "valid_from": fact.valid_from,
        "valid_to": fact.valid_to, "current": fact.current, "confidence": fact.confidence, "origin": fact.origin,
        "project": fact.project, "session": neutral(fact.session), "memory_ref": fact.memory_ref,
        "person": neutral(fact.person), "evidence": as_data(fact.evidence) if fact.evidence else "",
    }


def parse_fact_ref(value: str) -> int:
    text = value.strip().lower().removeprefix("f:")
    if not text.isdigit():
        raise Invalid(f"{value!r} is not a fact id", fix="fact ids look like f:42")
    return int(text)
