"""The memory report: does memory help? Per project or overall, over a window, from what the
hooks recorded and the transcripts capture read — no model, no estimate. Every figure and how
it is computed is in docs/report.md; the definitions live here once.

- **Sessions** per tool and group (pointed at memory, or the holdout), as the hooks saw them
  start in the window; sessions captured that no hook saw are counted apart.
- **Reach** per tool: captured *work* sessions (the agent made a tool call) that were handed
  at least one memory on any channel ÷ sessions captured.
- **Given vs used** per channel (brief, card, index, lesson, recall, note): memories handed to
  a session (``memory_deliveries``; a session's first delivery of a ref on a channel) and, of
  those handed to a session whose transcript was captured, the share *used* after it was given:
  (1) the agent cited its ref — in its own prose or a tool call's input, ``used=`` included —
  in a turn at or after the delivery; or (2) a ``used=`` (remember, progress) recorded the ref
  for that session at or after the delivery; or (3) for ``recall`` hits only, the agent then
  acted on it: a later call read, edited or named in a command the file the memory cites.
- **The holdout comparison**: per captured session seen by the hooks (not started from a
  task), corrections, repeated asks, recall calls, edits and reverted work
  (:mod:`kenning.core.session_signals`); both groups' means, their difference (pointed − holdout)
  with a 95 % Welch interval, and the sessions per group it would take to tell a difference of
  that size (:mod:`kenning.domain.welch`).
- **Health**: memories written in the window ÷ distinct memories cited in it (lower is
  better); imported memories per tool (the agents' own memory files); per project, active
  memories, index lines, and changed and gone citations.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from kenning.clock import from_iso, to_iso
from kenning.context.given import session_ids
from kenning.core import session_signals as sig
from kenning.core.policy import MEMORY_FILE_TOOL_SUFFIX
from kenning.domain import welch
from kenning.domain.holdout import ONE_IN
from kenning.domain.matching import cited_path, names_file
from kenning.errors import Invalid, NotFound
from kenning.model import Memory, Status
from kenning.store.protocol import CHANNELS, DeliveryRow, MemoryFilter, SessionRow, StoredSession, UseRow

if TYPE_CHECKING:
    from kenning.core.service import Core

DEFAULT_DAYS = 30
MAX_DAYS = 3650
MEASURES = (
    ("corrections", "corrections by the person"),
    ("repeated_asks", "repeated asks"),
    ("recall_calls", "recall calls"),
    ("edits", "edits"),
    ("reverted", "reverted work"),
)
NEXT_TURNS = 4  # turns after a delivery shown on a sample sheet
TURN_CHARS = 400


# ------------------------------------------------------------------------------ window


@dataclass(frozen=True)
class Window:
    since: datetime
    until: datetime
    project: str = ""  # "" for every project

    @property
    def days(self) -> float:
        return round((self.until - self.since).total_seconds() / 86400, 2)

    def holds(self, at: datetime | None) -> bool:
        return at is not None and self.since <= at < self.until


def window_days(text: str) -> int:
    """A window's length as the CLI takes it: ``30``, ``30d`` (days) or ``6w`` (weeks)."""
    raw = text.strip().lower()
    unit = 7 if raw.endswith("w") else 1
    number = raw[:-1] if raw[-1:] in ("d", "w") else raw
    if not number.isdigit():
        raise Invalid(f"--window {text!r} is not a length of time",
                      fix="give days or weeks: --window 30 (or 30d), --window 6w")  # fmt: skip
    return int(number) * unit


def window(now: datetime, *, days: int | None = None, since: str | None = None, project: str = "") -> Window:
    """The report's window: the last ``days`` (30 by default), or from ``since`` (an ISO date
    or time) until now."""
    if days is not None and since:
        raise Invalid("give a window length or a start date, not both",
                      fix="--window 30d counts back from now; --since 2026-03-01 starts on a date")  # fmt: skip
    if since:
        try:
            start = from_iso(since.strip())
        except ValueError:
            raise Invalid(f"--since {since!r} is not a date", fix="give an ISO date like 2026-03-01 (or 2026-03-01T09:00Z)") from None
        if start >= now:
            raise Invalid(f"--since {since} is not in the past", fix="give a date before now")
        return Window(start, now, project)
    count = DEFAULT_DAYS if days is None else days
    if not 1 <= count <= MAX_DAYS:
        raise Invalid(f"a window of {count} days is out of range",
                      fix=f"give a whole number of days from 1 to {MAX_DAYS} (--window 30d, --window 6w)")  # fmt: skip
    return Window(now - timedelta(days=count), now, project)


