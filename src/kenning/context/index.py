"""The memory index where kenning runs an AI itself (automations, in-app agents): up to 12
lines, one memory each, about 220 characters, chosen not matched: pinned (at most 25 per
project), then memories used in the last 30 days, then lessons, preferences and decisions,
newest first. Lessons with a trigger stay out: they arrive when their trigger fires."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from kenning.core.lifecycle import INDEX_PIN_CAP, in_index
from kenning.core.render import memory_line
from kenning.model import Kind, Memory
from kenning.store.protocol import MemoryFilter

if TYPE_CHECKING:
    from kenning.core.scopes import Place
    from kenning.core.service import Core

LINES = 12
LINE_CHARS = 220
USED_WITHIN = timedelta(days=30)


def choose(core: Core, place: Place, limit: int = LINES) -> list[Memory]:
    now = core.now()
    pool = [m for m in core.store.find(MemoryFilter(core.workspace, list(place.reach)), newest_first=True)
            if in_index(m, now) and m.trigger is None]  # fmt: skip
    pinned = [m for m in pool if m.pinned or m.index_pinned][:INDEX_PIN_CAP]
    used = sorted((m for m in pool if m.last_used_at is not None and m.last_used_at >= now - USED_WITHIN),
                  key=lambda m: m.last_used_at or now, reverse=True)  # fmt: skip
    kinds = [m for m in pool if m.kind in (Kind.LESSON, Kind.PREFERENCE, Kind.DECISION)]
    ordered: list[Memory] = []
    seen: set[str] = set()
    for m in [*pinned, *used, *kinds]:
        if m.ref not in seen:
            ordered.append(m)
            seen.add(m.ref)
    return core.give_out(place, ordered)[:limit]


def lines(core: Core, place: Place, limit: int = LINES) -> list[str]:
    return [memory_line(m, limit=LINE_CHARS) for m in choose(core, place, limit)]
