"""Graph facts, diary entries, values and captured sessions as sync records, and back.

Each ``*_body`` makes the record a machine pushes from its local rows; each ``*_of`` reads a
body back, checking every field's type, and raises :class:`kenning.errors.Invalid` naming the
field when one is wrong. The server runs the ``*_of`` of a pushed record before it stores it,
and the client runs it again before it writes a pulled one, so both refuse the same records.

A fact's, diary entry's or value's key is the owning account's id, :data:`records.SEP`, and
an identity made of its content, so the same record pushed again from another machine of the
same account (or after a new login) is the same record, never a second one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from kenning.clock import from_iso
from kenning.core.notes import KEY_RE, MAX_DIARY, MAX_VALUE
from kenning.errors import Invalid
from kenning.graph.facts import ORIGINS
from kenning.store.protocol import EntityRow, FactRow, StoredSession, StoredTurn
from kenning.sync import wire
from kenning.sync.records import SEP

CUT_NOTE = "\n… [cut by kenning sync: {n} more characters]"
MAX_FIELD = 20_000  # a fact's or a session head's single text field


# -- shared checks ------------------------------------------------------------------------------
def _text(body: Mapping[str, Any], name: str, *, limit: int = MAX_FIELD, required: bool = True) -> str:
    value = body.get(name, None if required else "")
    if not isinstance(value, str):
        raise Invalid(f"field {name!r} must be text, not {type(value).__name__}", fix=f"send {name} as a string")
    if len(value) > limit:
        raise Invalid(f"field {name!r} holds {len(value)} characters; the limit is {limit}", fix=f"shorten {name}")
    return value


def _time(body: Mapping[str, Any], name: str, *, required: bool = True) -> str:
    value = _text(body, name, limit=64, required=required)
    if value:
        try:
            from_iso(value)
        except ValueError as exc:
            raise Invalid(f"field {name!r} is not an ISO 8601 time ({value!r})",
                          fix="send times like 2026-03-01T14:00:00Z") from exc  # fmt: skip
    elif required:
        raise Invalid(f"field {name!r} is empty", fix="send an ISO 8601 time")
    return value


def _number(body: Mapping[str, Any], name: str, low: float, high: float) -> float:
    value = body.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise Invalid(f"field {name!r} must be a number from {low} to {high}, not {value!r}", fix=f"send {name}")
    return float(value)


def _count(body: Mapping[str, Any], name: str) -> int:
    value = body.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Invalid(f"field {name!r} must be a whole number ≥ 0, not {value!r}", fix=f"send {name}")
    return value


def identity(*parts: object) -> str:
    """A short stable fingerprint of a record's identifying content."""
    return hashlib.sha256(orjson.dumps(list(parts))).hexdigest()[:32]


def owned_key(account: str, ident: str) -> str:
    return f"{account}{SEP}{ident}"


def owner_of_key(key: str) -> str:
    return key.split(SEP, 1)[0] if SEP in key else ""


# -- graph facts --------------------------------------------------------------------------------
@dataclass(frozen=True)
class SyncedFact:
    """A fact as a record carries it: the row (its local id, ``ended_by`` and workspace are
    this machine's own) and the names and types of its entities."""

    row: FactRow
    subject_name: str
    subject_type: str
    object_name: str
    object_type: str


def fact_body(fact: FactRow, subject: EntityRow | None, obj: EntityRow | None, *, private: bool = False) -> dict[str, Any]:
    """``private``: the fact came from a memory its author hid (or holds): like the memory, it
    reaches the author's machines only, and a teammate sees it removed."""
    return {"private": private, "project": fact.project, "subject": fact.subject, "subject_name": subject.name if subject else fact.subject,
            "subject_type": subject.type if subject else "unknown", "predicate": fact.predicate, "object": fact.object,
            "object_kind": fact.object_kind, "object_name": obj.name if obj else "",
            "object_type": obj.type if obj else "", "area": fact.area, "valid_from": fact.valid_from,
            "valid_to": fact.valid_to, "confidence": fact.confidence, "origin": fact.origin, "session": fact.session,
            "memory_ref": fact.memory_ref, "person": fact.person, "evidence": str(fact.evidence),
            "created_at": fact.created_at}  # fmt: skip


def fact_identity(body: Mapping[str, Any]) -> str:
    """What makes a fact itself (not when it ended, nor how sure it is)."""
    return identity("fact", *(body.get(k) for k in ("project", "subject", "predicate", "object", "object_kind", "area",
                                                     "valid_from", "origin", "session", "memory_ref", "created_at")))  # fmt: skip


def fact_row_identity(fact: FactRow) -> str:
    """:func:`fact_identity` of the record a fact row makes, read off the row (no body built)."""
    return identity("fact", fact.project, fact.subject, fact.predicate, fact.object, fact.object_kind, fact.area,
                    fact.valid_from, fact.origin, fact.session, fact.memory_ref, fact.created_at)  # fmt: skip