# ------------------------------------------------------------------------------ figures


@dataclass(frozen=True)
class ToolRow:
    """One agent tool: sessions by group (hooks), sessions captured, and reach."""

    tool: str
    pointed: int
    holdout: int
    from_task: int  # of pointed + holdout: started from a task (they get a card)
    unseen: int  # captured sessions no hook saw (a tool without hooks, or before install)
    captured: int
    work: int  # captured sessions in which the agent made a tool call
    handed: int  # captured work sessions handed at least one memory

    @property
    def reach(self) -> float | None:
        return self.handed / self.captured if self.captured else None


@dataclass(frozen=True)
class ChannelRow:
    channel: str
    given: int  # deliveries: distinct (session, memory) pairs; deliveries to no known session each count
    sessions: int  # sessions handed at least one memory on this channel
    judged: int  # given to a session whose transcript was captured
    used: int  # of judged: used afterwards (see the module's docstring)
    how: dict[str, int] = field(default_factory=dict)  # cited | used= | acted on

    @property
    def share(self) -> float | None:
        return self.used / self.judged if self.judged else None


@dataclass(frozen=True)
class Measure:
    key: str
    label: str
    comparison: welch.Comparison


@dataclass(frozen=True)
class Holdout:
    pointed: int  # sessions compared in each group
    holdout: int
    measures: list[Measure]

    @property
    def enough(self) -> bool:
        return min(self.pointed, self.holdout) >= welch.ENOUGH


@dataclass(frozen=True)
class ProjectHealth:
    project: str
    active: int
    index_lines: int | None  # None when the report was built without them (index_lines=False)
    changed: int  # active memories whose cited code changed
    gone: int  # active memories whose cited file is gone


@dataclass(frozen=True)
class Health:
    written: int  # memories written in the window
    cited: int  # distinct memories cited in the window (used= or a ref in a session's words)
    imported: dict[str, int]  # active memories imported from each tool's own memory files
    projects: list[ProjectHealth]

    @property
    def written_per_cited(self) -> float | None:
        return self.written / self.cited if self.cited else None


@dataclass(frozen=True)
class Report:
    window: Window
    seen: int  # sessions the hooks saw start in the window
    captured: int  # sessions captured that started in the window
    tools: list[ToolRow]
    channels: list[ChannelRow]
    holdout: Holdout
    health: Health

    @property
    def empty(self) -> bool:
        return self.seen == 0 and self.captured == 0


# ------------------------------------------------------------------------- judged use


@dataclass(frozen=True)
class Verdict:
    delivery: DeliveryRow
    captured: str  # the captured session's id ("" when its transcript was not captured)
    used: str  # how it was used: cited | used= | acted on; "" when not (or not judged)

    @property
    def judged(self) -> bool:
        return bool(self.captured)


class _Sessions:
    """Captured sessions and hook sessions, looked up by any spelling of their id, with each
    transcript read once."""

    def __init__(self, core: Core) -> None:
        self.capture = core.stores.capture
        self.hooks = core.stores.hooks
        self.core = core
        self._turns: dict[str, list[sig.Turn]] = {}
        self._captured: dict[str, StoredSession] = {}
        for row in self.capture.sessions(core.workspace, limit=1_000_000):
            for sid in session_ids(row.id):
                self._captured.setdefault(sid, row)
        self.by_key: dict[str, SessionRow] = {}
        for s in self.hooks.all_sessions(core.workspace):
            for sid in session_ids(s.session):
                self.by_key.setdefault(sid, s)

    def captured(self, session: str) -> StoredSession | None:
        return self._captured.get(session) if session else None

    def hook_row(self, session: str) -> SessionRow | None:
        return self.by_key.get(session) if session else None

    def turns(self, captured_id: str) -> list[sig.Turn]:
        if captured_id not in self._turns:
            self._turns[captured_id] = sig.stored_turns(self.capture.turns(self.core.workspace, captured_id))
        return self._turns[captured_id]


