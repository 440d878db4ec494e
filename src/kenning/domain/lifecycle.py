"""Time rules and visibility: shelf life, resting, and who may receive a memory.

All predicates take ``now`` explicitly so one clock governs them (tests move it).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from kenning.model import Citation, Kind, Memory, Status
from kenning.quoting import by_origin

SHELF_LIFE = timedelta(days=14)
RESTING_AFTER = timedelta(days=30)
INDEX_PIN_CAP = 25
HELD_WORDS = "[held memory]"


def is_stale(memory: Memory, now: datetime) -> bool:
    """A ``state`` 14 days after its last confirmation leaves the recall pool."""
    return memory.kind is Kind.STATE and memory.confirmed_at + SHELF_LIFE < now


def last_activity(memory: Memory) -> datetime:
    times = [memory.created_at, memory.confirmed_at]
    if memory.last_used_at is not None:
        times.append(memory.last_used_at)
    return max(times)


def is_resting(memory: Memory, now: datetime) -> bool:
    """Unused and unrestated for 30 days; pinned memories and preferences never rest."""
    if memory.pinned or memory.index_pinned or memory.kind is Kind.PREFERENCE:
        return False
    return last_activity(memory) + RESTING_AFTER < now


def withheld(memory: Memory) -> bool:
    """Never handed to any session, on any path: hidden, held, or its cited file is gone."""
    return memory.hidden or memory.held or memory.citation is Citation.GONE


def in_recall_pool(memory: Memory, now: datetime) -> bool:
    return memory.status is Status.ACTIVE and not withheld(memory) and not is_stale(memory, now)


def believed_at(memory: Memory, as_of: datetime) -> bool:
    """Was this memory held to be true at ``as_of``? (superseded ones included until then)."""
    if memory.created_at > as_of or withheld(memory):
        return False
    if memory.status is Status.ACTIVE:
        return True
    return memory.status_at is not None and memory.status_at > as_of


def in_index(memory: Memory, now: datetime) -> bool:
    """The session index leaves out resting memories and ones whose cited code changed."""
    return (
        in_recall_pool(memory, now)
        and not is_resting(memory, now)
        and memory.citation is not Citation.CHANGED
    )


def quoted(memory: Memory, text: str | None = None) -> str:
    """Text of ``memory`` (its sentence, or ``text`` such as its reason) as it may be handed to
    an agent: the person's words as they are, anyone else's quoted as data, a widget's with its
    label (:mod:`kenning.quoting`)."""
    return by_origin(memory.text if text is None else text, memory.origin.value)