def fact_of(body: Mapping[str, Any], workspace: str) -> SyncedFact:
    kind = _text(body, "object_kind", limit=10)
    if kind not in ("entity", "text"):
        raise Invalid(f"field 'object_kind' must be entity or text, not {kind!r}", fix="send entity or text")
    origin = _text(body, "origin", limit=20)
    if origin not in ORIGINS:
        raise Invalid(f"field 'origin' must be one of {', '.join(ORIGINS)}, not {origin!r}", fix="send a known origin")
    if not isinstance(body.get("private", False), bool):
        raise Invalid("field 'private' must be true or false", fix="send private as a boolean")
    valid_to = body.get("valid_to")
    if valid_to is not None:
        valid_to = _time(body, "valid_to")
    subject, predicate, obj = _text(body, "subject", limit=400), _text(body, "predicate", limit=60), _text(body, "object")
    if not subject or not predicate or not obj:
        raise Invalid("a fact needs a subject, a predicate and an object", fix="send all three")
    row = FactRow(
        id=0, workspace=workspace, project=_text(body, "project", limit=1000), subject=subject, predicate=predicate,
        object=obj, object_kind=kind, area=_text(body, "area", limit=60), valid_from=_time(body, "valid_from"),
        valid_to=valid_to, confidence=_number(body, "confidence", 0.0, 1.0), origin=origin,
        session=_text(body, "session", limit=200), memory_ref=_text(body, "memory_ref", limit=64),
        person=_text(body, "person", limit=400), evidence=_text(body, "evidence", limit=4000),  # type: ignore[arg-type]
        created_at=_time(body, "created_at"),
    )  # fmt: skip
    return SyncedFact(row, _text(body, "subject_name", limit=400), _text(body, "subject_type", limit=40),
                      _text(body, "object_name", limit=MAX_FIELD), _text(body, "object_type", limit=40))  # fmt: skip


# -- diary and values ---------------------------------------------------------------------------
def diary_body(project: str, agent: str, at: str, text: str) -> dict[str, Any]:
    return {"project": project, "agent": agent, "at": at, "text": text}


def diary_of(body: Mapping[str, Any]) -> tuple[str, str, str, str]:
    """(project, agent, at, text) of a diary record."""
    text = _text(body, "text", limit=MAX_DIARY * 2)
    if not text.strip():
        raise Invalid("field 'text' is empty", fix="send the diary entry's text")
    return _text(body, "project", limit=1000), _text(body, "agent", limit=200), _time(body, "at"), text


def value_body(project: str, key: str, value: str, updated_at: str) -> dict[str, Any]:
    return {"project": project, "key": key, "value": value, "updated_at": updated_at}


def value_of(body: Mapping[str, Any]) -> tuple[str, str, str, str]:
    """(project, key, value, updated_at) of a value record."""
    key = _text(body, "key", limit=64)
    if not KEY_RE.match(key):
        raise Invalid(f"field 'key' {key!r} is not a value name", fix="letters, digits and _ . : - only, at most 64")
    return _text(body, "project", limit=1000), key, _text(body, "value", limit=MAX_VALUE * 2), _time(body, "updated_at")


# -- captured sessions --------------------------------------------------------------------------
def part_key(session: str, index: int) -> str:
    return f"{session}{SEP}{index:05d}"


def session_of_part_key(key: str) -> str:
    return key.rsplit(SEP, 1)[0]


def session_body(s: StoredSession, parts: int) -> dict[str, Any]:
    return {"id": s.id, "tool": s.tool, "project": s.project, "project_name": s.project_name, "cwd": s.cwd,
            "branch": s.branch, "title": str(s.title), "first_at": s.first_at, "last_at": s.last_at, "turns": s.turns,
            "parts": parts}  # fmt: skip


@dataclass(frozen=True)
class SyncedSession:
    id: str
    tool: str
    project: str
    project_name: str
    cwd: str
    branch: str
    title: str
    first_at: str
    last_at: str
    turns: int
    parts: int


def session_of(body: Mapping[str, Any], key: str) -> SyncedSession:
    sid = _text(body, "id", limit=wire.MAX_KEY)
    if sid != key:
        raise Invalid(f"the body's id {sid!r} is not the record's key {key!r}", fix="key a session by its id")
    return SyncedSession(sid, _text(body, "tool", limit=40), _text(body, "project", limit=1000),
                         _text(body, "project_name", limit=400), _text(body, "cwd", limit=4000),
                         _text(body, "branch", limit=400), _text(body, "title", limit=4000),
                         _time(body, "first_at", required=False), _time(body, "last_at", required=False),
                         _count(body, "turns"), _count(body, "parts"))  # fmt: skip


def cut(text: str) -> str:
    """A turn's text as sync carries it: whole, or its first :data:`wire.TURN_CHARS` characters and a note."""
    if len(text) <= wire.TURN_CHARS:
        return text
    return text[: wire.TURN_CHARS] + CUT_NOTE.format(n=len(text) - wire.TURN_CHARS)


