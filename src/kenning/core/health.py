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

import os
import re
import stat
import threading
from collections import OrderedDict
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING

from kenning.core.citations import SourceRef, parse_ref
from kenning.model import PERSONAL_SCOPE, Citation, MemoryEvent
from kenning.store.protocol import Glance, ScopeRow

if TYPE_CHECKING:
    from kenning.core.service import Core

_SENTENCE_END = re.compile(r"[.!?](?:\s+|$)")
_CITES_FILE = ("file", "lines", "symbol")


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

    def copy(self) -> HealthReport:
        """A copy whose lists the caller may change (a cached report stays as it was)."""
        return replace(self, moves=list(self.moves), drops=list(self.drops), not_judged=list(self.not_judged),
                       never_returned=list(self.never_returned), long=list(self.long), untagged=list(self.untagged),
                       duplicates=[list(g) for g in self.duplicates])  # fmt: skip


def sentences(text: str) -> int:
    stripped = text.strip()
    if not any(mark in stripped[:-1] for mark in ".!?"):  # the common case: one sentence
        return 1 if stripped else 0
    return len([s for s in _SENTENCE_END.split(stripped) if s.strip()])


# --------------------------------------------------------------------------- the disk


def _state(path: str) -> str:
    """"file", "dir", "other" (it exists) or "" (nothing there, or out of reach)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return ""
    return "file" if stat.S_ISREG(mode) else "dir" if stat.S_ISDIR(mode) else "other"


class Disk:
    """Every question a report asked the file system, with its answer. Asking them all again
    (one ``stat`` each) tells whether a report made earlier still holds for the files."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def state(self, path: str) -> str:
        found = self.seen.get(path)
        if found is None:
            found = self.seen[path] = _state(path)
        return found

    def unchanged(self) -> bool:
        return all(_state(path) == was for path, was in self.seen.items())


def _root(row: ScopeRow | None, disk: Disk) -> str | None:
    if row is None or not row.root:
        return None
    return row.root if disk.state(row.root) == "dir" else None


def _gone(path: str, root: str | None, disk: Disk) -> bool:
    """The cited file is not there (a folder, or a path under a folder not on this machine,
    is not judged): :class:`kenning.core.citations.Checker`'s GONE read from the file's
    existence alone, since a drop needs no more (and a file that is there but cannot be read
    is not gone: its citation is kept)."""
    if not os.path.isabs(path):
        located = os.path.join(root, path) if root is not None else None
    elif root is not None and (path + os.sep).startswith(root.rstrip(os.sep) + os.sep):
        located = path
    else:
        located = path if disk.state(os.path.dirname(path)) else None
    return located is not None and disk.state(located) not in ("file", "dir")


# --------------------------------------------------------------------------- the report


@dataclass(frozen=True)
class _Cached:
    revision: str
    report: HealthReport
    disk: Disk


class _Reports:
    """The last reports made in this process, each valid while the store's revision (every
    memory and scope write, by any process, moves it) and every file answer it rests on stay
    the same. A long-lived reader (the web app) so answers a repeat look with one query and a
    ``stat`` per cited file, and sees a change at once."""

    SIZE = 16

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple[str, str, str | None], _Cached] = OrderedDict()

    def get(self, key: tuple[str, str, str | None], revision: str) -> HealthReport | None:
        with self._lock:
            entry = self._entries.get(key)
        if entry is None or entry.revision != revision or not entry.disk.unchanged():
            return None
        return entry.report.copy()

    def put(self, key: tuple[str, str, str | None], entry: _Cached) -> None:
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            while len(self._entries) > self.SIZE:
                self._entries.popitem(last=False)


_REPORTS = _Reports()


def health(core: Core, scope: str | None = None, *, repair: bool = False) -> HealthReport:
    """Report (and with ``repair`` apply) every move and dropped citation, listed before any
    is made. ``scope`` limits the look to one scope; default: the whole workspace. A report is
    made again only when a memory, a scope or a file it looked at changed (see :class:`_Reports`)."""
    revision = core.store.revision(core.workspace)  # read first: a write during the look makes the next one fresh
    key = (revision.split(":", 1)[0], core.workspace, scope)
    if not repair:
        cached = _REPORTS.get(key, revision)
        if cached is not None:
            return cached
    disk = Disk()
    report = _look(core, scope, disk)
    if repair:
        _apply(core, report)
        return report
    _REPORTS.put(key, _Cached(revision, report.copy(), disk))
    return report


