"""Is the corpus still worth trusting? Report, and on request repair, memories that recall
cannot reach or whose citation stopped resolving.

Repairs (only when asked; nothing runs on its own, because a sweep on start would strip good
citations while another checkout is active):

- a memory filed under a removed scope moves to one recall reaches (its parent group, else the
  personal project);
- a memory filed under a group moves to the one project below it whose folder holds its cited
  file, or, failing that, the one project its teaching session wrote to; else it stays;
- a citation whose file is gone is dropped and the claim kept.

Reported, never touched: memories recall never returned, longer than a sentence, without tags,
and exact duplicates. A project whose folder is not on this machine is "not judged".
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kenning.core.citations import Checker, parse_ref
from kenning.model import PERSONAL_SCOPE, Citation, Memory, MemoryEvent, Status
from kenning.store.protocol import ScopeRow

if TYPE_CHECKING:
    from kenning.core.service import Core

_SENTENCE_END = re.compile(r"[.!?](?:\s+|$)")


@dataclass(frozen=True)
class Move:
    ref: str
    text: str
    from_scope: str
    to_scope: str
    why: str


@dataclass(frozen=True)
class Drop:
    ref: str
    text: str
    scope: str
    source_ref: str
    why: str = "cited file not found"


@dataclass
class HealthReport:
    moves: list[Move] = field(default_factory=list)
    drops: list[Drop] = field(default_factory=list)
    not_judged: list[str] = field(default_factory=list)  # scopes whose folder is not on this machine
    never_returned: list[str] = field(default_factory=list)
    long: list[str] = field(default_factory=list)
    untagged: list[str] = field(default_factory=list)
    duplicates: list[list[str]] = field(default_factory=list)
    checked: int = 0
    applied: bool = False

    @property
    def files_not_found(self) -> list[str]:
        return sorted({f"{d.scope}: {d.source_ref}" for d in self.drops})

    def as_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["files_not_found"] = self.files_not_found
        return data


def sentences(text: str) -> int:
    stripped = text.strip()
    if not any(mark in stripped[:-1] for mark in ".!?"):  # the common case: one sentence
        return 1 if stripped else 0
    return len([s for s in _SENTENCE_END.split(stripped) if s.strip()])


def _root(row: ScopeRow | None) -> Path | None:
    if row is None or not row.root:
        return None
    root = Path(row.root)
    return root if root.is_dir() else None


def health(core: Core, scope: str | None = None, *, repair: bool = False) -> HealthReport:
    """Report (and with ``repair`` apply) every move and dropped citation, listed before any
    is made. ``scope`` limits the look to one scope; default: the whole workspace."""
    store = core.store
    rows = {r.key: r for r in store.list_scopes(core.workspace)}
    # Every memory of the workspace, including any under a key with no scope row (read once:
    # the session's projects come from the same pass).
    everything = list(store.iter_all(core.workspace))
    memories = [m for m in everything if m.status is Status.ACTIVE and (scope is None or m.scope == scope)]
    report = HealthReport(checked=len(memories))
    checkers: dict[str, Checker] = {}
    session_projects = _session_projects(everything, rows)

    for memory in memories:
        target = _target(memory, rows, session_projects)
        if target is not None:
            report.moves.append(Move(memory.ref, memory.text, memory.scope, *target))
        final_scope = target[0] if target else memory.scope
        ref = parse_ref(memory.source_ref) if memory.source_ref else None  # most memories cite nothing
        if ref is not None and ref.kind in ("file", "lines", "symbol"):
            root = _root(rows.get(final_scope))
            if root is None and not Path(ref.path).is_absolute():
                if final_scope not in report.not_judged:
                    report.not_judged.append(final_scope)
            else:
                checker = checkers.setdefault(final_scope, Checker(root))
                if checker.check(memory.source_ref, memory.source_hash) is Citation.GONE:
                    report.drops.append(Drop(memory.ref, memory.text, final_scope, memory.source_ref))
        _observe(memory, report)
    report.duplicates = _duplicates(memories)
    if repair:
        _apply(core, report)
    return report


def _session_projects(memories: list[Memory], rows: dict[str, ScopeRow]) -> dict[str, set[str]]:
    """Session -> the live projects it wrote memories to (the teaching session's project)."""
    projects = {k for k, r in rows.items() if r.kind == "project" and r.removed_at is None}
    found: dict[str, set[str]] = {}
    for memory in memories:
        if memory.session and memory.scope in projects:
            found.setdefault(memory.session, set()).add(memory.scope)
    return found


def _target(memory: Memory, rows: dict[str, ScopeRow], sessions: dict[str, set[str]]) -> tuple[str, str] | None:
    row = rows.get(memory.scope)
    if row is None:
        return None
    if row.removed_at is not None:
        parent = rows.get(row.parent) if row.parent else None
        to = parent.key if parent is not None and parent.removed_at is None else PERSONAL_SCOPE
        return to, f"filed under removed scope {row.key}"
    if row.kind != "group":
        return None
    below = [r for r in rows.values() if r.parent == row.key and r.kind == "project" and r.removed_at is None]
    ref = parse_ref(memory.source_ref)
    if ref.kind in ("file", "lines", "symbol") and not Path(ref.path).is_absolute():
        holders = [r.key for r in below if (root := _root(r)) is not None and (root / ref.path).is_file()]
        if len(holders) == 1:
            return holders[0], f"its cited file {ref.path} is only in {holders[0]}"
    written = sessions.get(memory.session, set()) & {r.key for r in below} if memory.session else set()
    if len(written) == 1:
        only = next(iter(written))
        return only, f"its session {memory.session} belongs to {only}"
    return None


def _observe(memory: Memory, report: HealthReport) -> None:
    if memory.recalled == 0:
        report.never_returned.append(memory.ref)
    if sentences(memory.text) > 1:
        report.long.append(memory.ref)
    if not memory.tags:
        report.untagged.append(memory.ref)


def _duplicates(memories: list[Memory]) -> list[list[str]]:
    groups: dict[tuple[str, str], list[str]] = {}
    for memory in memories:
        key = (memory.scope, " ".join(memory.text.lower().split()).rstrip("."))
        groups.setdefault(key, []).append(memory.ref)
    return [refs for refs in groups.values() if len(refs) > 1]


def _apply(core: Core, report: HealthReport) -> None:
    store, now = core.store, core.now()
    with store.transaction():
        for move in report.moves:
            memory = store.get(move.ref)
            if memory is not None and memory.scope == move.from_scope:
                store.update(memory.evolve(scope=move.to_scope))
                store.add_event(MemoryEvent(move.ref, now, "moved", f"{move.from_scope} -> {move.to_scope}: {move.why}"))
        for drop in report.drops:
            memory = store.get(drop.ref)
            if memory is not None and memory.source_ref == drop.source_ref:
                store.update(memory.evolve(source_ref="", source_hash="", citation=Citation.UNCHECKED))
                store.add_event(MemoryEvent(drop.ref, now, "citation_dropped", drop.source_ref))
    report.applied = True