def turn_record(t: StoredTurn) -> dict[str, Any]:
    return {"uid": t.uid, "role": t.role, "text": cut(t.text), "at": t.at,
            "tool_calls": [dict(c) for c in t.tool_calls], "files": list(t.files), "subagent": t.subagent}  # fmt: skip


def split_turns(turns: Sequence[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """Consecutive runs of at most :data:`wire.PART_TURNS` turns and about
    :data:`wire.PART_BYTES` bytes (a run holds at least one turn), the same on every run for the
    same turns, so an unchanged part keeps its digest."""
    parts: list[list[Mapping[str, Any]]] = []
    run: list[Mapping[str, Any]] = []
    weight = 0
    for t in turns:
        cost = len(orjson.dumps(t))
        if run and (len(run) >= wire.PART_TURNS or weight + cost > wire.PART_BYTES):
            parts.append(run)
            run, weight = [], 0
        run.append(t)
        weight += cost
    if run:
        parts.append(run)
    return parts


def part_body(s: StoredSession, index: int, turns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {"session": s.id, "index": index, "tool": s.tool, "project": s.project, "project_name": s.project_name,
            "turns": [dict(t) for t in turns]}  # fmt: skip


@dataclass(frozen=True)
class SyncedTurn:
    uid: str
    role: str
    text: str
    at: str
    tool_calls: list[dict[str, str]]
    files: list[str]
    subagent: str


@dataclass(frozen=True)
class SyncedPart:
    session: str
    index: int
    tool: str
    project: str
    project_name: str
    turns: list[SyncedTurn]


ROLES = ("user", "assistant", "tool", "system")


def part_of(body: Mapping[str, Any], key: str) -> SyncedPart:
    size = len(wire.canonical(body))
    if size > wire.MAX_PART_BYTES:
        raise Invalid(f"a session part of {size} bytes is over the limit of {wire.MAX_PART_BYTES}",
                      fix=f"split a session's turns into parts of at most {wire.PART_BYTES} bytes")  # fmt: skip
    session, index = _text(body, "session", limit=wire.MAX_KEY), _count(body, "index")
    if key != part_key(session, index):
        raise Invalid(f"the record's key is not its session and index ({session!r}, {index})",
                      fix="key a part as session id, the separator, and its index in five digits")  # fmt: skip
    raw = body.get("turns")
    if not isinstance(raw, list) or not raw or len(raw) > wire.PART_TURNS:
        raise Invalid(f"field 'turns' must be a list of 1 to {wire.PART_TURNS} turns", fix="split the session's turns")
    turns = []
    for i, t in enumerate(raw):
        if not isinstance(t, Mapping):
            raise Invalid(f"turns[{i}] is not an object", fix="send each turn as an object")
        try:
            turns.append(_turn_of(t))
        except Invalid as exc:
            raise Invalid(f"turns[{i}]: {exc.message}", fix=exc.fix) from exc
    return SyncedPart(session, index, _text(body, "tool", limit=40), _text(body, "project", limit=1000),
                      _text(body, "project_name", limit=400), turns)  # fmt: skip


def _turn_of(t: Mapping[str, Any]) -> SyncedTurn:
    role = _text(t, "role", limit=20)
    if role not in ROLES:
        raise Invalid(f"field 'role' must be one of {', '.join(ROLES)}, not {role!r}", fix="send a known role")
    calls = t.get("tool_calls", [])
    if not isinstance(calls, list) or not all(
        isinstance(c, Mapping) and all(isinstance(k, str) and isinstance(v, str) for k, v in c.items()) for c in calls
    ):
        raise Invalid("field 'tool_calls' must be a list of objects of text", fix="send name and input as text")
    files = t.get("files", [])
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise Invalid("field 'files' must be a list of paths", fix="send files as a list of strings")
    uid = _text(t, "uid", limit=200)
    if not uid:
        raise Invalid("field 'uid' is empty", fix="send the turn's id")
    return SyncedTurn(uid, role, _text(t, "text", limit=wire.TURN_CHARS + len(CUT_NOTE) + 20), _time(t, "at", required=False),
                      [dict(c) for c in calls], list(files), _text(t, "subagent", limit=200, required=False))  # fmt: skip


def check(kind: str, key: str, body: Mapping[str, Any], workspace: str, account: str) -> None:
    """Refuse (:class:`Invalid`) a record of one of this module's kinds that is malformed, or
    keyed under another account."""
    if kind in wire.OWNED_KEYS and owner_of_key(key) != account:
        raise Invalid(f"a {kind} record's key must start with your account id and the separator",
                      fix="key facts, diary entries and values as account id + U+001F + identity")  # fmt: skip
    if kind == wire.FACT:
        fact_of(body, workspace)
    elif kind == wire.DIARY:
        diary_of(body)
    elif kind == wire.VALUE:
        value_of(body)
    elif kind == wire.SESSION:
        session_of(body, key)
    elif kind == wire.SESSION_PART:
        part_of(body, key)