def _look(core: Core, scope: str | None, disk: Disk) -> HealthReport:
    store = core.store
    rows = {r.key: r for r in store.list_scopes(core.workspace)}
    # Every active memory of the workspace, including any under a key with no scope row.
    memories = store.glances(core.workspace, scope)
    report = HealthReport(checked=len(memories))
    # A memory filed under a group may move to the one project its session wrote to: only the
    # sessions of such memories are asked about.
    groups = {k for k, r in rows.items() if r.kind == "group"}
    asked = [m.session for m in memories if m.session and m.scope in groups]
    session_projects = _session_projects(store.session_scopes(core.workspace, asked) if asked else [], rows)
    parsed: dict[str, SourceRef] = {}  # many memories cite the same few files

    for memory in memories:
        target = _target(memory, rows, session_projects, disk)
        if target is not None:
            report.moves.append(Move(memory.ref, memory.text, memory.scope, *target))
        final_scope = target[0] if target else memory.scope
        ref = None  # most memories cite nothing
        if memory.source_ref:
            ref = parsed.get(memory.source_ref) or parsed.setdefault(memory.source_ref, parse_ref(memory.source_ref))
        if ref is not None and ref.kind in _CITES_FILE:
            root = _root(rows.get(final_scope), disk)
            if root is None and not os.path.isabs(ref.path):
                if final_scope not in report.not_judged:
                    report.not_judged.append(final_scope)
            elif _gone(ref.path, root, disk):
                report.drops.append(Drop(memory.ref, memory.text, final_scope, memory.source_ref))
        _observe(memory, report)
    report.duplicates = _duplicates(memories)
    return report


def _session_projects(pairs: list[tuple[str, str]], rows: dict[str, ScopeRow]) -> dict[str, set[str]]:
    """Session -> the live projects it wrote memories to (the teaching session's project)."""
    projects = {k for k, r in rows.items() if r.kind == "project" and r.removed_at is None}
    found: dict[str, set[str]] = {}
    for session, scope in pairs:
        if scope in projects:
            found.setdefault(session, set()).add(scope)
    return found


def _target(memory: Glance, rows: dict[str, ScopeRow], sessions: dict[str, set[str]],
            disk: Disk) -> tuple[str, str] | None:  # fmt: skip
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
    if ref.kind in _CITES_FILE and not os.path.isabs(ref.path):
        holders = [r.key for r in below
                   if (root := _root(r, disk)) is not None and disk.state(os.path.join(root, ref.path)) == "file"]  # fmt: skip
        if len(holders) == 1:
            return holders[0], f"its cited file {ref.path} is only in {holders[0]}"
    written = sessions.get(memory.session, set()) & {r.key for r in below} if memory.session else set()
    if len(written) == 1:
        only = next(iter(written))
        return only, f"its session {memory.session} belongs to {only}"
    return None


def _observe(memory: Glance, report: HealthReport) -> None:
    if memory.recalled == 0:
        report.never_returned.append(memory.ref)
    if sentences(memory.text) > 1:
        report.long.append(memory.ref)
    if not memory.tagged:
        report.untagged.append(memory.ref)


def _duplicates(memories: list[Glance]) -> list[list[str]]:
    groups: dict[tuple[str, str], list[str]] = {}
    for memory in memories:
        key = (memory.scope, " ".join(memory.text.lower().split()).rstrip("."))
        groups.setdefault(key, []).append(memory.ref)
    return [refs for refs in groups.values() if len(refs) > 1]


def _apply(core: Core, report: HealthReport) -> None:
    store, now = core.store, core.now()
    with store.transaction():
        for move in report.moves:
            memory = store.get(core.workspace, move.ref)
            if memory is not None and memory.scope == move.from_scope:
                store.update(memory.evolve(scope=move.to_scope))
                store.add_event(core.workspace, MemoryEvent(move.ref, now, "moved", f"{move.from_scope} -> {move.to_scope}: {move.why}"))
        for drop in report.drops:
            memory = store.get(core.workspace, drop.ref)
            if memory is not None and memory.source_ref == drop.source_ref:
                store.update(memory.evolve(source_ref="", source_hash="", citation=Citation.UNCHECKED))
                store.add_event(core.workspace, MemoryEvent(drop.ref, now, "citation_dropped", drop.source_ref))
    report.applied = True
