"""The memory index where kenning hands memory to an AI that runs without a task of its own
(seed 000, "The memory index where Slate runs an AI"): an automation's brief step, an in-app
agent's system prompt. Sessions in an agent tool do not get it; they ``recall``.

Up to 12 lines of about 220 characters, one memory each with its ref, chosen, not matched to
words, in this order:

1. memories a person placed **always give this here** in this project, then in its group
   (kenning.core.placements), newest placement first;
2. memories **pinned** into the index (by a person, or a session's ``remember(index: true)``),
   at most 25 per project, newest first;
3. memories a session **used in the last 30 days**, most recently used first;
4. **lessons, preferences and decisions**, newest first.

Never in it: a hidden or held memory, one whose cited file is gone, a ``state`` past its shelf
life, a resting memory, one whose cited code changed, a lesson with a trigger (it arrives when
its trigger fires), and anything the person placed *not relevant here* or a rule of theirs
leaves out. A placement or a pin orders what may be given; it never brings a withheld memory
back. An *always* placement counts as a pin for resting, in that place only.

``for_="automation"`` adds, after the index, the memories sessions leave to search (the rest
of the recall pool), newest first: an automation that tidies memory needs them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING

from kenning.core import placements
from kenning.core.render import memory_line
from kenning.domain.lifecycle import INDEX_PIN_CAP, in_index, in_recall_pool, is_resting
from kenning.model import Citation, Kind, Memory
from kenning.store.protocol import MemoryFilter

if TYPE_CHECKING:
    from kenning.core.scopes import Place
    from kenning.core.service import Core

LINES = 12
LINE_CHARS = 220
USED_WITHIN = timedelta(days=30)
ALSO = 30  # an automation's extra lines, by default
PAGE = 200
FOR = ("agent", "automation")


@dataclass(frozen=True)
class Line:
    memory: Memory
    why: str  # always here | pinned | used | newest
    text: str  # the line as handed out: ref, kind and the memory, about 220 characters


@dataclass(frozen=True)
class Index:
    place: Place
    for_: str
    lines: list[Line]
    also: list[Line] = field(default_factory=list)

    @property
    def refs(self) -> list[str]:
        return [line.memory.ref for line in [*self.lines, *self.also]]


def _pages(core: Core, flt: MemoryFilter) -> Iterator[Memory]:
    """Every memory ``flt`` selects, newest first, a page at a time (an index never needs to
    read the whole store)."""
    offset = 0
    while True:
        page = core.store.find(flt, offset=offset, limit=PAGE, newest_first=True)
        yield from page
        if len(page) < PAGE:
            return
        offset += PAGE


def _candidates(core: Core, place: Place) -> Iterator[tuple[str, Memory]]:
    """(why, memory) in index order, with repeats; eligibility is judged by the caller."""
    ws, reach = core.workspace, list(place.reach)
    always = placements.always_here(core.store, place)
    by_ref = {m.ref: m for m in core.store.get_many(ws, always)}
    for ref in always:
        if ref in by_ref and by_ref[ref].scope in reach:
            yield "always here", by_ref[ref]
    pinned = core.store.find(MemoryFilter(ws, reach, pinned=True), limit=INDEX_PIN_CAP, newest_first=True)
    for m in pinned:
        yield "pinned", m
    used = core.store.find(MemoryFilter(ws, reach, used_since=core.now() - USED_WITHIN))
    for m in sorted(used, key=lambda m: (m.last_used_at or m.created_at, m.created_at), reverse=True):
        yield "used", m
    kinds = (Kind.LESSON, Kind.PREFERENCE, Kind.DECISION)
    for m in _pages(core, MemoryFilter(ws, reach, kinds=kinds, with_trigger=False)):
        yield "newest", m


def _eligible(memory: Memory, why: str, core: Core) -> bool:
    now = core.now()
    if memory.trigger is not None:
        return False  # it arrives when its trigger fires
    if in_index(memory, now):
        return True
    # An always placement keeps the memory from resting here, as a pin would; nothing else.
    return (why == "always here" and is_resting(memory, now) and in_recall_pool(memory, now)
            and memory.citation is not Citation.CHANGED)  # fmt: skip


def _take(core: Core, place: Place, source: Iterator[tuple[str, Memory]], limit: int, seen: set[str],
          keep: Callable[[Memory, str], bool]) -> list[Line]:  # fmt: skip
    """Up to ``limit`` lines from ``source``: eligible, given out under the person's
    placements and rules, each memory once. Gates are applied a batch at a time."""
    out: list[Line] = []
    batch: list[tuple[str, Memory]] = []

    def flush() -> None:
        allowed = {m.ref for m in core.give_out(place, [m for _, m in batch])}
        for why, m in batch:
            if m.ref in allowed and m.ref not in seen and len(out) < limit:
                seen.add(m.ref)
                out.append(Line(m, why, memory_line(m, limit=LINE_CHARS)))
        batch.clear()

    for why, m in source:
        if m.ref in seen or any(m.ref == b.ref for _, b in batch) or not keep(m, why):
            continue
        batch.append((why, m))
        if len(batch) >= max(limit - len(out), 1) * 2:
            flush()
            if len(out) >= limit:
                break
    if batch and len(out) < limit:
        flush()
    return out


def build(core: Core, place: Place, *, for_: str = "agent", limit: int = LINES, also: int | None = None) -> Index:
    """The index for ``place``; for an automation also the memories sessions leave to search
    (``also`` lines, :data:`ALSO` by default)."""
    if for_ not in FOR:
        from kenning.errors import Invalid

        raise Invalid(f"{for_!r} is not who the index is for", fix=f"use one of {', '.join(FOR)}")
    seen: set[str] = set()
    lines = _take(core, place, _candidates(core, place), limit, seen, lambda m, why: _eligible(m, why, core))
    extra: list[Line] = []
    count = (ALSO if also is None else also) if for_ == "automation" else 0
    if count > 0:
        now = core.now()
        pool = (("search", m) for m in _pages(core, MemoryFilter(core.workspace, list(place.reach))))
        extra = _take(core, place, pool, count, seen, lambda m, why: in_recall_pool(m, now))
    return Index(place, for_, lines, extra)


def choose(core: Core, place: Place, limit: int = LINES) -> list[Memory]:
    """The memories of the index, in order."""
    return [line.memory for line in build(core, place, limit=limit).lines]


def lines(core: Core, place: Place, limit: int = LINES) -> list[str]:
    return [line.text for line in build(core, place, limit=limit).lines]


def render(index: Index) -> str:
    """The index as text for an agent's system prompt or an automation's brief step."""
    name = index.place.name or index.place.project
    if not index.lines and not index.also:
        return f"Memory for {name}: nothing to give yet (no pinned, recently used, lesson, preference or decision memory)."
    head = "@memory" if index.for_ == "automation" else "Memory"
    out = [f"{head} for {name} (each line has a ref: cite it in `used` when it shaped your work):"]
    out += [f"- {line.text}" for line in index.lines]
    if index.also:
        out.append("Also in memory (what sessions find by search), newest first:")
        out += [f"- {line.text}" for line in index.also]
    return "\n".join(out)


def given(core: Core, index: Index, *, session: str = "", tool: str = "", look_up: bool = False) -> str:
    """Record the index as handed to ``session`` (for the memory report). ``look_up``: an MCP
    call, tied to the session whose hook logged it when ``session`` is not given. Returns the
    session it was recorded for ("" when unknown)."""
    from kenning.core import deliveries

    if look_up:
        return deliveries.handed_out(core, "index", index.refs, session=session, project=index.place.project, tool=tool)
    deliveries.record(core, "index", index.refs, session=session, project=index.place.project, tool=tool)
    return session
