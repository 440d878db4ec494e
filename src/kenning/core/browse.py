"""Memory as a person browses it: a filtered, counted listing (or a `recall` search), one
memory's whole card, the projects to choose from, and what was retired lately.

These are reads for the apps a person uses (the web app, later the team server); the
writes they trigger are the ordinary curation calls of :class:`~kenning.core.service.Core`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from kenning.core.curation import History
from kenning.core.scopes import Place
from kenning.domain.lifecycle import in_index, in_recall_pool, is_resting, is_stale
from kenning.errors import Invalid
from kenning.model import GLOBAL_SCOPE, PERSONAL_SCOPE, DecisionDoc, Kind, Memory, Origin, Placement, Status
from kenning.store.protocol import MemoryFilter, ScopeRow, UseRow

if TYPE_CHECKING:
    from kenning.core.recall import RecallHit
    from kenning.core.service import Core

PAGE = 50
MAX_PAGE = 200
RETIRED_SHOWN_FOR = timedelta(days=30)
STATUS_CHOICES = ("active", "superseded", "retired", "all")


@dataclass(frozen=True)
class MemoryQuery:
    """What a listing asks for. Empty strings mean "any"; ``text`` searches with `recall`."""

    project: str = ""  # a scope key; "" = every scope of the workspace
    kind: str = ""
    status: str = "active"
    origin: str = ""
    writer: str = ""  # origin_tool: cli, claude-code, codex, an app's name, ...
    text: str = ""
    as_of: str = ""  # with text: answer from what was believed then (a date or date-time)
    offset: int = 0
    limit: int = PAGE

    def checked(self) -> MemoryQuery:
        """The query, or an Invalid error naming the field that is wrong and its choices."""
        if self.kind and self.kind not in {k.value for k in Kind}:
            raise Invalid(f"kind {self.kind!r} is unknown", fix=f"use one of {', '.join(k.value for k in Kind)}")
        if self.status not in STATUS_CHOICES:
            raise Invalid(f"status {self.status!r} is unknown", fix=f"use one of {', '.join(STATUS_CHOICES)}")
        if self.origin and self.origin not in {o.value for o in Origin}:
            raise Invalid(f"origin {self.origin!r} is unknown", fix=f"use one of {', '.join(o.value for o in Origin)}")
        if self.offset < 0 or not 1 <= self.limit <= MAX_PAGE:
            raise Invalid("offset or limit is out of range", fix=f"give offset >= 0 and a limit from 1 to {MAX_PAGE}")
        return self


@dataclass(frozen=True)
class Facets:
    """Counts over the listing's project, each ignoring its own filter (so every choice shows
    how many it would give)."""

    kinds: dict[str, int]
    statuses: dict[str, int]
    origins: dict[str, int]
    writers: dict[str, int]


@dataclass(frozen=True)
class MemoryPage:
    query: MemoryQuery
    memories: list[Memory]
    total: int  # matching the whole query (a search: the hits returned)
    facets: Facets
    searched: bool = False
    hits: dict[str, RecallHit] = field(default_factory=dict)  # ref -> its recall hit, when searched

    @property
    def has_more(self) -> bool:
        return not self.searched and self.query.offset + len(self.memories) < self.total


@dataclass(frozen=True)
class Everywhere(Place):
    """Every scope of the workspace at once: what "All projects" searches (recall reads
    ``reach``; rules that hold for all projects still apply)."""

    scopes: tuple[str, ...] = ()

    @property
    def reach(self) -> tuple[str, ...]:
        return self.scopes


def scopes(core: Core) -> list[ScopeRow]:
    """The workspace's projects, groups, personal and global scopes, projects first by name
    (a key that holds memories but was never registered shows as a project by its key)."""
    rows = [r for r in core.store.list_scopes(core.workspace) if r.removed_at is None]
    known = {r.key for r in core.store.list_scopes(core.workspace)}
    for key in core.store.memory_scopes(core.workspace):
        if key not in known:
            kind = key if key in (GLOBAL_SCOPE, PERSONAL_SCOPE) else "project"
            rows.append(ScopeRow(core.workspace, key, kind, key, "", "", core.now()))
    order = {"project": 0, "group": 1, "personal": 2, "global": 3}
    return sorted(rows, key=lambda r: (order.get(r.kind, 4), r.name.lower(), r.key))


def scope_keys(core: Core, project: str) -> list[str]:
    if project:
        return [project]
    keys = {r.key for r in core.store.list_scopes(core.workspace)} | set(core.store.memory_scopes(core.workspace))
    return sorted(keys | {GLOBAL_SCOPE, PERSONAL_SCOPE})


def _filter(core: Core, q: MemoryQuery, keys: list[str]) -> MemoryFilter:
    return MemoryFilter(
        core.workspace,
        keys,
        statuses=tuple(Status) if q.status == "all" else (Status(q.status),),
        kinds=(Kind(q.kind),) if q.kind else None,
        origins=(Origin(q.origin),) if q.origin else None,
        origin_tools=(q.writer,) if q.writer else None,
    )


_FACETS = ("kind", "status", "origin", "origin_tool")


def _counted(core: Core, q: MemoryQuery, keys: list[str]) -> tuple[Facets, int]:
    """The facets (each ignoring its own filter) and how many match the whole query, from one
    pass over the project's memories grouped by all four."""
    groups = core.store.facet_groups(MemoryFilter(core.workspace, keys, statuses=tuple(Status)), _FACETS)
    wanted = (q.kind, "" if q.status == "all" else q.status, q.origin, q.writer)

    def counts(skip: int | None) -> dict[str, int]:
        found: dict[str, int] = {}
        for values, n in groups.items():
            if all(i == skip or not want or value == want for i, (value, want) in enumerate(zip(values, wanted, strict=True))):
                key = values[skip] if skip is not None else ""
                found[key] = found.get(key, 0) + n
        return dict(sorted(found.items()))

    facets = Facets(kinds=counts(0), statuses=counts(1), origins=counts(2), writers=counts(3))
    return facets, counts(None).get("", 0)