def _after(turns: list[sig.Turn], at: datetime) -> list[sig.Turn]:
    return [t for t in turns if t.at is None or t.at >= at]


def judge(delivery: DeliveryRow, turns: list[sig.Turn], uses: list[UseRow], memory: Memory | None) -> str:
    """How the memory a delivery handed out was used afterwards in the session ("" if not)."""
    later = _after(turns, delivery.at)
    if any(ref == delivery.ref for _, ref in sig.citations(later)):
        return "cited"
    if any(u.ref == delivery.ref and u.at >= delivery.at for u in uses):
        return "used="
    if delivery.channel == "recall" and memory is not None:
        path = cited_path(memory.source_ref)
        if path and any(_touches(t, path) for t in later):
            return "acted on"
    return ""


def _touches(turn: sig.Turn, path: str) -> bool:
    if turn.role != "assistant":
        return False
    if any(names_file(path, f.lstrip("/")) or f.endswith("/" + path) for f in turn.files):
        return True
    return any(c.kind in ("shell", "read", "edit") and path in c.input for c in turn.calls)


# ------------------------------------------------------------------------------ build


def _scopes(core: Core, project: str) -> list[str]:
    from kenning.core.browse import scope_keys

    if not project:
        return scope_keys(core, "")
    place = core.place(project=project)
    return list(place.reach)


def _known_project(core: Core, project: str, sessions: _Sessions) -> None:
    known = {s.key for s in core.store.list_scopes(core.workspace)} | set(core.store.memory_scopes(core.workspace))
    known |= {s.project for s in sessions.by_key.values()}
    if project not in known:
        raise NotFound(f"no project {project!r} here", fix="list projects with: kenning projects (or leave out --project for all)")


def build(core: Core, win: Window, progress: Callable[[Iterable[str]], Iterable[str]] | None = None, *,
          check_project: bool = True, index_lines: bool = True) -> Report:  # fmt: skip
    """The report for ``win`` (``progress`` wraps the loop over captured sessions, for a bar).
    A project named by a person (``check_project``) must be one kenning knows: a typo says so
    instead of reporting nothing. ``index_lines=False`` leaves out each project's index line
    count, most of the report's cost (the web app's charts do not show it)."""
    sessions = _Sessions(core)
    if win.project and check_project:
        _known_project(core, win.project, sessions)

    def in_project(project: str) -> bool:
        return not win.project or project == win.project

    hook_rows = [s for s in {id(s): s for s in sessions.by_key.values()}.values()
                 if win.holds(s.started_at) and in_project(s.project)]  # fmt: skip
    captured_rows = [r for r in {r.id: r for r in sessions.capture.sessions(core.workspace, limit=1_000_000)}.values()
                     if win.holds(_start(r)) and in_project(r.project)]  # fmt: skip
    deliveries = [d for d in sessions.hooks.deliveries(core.workspace, win.since, win.until) if in_project(d.project)]
    uses = core.store.uses_since(core.workspace, win.since, win.until)
    memories = {m.ref: m for m in core.store.get_many(core.workspace, list({d.ref for d in deliveries}))}

    # Each captured session in the window: its signals and citations.
    ids = [r.id for r in captured_rows]
    signals: dict[str, sig.Signals] = {}
    cited: set[str] = set()
    for cid in progress(ids) if progress else ids:
        turns = sessions.turns(cid)
        signals[cid] = sig.signals(turns)
        cited |= {ref for t, ref in sig.citations(turns) if t.at is None or win.holds(t.at)}

    verdicts = _verdicts(sessions, deliveries, uses, memories)
    tools = _tools(sessions, hook_rows, captured_rows, signals, deliveries)
    channels = _channels(verdicts)
    holdout = _holdout(sessions, hook_rows, signals)
    health = _health(core, win, cited | {u.ref for u in uses}, index_lines=index_lines)
    return Report(win, len(hook_rows), len(captured_rows), tools, channels, holdout, health)


def _start(row: StoredSession) -> datetime | None:
    for value in (row.first_at, row.last_at):
        try:
            if value:
                return from_iso(value)
        except ValueError:
            continue
    return None


