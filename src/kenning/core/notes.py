"""Notes that an agent or a person writes on purpose: decisions with an area, diary entries,
and small values per project.

A decision recorded with an area closes the earlier decision of that area in the graph: both
memories stay (the history is worth keeping), but only the newest graph fact is current, so a
new session sees one answer. Without an area both stay valid and a session sees both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kenning.clock import parse_as_of, to_iso
from kenning.core.decisions import DecisionResult
from kenning.core.remember import RememberRequest
from kenning.core.scopes import Place
from kenning.core.service import Core
from kenning.errors import Invalid, NotFound
from kenning.graph import facts
from kenning.model import Kind, Origin
from kenning.quoting import as_data, neutral
from kenning.redacted import head, redacted
from kenning.store.protocol import FactRow

DECIDED = "decided"
KEY_RE = re.compile(r"^[A-Za-z0-9_.:\-]{1,64}$")
MAX_VALUE = 2000
MAX_DIARY = 4000


@dataclass(frozen=True)
class RecordedDecision:
    result: DecisionResult
    fact: FactRow | None
    closed: list[FactRow] = field(default_factory=list)


def project_subject(place: Place) -> str:
    return place.name or place.project


def decision_record(
    core: Core, place: Place, text: str, *, area: str = "", reason: str = "", rejected: str = "",
    title: str = "", origin: Origin = Origin.AGENT, source: str = "", session: str = "", person: str = "",
    confidence: str | float | None = None, used: tuple[str, ...] = (), source_ref: str = "",
) -> RecordedDecision:
    """Record a decision (memory + doc) and its graph fact ``<project> decided[area] <text>``."""
    request = RememberRequest(text=text, kind=Kind.DECISION, reason=reason, rejected=rejected, origin=origin,
                              source=source, session=session, title=title, area=area.strip(), used=used,
                              confidence=confidence, branch=place.branch, source_ref=source_ref)
    result = core.record_decision(place, request)
    memory = result.remembered.memory
    if memory is None or result.remembered.outcome == "held_for_review":
        return RecordedDecision(result, None)
    added = facts.add(
        core.stores.graph, core.clock, place.workspace, place.project, DECIDED, memory.text, project=place.project,
        object_kind="text", area=area, confidence=max(0.05, min(1.0, memory.confidence)), origin="recorded",
        session=session, memory_ref=memory.ref, person=person or (source if origin == Origin.PERSON else ""),
        evidence=reason, subject_type="project", subject_name=project_subject(place),
    )
    closed = [f for f in (core.stores.graph.get(place.workspace, i) for i in added.closed) if f is not None]
    return RecordedDecision(result, added.fact, closed)


def graph_decisions(core: Core, place: Place) -> int:
    """Give the graph the decisions recorded by other paths (``kenning decision record
    --area``, MCP ``record_decision``): one fact per decision doc of this project, dated by
    the doc, so a later doc in the same area closes an earlier one. Idempotent; returns how
    many facts were new."""
    added = 0
    docs = sorted((d for d in core.decision_docs(place) if d.scope == place.project), key=lambda d: d.created_at)
    for doc in docs:
        memory = core.store.get(core.workspace, doc.memory_ref) if doc.memory_ref else None
        if memory is None:
            continue
        result = facts.add(
            core.stores.graph, core.clock, place.workspace, place.project, DECIDED, doc.decision, project=place.project,
            object_kind="text", area=doc.area, valid_from=doc.created_at, confidence=max(0.05, min(1.0, doc.confidence)),
            origin="recorded", memory_ref=doc.memory_ref, person=doc.author, evidence=doc.reason,
            subject_type="project", subject_name=project_subject(place),
        )
        added += int(result.added)
    return added


# -- diary --------------------------------------------------------------------------------
def diary_write(core: Core, place: Place, text: str, *, agent: str = "") -> dict[str, Any]:
    """Add a dated entry to an agent's diary for this project (secrets redacted first)."""
    body = redacted(text.strip())
    if not body:
        raise Invalid("the diary entry is empty", fix="write what happened, in a sentence or two")
    if len(body) > MAX_DIARY:
        raise Invalid(f"the diary entry is {len(body)} characters", fix=f"keep an entry under {MAX_DIARY}")
    at = to_iso(core.now())
    who = head(agent.strip(), 80)
    entry_id = core.stores.notes.diary_add(place.workspace, place.project, who, at, body)
    return {"id": entry_id, "at": at, "agent": who, "project": place.project, "text": body}


def diary_read(core: Core, place: Place, *, agent: str = "", since: str = "", limit: int = 20
               ) -> list[dict[str, Any]]:
    """Entries newest first; ``since`` takes a date or a date-time."""
    if not 1 <= limit <= 500:
        raise Invalid(f"limit {limit} is out of range", fix="give a limit from 1 to 500")
    start = ""
    if since:
        moment = parse_as_of(since)
        # A bare date means from the start of that day.
        start = to_iso(moment.replace(hour=0, minute=0, second=0, microsecond=0)) if len(since.strip()) == 10 \
            else to_iso(moment)
    rows = core.stores.notes.diary(place.workspace, place.project, agent.strip(), start, limit)
    # Entries are whoever wrote them's words (any agent may write one): quoted as data.
    return [{"id": r.id, "at": r.at, "agent": neutral(r.agent), "text": as_data(r.text, multiline=True)}
            for r in rows]  # fmt: skip


# -- small values -------------------------------------------------------------------------
def _key(key: str) -> str:
    if not KEY_RE.match(key.strip()):
        raise Invalid(f"key {key!r} is not usable",
                      fix="use 1-64 letters, digits or . _ : - (for example deploy.target)")
    return key.strip()


def set_value(core: Core, place: Place, key: str, value: str) -> dict[str, Any]:
    name = _key(key)
    body = redacted(value)
    if len(body) > MAX_VALUE:
        raise Invalid(f"the value is {len(body)} characters", fix=f"keep values under {MAX_VALUE}; "
                      "write longer text as a memory or a diary entry")
    at = to_iso(core.now())
    core.stores.notes.set_value(place.workspace, place.project, name, body, at)
    return {"key": name, "value": body, "project": place.project, "updated_at": at}


def get_value(core: Core, place: Place, key: str) -> dict[str, Any]:
    name = _key(key)
    row = core.stores.notes.value(place.workspace, place.project, name)
    if row is None:
        known = [r.key for r in core.stores.notes.values(place.workspace, place.project)][:20]
        raise NotFound(f"no value named {name!r} in {place.name or place.project}",
                       fix=("known keys: " + ", ".join(known)) if known else "set one first with: kenning graph value set KEY VALUE")
    return {"key": name, "value": row.value, "project": place.project, "updated_at": row.updated_at}


def list_values(core: Core, place: Place) -> list[dict[str, Any]]:
    return [{"key": r.key, "value": r.value, "updated_at": r.updated_at}
            for r in core.stores.notes.values(place.workspace, place.project)]