def facets(core: Core, q: MemoryQuery) -> Facets:
    return _counted(core, q, scope_keys(core, q.project))[0]


def _matches(memory: Memory, q: MemoryQuery) -> bool:
    return (
        (not q.kind or memory.kind.value == q.kind)
        and (q.status == "all" or memory.status.value == q.status)
        and (not q.origin or memory.origin.value == q.origin)
        and (not q.writer or memory.origin_tool == q.writer)
    )


def browse(core: Core, query: MemoryQuery) -> MemoryPage:
    """One page of the listing, newest first, with its counts. With ``text`` it is the same
    `recall` a session or the CLI runs (for the chosen project, or the personal one), its
    hits then narrowed by the other filters."""
    q = query.checked()
    keys = scope_keys(core, q.project)
    counts, total = _counted(core, q, keys)
    if q.text.strip():
        from kenning.core.recall import MAX_COUNT

        place = core.place(project=q.project) if q.project else Everywhere(core.workspace, PERSONAL_SCOPE, "every project", scopes=tuple(keys))
        result = core.recall(place, q.text, count=MAX_COUNT, as_of=q.as_of or None)
        # What was believed then may be superseded or retired now: the status filter does not apply.
        hits = [h for h in result.hits if _matches(h.memory, q if not q.as_of else replace(q, status="all"))]
        return MemoryPage(q, [h.memory for h in hits], len(hits), counts, True, {h.memory.ref: h for h in hits})
    memories = core.store.find(_filter(core, q, keys), offset=q.offset, limit=q.limit, newest_first=True)
    return MemoryPage(q, memories, total, counts)


# ------------------------------------------------------------------------------ the card


@dataclass(frozen=True)
class TimelineEntry:
    at: datetime
    what: str  # created, confirmed, pinned, hidden, retired, superseded, replaced, used, ...
    detail: str = ""
    other_ref: str = ""


@dataclass(frozen=True)
class MemoryCard:
    memory: Memory
    history: History
    uses: list[UseRow]
    timeline: list[TimelineEntry]  # oldest first: what happened to it, and when it was believed
    doc: DecisionDoc | None
    resting: bool
    stale: bool
    in_recall: bool  # a session's recall may return it now
    in_index: bool  # it may be listed in the memory index now
    believed_from: datetime
    believed_until: datetime | None  # when it stopped being active (as_of reads it until then)
    placements: list[Placement] = field(default_factory=list)  # where the person decided it goes

    @property
    def sessions_used(self) -> int:
        return len({u.session for u in self.uses if u.session})

    @property
    def tools_used(self) -> list[str]:
        return sorted({u.tool for u in self.uses if u.tool})


def card(core: Core, ref: str) -> MemoryCard:
    """Everything a person needs to judge one memory."""
    memory = core.get(ref)
    now = core.now()
    hist = core.history(memory.ref)
    uses = core.store.uses(core.workspace, memory.ref)
    timeline = [TimelineEntry(memory.created_at, "created", memory.origin_tool or memory.origin.value)]
    timeline += [TimelineEntry(e.at, e.event, e.detail, e.other_ref) for e in hist.events if e.event != "created"]
    timeline += [TimelineEntry(u.at, "used", u.tool or u.session, "") for u in uses]
    timeline.sort(key=lambda e: e.at)
    doc = core.store.decision_doc_for(core.workspace, memory.ref) if memory.kind is Kind.DECISION else None
    return MemoryCard(
        memory=memory, history=hist, uses=uses, timeline=timeline, doc=doc,
        resting=is_resting(memory, now), stale=is_stale(memory, now),
        in_recall=in_recall_pool(memory, now), in_index=in_index(memory, now),
        believed_from=memory.created_at,
        believed_until=memory.status_at if memory.status is not Status.ACTIVE else None,
        placements=core.store.placements(core.workspace, [memory.ref]),
    )  # fmt: skip


def retired_lately(core: Core, project: str = "", within: timedelta = RETIRED_SHOWN_FOR) -> list[Memory]:
    """Memories retired in the last 30 days (the "retired" list that offers bring-back),
    most recently retired first."""
    since = core.now() - within
    flt = MemoryFilter(core.workspace, scope_keys(core, project), statuses=(Status.RETIRED,))
    found = [m for m in core.store.find(flt, newest_first=True) if m.status_at is not None and m.status_at >= since]
    return sorted(found, key=lambda m: m.status_at or since, reverse=True)