def _verdicts(sessions: _Sessions, deliveries: list[DeliveryRow], uses: list[UseRow],
              memories: dict[str, Memory]) -> list[Verdict]:  # fmt: skip
    by_session: dict[str, list[UseRow]] = {}
    for u in uses:
        by_session.setdefault(u.session, []).append(u)
    out = []
    for d in deliveries:
        row = sessions.captured(d.session)
        if row is None:
            out.append(Verdict(d, "", ""))
            continue
        cid = row.id
        mine = [u for sid in session_ids(d.session) for u in by_session.get(sid, [])]
        out.append(Verdict(d, cid, judge(d, sessions.turns(cid), mine, memories.get(d.ref))))
    return out


def _tools(sessions: _Sessions, hook_rows: list[SessionRow], captured_rows: list[StoredSession],
           signals: dict[str, sig.Signals], deliveries: list[DeliveryRow]) -> list[ToolRow]:  # fmt: skip
    counts: dict[str, Counter[str]] = {}
    for s in hook_rows:
        c = counts.setdefault(s.tool, Counter())
        c["holdout" if s.holdout else "pointed"] += 1
        c["from_task"] += s.task_id is not None
    handed = {sid for d in deliveries if d.session for sid in session_ids(d.session)}
    for r in captured_rows:
        cid, tool = r.id, r.tool
        c = counts.setdefault(tool, Counter())
        c["captured"] += 1
        if sessions.hook_row(cid) is None:
            c["unseen"] += 1
        if signals[cid].worked:
            c["work"] += 1
            if cid in handed or any(sid in handed for sid in session_ids(cid)):
                c["handed"] += 1
    rows = [ToolRow(tool, c["pointed"], c["holdout"], c["from_task"], c["unseen"], c["captured"], c["work"],
                    c["handed"]) for tool, c in counts.items()]  # fmt: skip
    return sorted(rows, key=lambda r: (-(r.pointed + r.holdout + r.unseen), r.tool))


def _channels(verdicts: list[Verdict]) -> list[ChannelRow]:
    rows = []
    for channel in CHANNELS:
        mine = [v for v in verdicts if v.delivery.channel == channel]
        judged = [v for v in mine if v.judged]
        how = Counter(v.used for v in judged if v.used)
        rows.append(ChannelRow(channel, len(mine), len({v.delivery.session for v in mine if v.delivery.session}),
                               len(judged), sum(how.values()), dict(how)))  # fmt: skip
    return rows


def _holdout(sessions: _Sessions, hook_rows: list[SessionRow], signals: dict[str, sig.Signals]) -> Holdout:
    groups: dict[bool, list[sig.Signals]] = {False: [], True: []}
    for s in hook_rows:
        if s.task_id is not None:
            continue  # a session started from a task gets its card whatever its group
        row = sessions.captured(s.session)
        if row is None or row.id not in signals:
            continue
        groups[s.holdout].append(signals[row.id])
    measures = [Measure(key, label, welch.compare([float(getattr(x, key)) for x in groups[False]],
                                                  [float(getattr(x, key)) for x in groups[True]], ratio=ONE_IN - 1))
                for key, label in MEASURES]  # fmt: skip
    return Holdout(len(groups[False]), len(groups[True]), measures)


def _health(core: Core, win: Window, cited: set[str], *, index_lines: bool = True) -> Health:
    from kenning.context import index as index_mod

    scopes = _scopes(core, win.project)
    ws = core.workspace
    written = core.store.count(MemoryFilter(ws, scopes, statuses=tuple(Status), created_since=win.since))
    cited_here = {m.ref for m in core.store.get_many(ws, sorted(cited)) if m.workspace == ws and m.scope in scopes}
    imported: Counter[str] = Counter()
    for tool, n in core.store.facet_counts(MemoryFilter(ws, scopes), "origin_tool").items():
        if tool.endswith(MEMORY_FILE_TOOL_SUFFIX):
            imported[tool.removesuffix(MEMORY_FILE_TOOL_SUFFIX)] += n
    keys = [win.project] if win.project else sorted(set(core.store.memory_scopes(ws)))
    projects = []
    for key in keys:
        flt = MemoryFilter(ws, [key])
        active = core.store.count(flt)
        if not active and key != win.project:
            continue
        citations = core.store.facet_counts(flt, "citation")
        lines = len(index_mod.build(core, core.place(project=key)).lines) if index_lines else None
        projects.append(ProjectHealth(key, active, lines, citations.get("changed", 0), citations.get("gone", 0)))
    return Health(written, len(cited_here), dict(imported), projects)


