"""Lessons on tool calls: a lesson whose trigger matches the call (a shell regex, or a read/edit
file glob), then lessons and decisions whose citation names the touched file. At most 2 per
call, each once per session, after the user's rules and every withholding rule."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kenning.domain import matching
from kenning.domain.lifecycle import in_recall_pool
from kenning.domain.matching import cited_path, literal_prefix, names_file
from kenning.model import Kind, Memory
from kenning.store.protocol import MemoryFilter

if TYPE_CHECKING:
    from kenning.core.scopes import Place
    from kenning.core.service import Core

PER_CALL = 2


@dataclass(frozen=True)
class ToolCall:
    kind: str  # "shell" | "read" | "edit"
    command: str = ""
    paths: tuple[str, ...] = ()


def relative(path: str, root: Path | None, cwd: str) -> str:
    """A touched file as a repository-relative path (as globs and citations are written)."""
    return matching.relative(path, str(root) if root is not None else None, cwd)


def trigger_fires(memory: Memory, call: ToolCall, rels: list[str]) -> bool:
    trig = memory.trigger
    if trig is None:
        return False
    return matching.fires(trig.tool.value, trig.pattern, call.kind, call.command, rels)


def matching_memories(core: Core, place: Place, call: ToolCall, cwd: str = "") -> list[Memory]:
    """Every lesson or decision this call should bring up, triggered ones first, newest first."""
    store, now = core.store, core.now()
    rels = [relative(p, place.root, cwd) for p in call.paths if p]
    reach = list(place.reach)
    found: list[Memory] = []
    lessons = store.find(MemoryFilter(core.workspace, reach, kinds=(Kind.LESSON,), with_trigger=True),
                         newest_first=True)  # fmt: skip
    found.extend(m for m in lessons if trigger_fires(m, call, rels))
    seen = {m.ref for m in found}
    for rel in rels:
        base = rel.rsplit("/", 1)[-1]
        flt = MemoryFilter(core.workspace, reach, kinds=(Kind.LESSON, Kind.DECISION), source_ref_like=f"%{base}%")
        for m in store.find(flt, newest_first=True):
            if m.ref not in seen and names_file(cited_path(m.source_ref), rel):
                found.append(m)
                seen.add(m.ref)
    return [m for m in found if in_recall_pool(m, now)]


def for_call(core: Core, place: Place, call: ToolCall, session: str, cwd: str = "") -> list[Memory]:
    """At most 2 for this call, none given before in this session; records them as given."""
    hooks = core.stores.hooks
    given = hooks.shown(core.workspace, session, "lesson")
    fresh = [m for m in matching_memories(core, place, call, cwd) if m.ref not in given]
    chosen = core.give_out(place, fresh)[:PER_CALL]
    if chosen:
        with core.stores.transaction():
            hooks.mark_shown(core.workspace, session, "lesson", [m.ref for m in chosen], core.now())
            hooks.add_deliveries(core.workspace, session, "lesson", [m.ref for m in chosen], place.project,
                                 session.partition(":")[0], core.now())  # fmt: skip
    return chosen


__all__ = ["PER_CALL", "ToolCall", "cited_path", "for_call", "literal_prefix", "matching_memories", "names_file",
           "relative", "trigger_fires"]
