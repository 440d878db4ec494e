"""How memories read when handed out: one line each, always with its ref, widget text
quoted. Every adapter (CLI, MCP, hooks) uses these so the wording is the same everywhere."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kenning.clock import to_iso
from kenning.core.lifecycle import is_resting, is_stale, quoted
from kenning.core.recall import RecallHit
from kenning.model import Citation, Memory

LINE_LIMIT = 220


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def memory_line(memory: Memory, *, limit: int = LINE_LIMIT, marks: list[str] | None = None) -> str:
    body = quoted(memory)
    if memory.reason and not memory.from_widget:
        body = f"{body} (why: {memory.reason})"
    head = f"{memory.ref} [{memory.kind.value}] "
    tail = ""
    if memory.source_ref:
        tail += f" — cites {memory.source_ref}"
    if marks:
        tail += " · " + " · ".join(marks)
    room = max(40, limit - len(head) - len(tail))
    return head + clip(body, room) + tail


def lifecycle_marks(memory: Memory, now: datetime) -> list[str]:
    """What a listing marks on a memory as time passes: resting, and a stale state (past its
    shelf life, so recall and every session leave it out)."""
    marks = ["resting"] if is_resting(memory, now) else []
    if is_stale(memory, now):
        marks.append("stale: past its 14-day shelf life, recall leaves it out")
    return marks


def hit_marks(hit: RecallHit) -> list[str]:
    marks = []
    if hit.weak:
        marks.append("weak")
    if hit.memory.citation is Citation.CHANGED:
        marks.append("citation: changed")
    if hit.resting:
        marks.append("resting")
    if hit.until is not None:
        marks.append(f"until {to_iso(hit.until)[:10]}")
    return marks


def memory_dict(memory: Memory, now: datetime) -> dict[str, Any]:
    """The JSON shape of a memory for tools and ``--json``."""
    return {
        "ref": memory.ref,
        "text": quoted(memory),
        "kind": memory.kind.value,
        "reason": memory.reason,
        "rejected": memory.rejected,
        "trigger": memory.trigger.to_text() if memory.trigger else None,
        "confidence": round(memory.confidence, 3),
        "status": memory.status.value,
        "subject": memory.subject or None,
        "scope": memory.scope,
        "origin": memory.origin.value,
        "origin_tool": memory.origin_tool,
        "session": memory.session or None,
        "branch": memory.branch or None,
        "pinned": memory.pinned or memory.index_pinned,
        "hidden": memory.hidden,
        "held": memory.held,
        "protected": memory.protected,
        "source_ref": memory.source_ref or None,
        "citation": memory.citation.value,
        "created_at": to_iso(memory.created_at),
        "confirmed_at": to_iso(memory.confirmed_at),
        "last_used_at": to_iso(memory.last_used_at) if memory.last_used_at else None,
        "uses": memory.uses,
        "resting": is_resting(memory, now),
        "stale": is_stale(memory, now),
    }
