"""How memories read when handed out: one line each, always with its ref, and every word
someone other than the person wrote quoted as data (:mod:`kenning.quoting`). Every adapter
(CLI, MCP, hooks) uses these so the wording is the same everywhere."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kenning.clock import to_iso
from kenning.core.recall import RecallHit
from kenning.domain import wording
from kenning.domain.lifecycle import is_resting, is_stale, quoted
from kenning.domain.wording import LINE_LIMIT, clip
from kenning.model import Citation, Memory
from kenning.quoting import neutral

__all__ = ["LINE_LIMIT", "clip", "hit_marks", "memory_dict", "memory_line"]


def memory_line(memory: Memory, *, limit: int = LINE_LIMIT, marks: list[str] | None = None) -> str:
    """``m:1234abcd [kind] text (why: reason) — cites path · marks`` (see kenning.domain.wording.line)."""
    return wording.line(memory.ref, memory.kind.value, memory.text, reason=memory.reason,
                        source_ref=memory.source_ref, origin=memory.origin.value, limit=limit, marks=marks)  # fmt: skip


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
        "reason": quoted(memory, memory.reason) if memory.reason else "",
        "rejected": quoted(memory, memory.rejected) if memory.rejected else "",
        "trigger": neutral(memory.trigger.to_text()) if memory.trigger else None,
        "confidence": round(memory.confidence, 3),
        "status": memory.status.value,
        "subject": neutral(memory.subject) or None,
        "scope": memory.scope,
        "origin": memory.origin.value,
        "origin_tool": memory.origin_tool,
        "session": memory.session or None,
        "branch": memory.branch or None,
        "pinned": memory.pinned or memory.index_pinned,
        "hidden": memory.hidden,
        "held": memory.held,
        "protected": memory.protected,
        "source_ref": neutral(memory.source_ref) or None,
        "citation": memory.citation.value,
        "created_at": to_iso(memory.created_at),
        "confirmed_at": to_iso(memory.confirmed_at),
        "last_used_at": to_iso(memory.last_used_at) if memory.last_used_at else None,
        "uses": memory.uses,
        "resting": is_resting(memory, now),
        "stale": is_stale(memory, now),
    }