# ------------------------------------------------------------------------------ sample


@dataclass(frozen=True)
class SampleItem:
    delivery: DeliveryRow
    memory: Memory | None
    group: str  # pointed | holdout | unknown
    verdict: str  # how it was judged used, "not used", or "not judged (no transcript)"
    next_turns: list[sig.Turn]


def sample(core: Core, win: Window, count: int, *, seed: int | None = None) -> tuple[int, list[SampleItem]]:
    """``count`` deliveries of the window drawn at random (those to a known session), each with
    the session's next turns, for a person to judge. Returns the seed used and the items."""
    if not 1 <= count <= 500:
        raise Invalid(f"--sample {count} is out of range", fix="draw from 1 to 500 deliveries")
    used_seed = seed if seed is not None else random.SystemRandom().randrange(1, 10**9)
    sessions = _Sessions(core)
    pool = [d for d in sessions.hooks.deliveries(core.workspace, win.since, win.until)
            if d.session and (not win.project or d.project == win.project)]  # fmt: skip
    drawn = random.Random(used_seed).sample(pool, min(count, len(pool)))
    drawn.sort(key=lambda d: (d.at, d.session, d.channel, d.ref))
    memories = {m.ref: m for m in core.store.get_many(core.workspace, [d.ref for d in drawn])}
    uses = core.store.uses_since(core.workspace, win.since, win.until)
    items = []
    for v in _verdicts(sessions, drawn, uses, memories):
        d = v.delivery
        hook = sessions.hook_row(d.session)
        group = "unknown" if hook is None else "holdout" if hook.holdout else "pointed"
        turns = _after(sessions.turns(v.captured), d.at)[:NEXT_TURNS] if v.captured else []
        verdict = v.used or ("not used" if v.judged else "not judged (no transcript)")
        items.append(SampleItem(d, memories.get(d.ref), group, verdict, turns))
    return used_seed, items


# ------------------------------------------------------------------------------ JSON


def _num(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def as_dict(report: Report) -> dict[str, Any]:
    w = report.window
    return {
        "window": {"since": to_iso(w.since), "until": to_iso(w.until), "days": w.days, "project": w.project or None},
        "sessions": {"seen_by_hooks": report.seen, "captured": report.captured},
        "tools": [{"tool": t.tool, "pointed": t.pointed, "holdout": t.holdout, "from_task": t.from_task,
                   "not_seen_by_hooks": t.unseen, "captured": t.captured, "work": t.work, "handed_memory": t.handed,
                   "reach": _num(t.reach)} for t in report.tools],
        "channels": [{"channel": c.channel, "given": c.given, "sessions": c.sessions, "judged": c.judged,
                      "used": c.used, "share_used": _num(c.share), "how": c.how} for c in report.channels],
        "holdout": {
            "pointed_sessions": report.holdout.pointed, "holdout_sessions": report.holdout.holdout,
            "enough": report.holdout.enough, "enough_per_group": welch.ENOUGH,
            "measures": [{"measure": m.key, "label": m.label, "pointed_mean": _num(m.comparison.a.mean),
                          "holdout_mean": _num(m.comparison.b.mean), "pointed_sd": _num(m.comparison.a.sd),
                          "holdout_sd": _num(m.comparison.b.sd), "difference": _num(m.comparison.difference),
                          "low": _num(m.comparison.low), "high": _num(m.comparison.high), "df": _num(m.comparison.df, 2),
                          "sessions_needed": {"pointed": m.comparison.needed_a, "holdout": m.comparison.needed_b}}
                         for m in report.holdout.measures],
        },
        "health": {
            "written": report.health.written, "cited": report.health.cited,
            "written_per_cited": _num(report.health.written_per_cited), "imported": report.health.imported,
            "projects": [{"project": p.project, "active": p.active, "index_lines": p.index_lines,
                          "changed_citations": p.changed, "gone_citations": p.gone} for p in report.health.projects],
        },
    }  # fmt: skip
