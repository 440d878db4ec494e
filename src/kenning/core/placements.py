"""Where a memory goes, as a person decided it (seed 000, "Deciding where a memory goes").

Three decisions, each listed on the memory with an undo:

- **always give this here** (``always``): first in the memory index of a project or a group
  (a group's placement holds in every project of the group). A held memory or a stale state
  still stays out: a placement orders what may be given, it never un-withholds.
- **not relevant here** (``not-here``): the memory never reaches that project or group — not
  the index, not a lesson on a tool call, not a task card, not ``recall``.
- **never for agent runs** (``no-agent-runs``): kept out of every task card (the one kind of
  session started from a task); it holds everywhere.

A memory that replaces another keeps its predecessor's placements (:func:`carry_over`, called
wherever a memory is superseded). The hooks' lesson path, which runs without the core, applies
``not-here`` in its own query (``store.sqlite.hook_rows.deliverable``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from kenning.domain.lifecycle import INDEX_PIN_CAP
from kenning.errors import Invalid, NotFound, Refused
from kenning.ids import normalize_ref
from kenning.model import GLOBAL_SCOPE, Memory, MemoryEvent, Placement, Placing, Status
from kenning.store.protocol import MemoryStore

if TYPE_CHECKING:
    from kenning.core.scopes import Place
    from kenning.core.service import Core

ALWAYS_CAP = INDEX_PIN_CAP  # per project or group, as pins
PLACE_KINDS = ("project", "group", "personal")
OPPOSITE = {Placing.ALWAYS: Placing.NOT_HERE, Placing.NOT_HERE: Placing.ALWAYS}
WORDS = {
    Placing.ALWAYS: "always give this here",
    Placing.NOT_HERE: "not relevant here",
    Placing.NO_AGENT_RUNS: "never for agent runs",
}


def places_of(place: Place) -> list[str]:
    """The keys a placement for this place can be filed under: its project, then its group."""
    return [place.project, *([place.group] if place.group else [])]


def not_here(store: MemoryStore, workspace: str, place: Place) -> set[str]:
    """Refs a person kept out of this project or its group."""
    return {p.ref for p in store.placed(workspace, Placing.NOT_HERE, places_of(place))}


def keep_here(store: MemoryStore, place: Place, memories: list[Memory]) -> list[Memory]:
    """``memories`` without those kept out of ``place`` (a gate on everything given out)."""
    if not memories:
        return memories
    out = not_here(store, place.workspace, place)
    return [m for m in memories if m.ref not in out] if out else memories


def always_here(store: MemoryStore, place: Place) -> list[str]:
    """Refs to give first in this place's index: the project's own placements, then its
    group's, each newest first."""
    found = store.placed(place.workspace, Placing.ALWAYS, places_of(place))
    order = {key: i for i, key in enumerate(places_of(place))}
    ranked = sorted(found, key=lambda p: (order.get(p.place, 9), -p.created_at.timestamp()))
    return list(dict.fromkeys(p.ref for p in ranked))


def not_for_agent_runs(store: MemoryStore, workspace: str, refs: list[str]) -> set[str]:
    return {p.ref for p in store.placements(workspace, refs) if p.decision is Placing.NO_AGENT_RUNS}


def carry_over(store: MemoryStore, old: Memory, new_ref: str, now: datetime) -> None:
    """The memory ``new_ref`` replaces ``old``: it takes over every placement of ``old``."""
    for p in store.placements(old.workspace, [old.ref]):
        if store.add_placement(Placement(new_ref, p.workspace, p.decision, p.place, now, p.by)):
            store.add_event(old.workspace, MemoryEvent(new_ref, now, "placed", f"{p.decision.value} {p.place}".strip(), old.ref))


# ---------------------------------------------------------------------------- deciding


@dataclass(frozen=True)
class Target:
    """Where a placement holds: a project or group key and what it is ("" for everywhere)."""

    key: str
    kind: str
    name: str


def target(core: Core, decision: Placing, key: str) -> Target:
    """Check the project or group a placement is for; ``no-agent-runs`` holds everywhere."""
    if decision is Placing.NO_AGENT_RUNS:
        return Target("", "", "every agent run")
    row = core.store.get_scope(core.workspace, key) if key else None
    if row is None or row.kind not in PLACE_KINDS or row.removed_at is not None:
        raise NotFound(f"no project or group {key!r} here" if key else "no project or group given",
                       fix="name one with --project KEY or --group NAME (list them with: kenning projects)")  # fmt: skip
    return Target(row.key, row.kind, row.name or row.key)


