"""Local rows as sync records and back: a memory with its history, a decision doc, a review.

What describes one machine stays on it: how often recall returned a memory here, its uses
and when it was last used (``LOCAL_ONLY``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kenning.clock import from_iso, to_iso
from kenning.core.portable import memory_from_record, memory_record
from kenning.domain.lifecycle import HELD_WORDS
from kenning.errors import Invalid
from kenning.model import DecisionDoc, Memory, MemoryEvent
from kenning.redacted import redacted

LOCAL_ONLY = ("recalled", "uses", "last_used_at")
# Text fields of each kind that the server runs the redactor over again.
TEXT_FIELDS = {
    "memory": ("text", "reason", "rejected", "status_note", "source_ref", "subject", "tags"),
    "decision_doc": ("title", "decision", "reason", "rejected", "source_ref", "outcome"),
    "review": ("payload",),
    "fact": ("project", "subject", "subject_name", "object", "object_name", "area", "person", "evidence"),
    "diary": ("project", "agent", "text"),
    "value": ("project", "key", "value"),
    "session": ("project", "project_name", "cwd", "branch", "title"),
    "session_part": ("project", "project_name", "turns"),
}
SEP = "\x1f"


def memory_body(memory: Memory, events: Sequence[MemoryEvent]) -> dict[str, Any]:
    body = {k: v for k, v in memory_record(memory).items() if k not in LOCAL_ONLY and k != "type"}
    body["events"] = [[to_iso(e.at), e.event, e.detail, e.other_ref] for e in events]
    return body


def memory_of(body: Mapping[str, Any], workspace: str) -> tuple[Memory, list[MemoryEvent]]:
    """The memory a body describes and its history; :class:`Invalid` when it is malformed."""
    if not isinstance(body, Mapping):
        raise Invalid("a memory record's body is not an object", fix="send the fields of a memory")
    fields = {k: v for k, v in body.items() if k != "events"}
    try:
        memory = memory_from_record({**fields, "type": "memory"}, workspace)
        events = [MemoryEvent(memory.ref, from_iso(str(at)), str(ev), str(detail), str(other))
                  for at, ev, detail, other in body.get("events") or []]  # fmt: skip
    except Invalid:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise Invalid(f"a memory record is malformed ({type(exc).__name__}: {exc})",
                      fix="send every field of a memory with its type (times as ISO 8601)") from exc  # fmt: skip
    return memory, events


def doc_key(doc: DecisionDoc) -> str:
    """A decision doc's identity across one account's machines: its project, title and the tool
    that wrote it (the sync key puts the owning account first, so a teammate's doc with the
    same title is another record)."""
    return SEP.join((doc.scope, doc.title, doc.author))


def doc_body(doc: DecisionDoc, *, held: bool = False) -> dict[str, Any]:
    """The record of a decision doc. ``held``: its memory is hidden or held, so the doc's words
    are its author's alone (the server sends them to the author's machines only; see
    :func:`held_view`). The key is absent otherwise, so a doc's digest is what it always was."""
    body = {"scope": doc.scope, "title": doc.title, "decision": doc.decision, "reason": doc.reason,
            "rejected": doc.rejected, "confidence": doc.confidence, "source_ref": doc.source_ref,
            "outcome": list(doc.outcome), "memory_ref": doc.memory_ref, "author": doc.author, "area": doc.area,
            "created_at": to_iso(doc.created_at), "updated_at": to_iso(doc.updated_at)}  # fmt: skip
    return {**body, "held": True} if held else body


def held_view(body: Mapping[str, Any]) -> dict[str, Any]:
    """A held doc as it leaves its author's hands (seed 001: a teammate reads the words of a
    hidden memory as ``[held memory]``): the decision, reason and rejected words withheld and
    no memory named, so nothing points at the memory the teammate sees as removed."""
    if not body.get("held"):
        return dict(body)
    out = {k: v for k, v in body.items() if k != "held"}
    for name in ("decision", "reason", "rejected"):
        out[name] = HELD_WORDS if out.get(name) else ""
    out["memory_ref"] = ""
    return out


def doc_of(body: Mapping[str, Any], workspace: str, *, doc_id: int = 0, author: str | None = None) -> DecisionDoc:
    try:
        return DecisionDoc(
            id=doc_id, workspace=workspace, scope=str(body["scope"]), title=redacted(str(body["title"])),
            decision=redacted(str(body["decision"])), reason=redacted(str(body["reason"])),
            rejected=redacted(str(body.get("rejected", ""))), confidence=float(body["confidence"]),
            source_ref=str(body.get("source_ref", "")), outcome=tuple(redacted(str(x)) for x in body.get("outcome") or ()),
            memory_ref=str(body.get("memory_ref", "")), author=author if author is not None else str(body["author"]),
            created_at=from_iso(str(body["created_at"])), updated_at=from_iso(str(body["updated_at"])),
            area=str(body.get("area", "")),
        )  # fmt: skip
    except (KeyError, TypeError, ValueError) as exc:
        raise Invalid(f"a decision doc record is malformed ({type(exc).__name__}: {exc})",
                      fix="send every field of a decision doc") from exc  # fmt: skip


def texts_of(kind: str, body: Mapping[str, Any]) -> list[str]:
    """Every piece of text of a record the redactor should see."""
    out: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, Mapping):
            for v in value.values():
                walk(v)
        elif isinstance(value, list | tuple):
            for v in value:
                walk(v)

    for name in TEXT_FIELDS.get(kind, ()):
        walk(body.get(name))
    if kind == "memory":
        for event in body.get("events") or []:
            walk(event)
    return out