def _reaches(core: Core, memory: Memory, where: Target) -> bool:
    """Whether sessions in ``where`` can receive ``memory`` at all (its scope is read there)."""
    if memory.scope in (where.key, GLOBAL_SCOPE):
        return True
    scope = core.store.get_scope(core.workspace, memory.scope)
    if where.kind == "group":  # a memory of a project in the group, or the group's own
        return scope is not None and scope.parent == where.key
    row = core.store.get_scope(core.workspace, where.key)
    return row is not None and bool(row.parent) and memory.scope == row.parent


def _memory(core: Core, ref: str) -> Memory:
    memory = core.store.get(core.workspace, normalize_ref(ref))
    if memory is None:
        raise NotFound(f"no memory {ref}", fix="copy the ref (m: and 8 hex) from recall, the index or the memory list")
    return memory


def decide(core: Core, ref: str, decision: Placing, key: str = "", *, by: str = "") -> Placement:
    """Record ``decision`` for ``ref`` in the project or group ``key`` ("" for no-agent-runs)."""
    memory = _memory(core, ref)
    if memory.status is not Status.ACTIVE:
        fix = (f"place the memory that replaced it ({memory.status_note})" if memory.status is Status.SUPERSEDED
               else f"bring it back first: kenning memory bring-back {memory.ref}")  # fmt: skip
        raise Refused(f"{memory.ref} is {memory.status.value}, so it reaches no session", fix=fix)
    where = target(core, decision, key)
    if decision is Placing.ALWAYS:
        if not _reaches(core, memory, where):
            raise Invalid(f"{memory.ref} is filed under {memory.scope}, which sessions in {where.name} never receive",
                          fix="place it in the project or group it is filed under (or a project of that group)")  # fmt: skip
        already = [p for p in core.store.placed(core.workspace, Placing.ALWAYS, [where.key]) if p.ref != memory.ref]
        if len(already) >= ALWAYS_CAP:
            raise Refused(f"{where.name} already gives {ALWAYS_CAP} memories first",
                          fix=f"undo one first: kenning memory place {already[0].ref} always --undo")  # fmt: skip
    placement = Placement(memory.ref, core.workspace, decision, where.key, core.now(), by)
    with core.store.transaction():
        # "Always give this here" and "not relevant here" contradict each other in one place:
        # the later decision replaces the earlier.
        opposite = OPPOSITE.get(decision)
        if opposite is not None and core.store.remove_placement(core.workspace, memory.ref, opposite, where.key):
            core.store.add_event(core.workspace, MemoryEvent(memory.ref, core.now(), "unplaced", f"{opposite.value} {where.key}"))
        if core.store.add_placement(placement):
            core.store.add_event(core.workspace, MemoryEvent(memory.ref, core.now(), "placed", f"{decision.value} {where.key}".strip()))
    return placement


def undo(core: Core, ref: str, decision: Placing, key: str = "") -> Placement:
    """Take a placement back; NotFound when there was none."""
    memory = _memory(core, ref)
    place = "" if decision is Placing.NO_AGENT_RUNS else key
    existing = [p for p in core.store.placements(core.workspace, [memory.ref])
                if p.decision is decision and p.place == place]  # fmt: skip
    if not existing:
        raise NotFound(f"{memory.ref} has no {WORDS[decision]!r} placement{f' for {place}' if place else ''}",
                       fix=f"list its placements with: kenning memory placements {memory.ref}")  # fmt: skip
    with core.store.transaction():
        core.store.remove_placement(core.workspace, memory.ref, decision, place)
        core.store.add_event(core.workspace, MemoryEvent(memory.ref, core.now(), "unplaced", f"{decision.value} {place}".strip()))
    return existing[0]


def listing(core: Core, ref: str) -> list[Placement]:
    """Every placement of the memory, oldest first."""
    return core.store.placements(core.workspace, [_memory(core, ref).ref])


def describe(p: Placement) -> str:
    return WORDS[p.decision] + (f" in {p.place}" if p.place else "")


def parse(text: str) -> Placing:
    try:
        return Placing(text.strip().lower().replace("_", "-"))
    except ValueError:
        raise Invalid(f"{text!r} is not a placement",
                      fix=f"use one of {', '.join(p.value for p in Placing)}") from None  # fmt: skip
