"""The start brief: where the session is, in at most 1,500 characters, with no memory in it.

Shown in this order (seed 000): the scope (project, branch, and the branch's goal when one was
written down — never one guessed from the branch name), open items, other live sessions, up to
5 of the user's rules, and one line pointing the session at `recall` (not in the holdout).

When it would pass 1,500 characters, what is kept goes by importance, not by position:

1. The scope (its line cut to 200 characters, the goal to 300) and the `recall` line: never cut.
2. The rules: up to 5, each cut to 160 characters — this project's own before those for all
   projects, then the longest-standing first (``RuleStore.sentence_rules``); more than 5 are
   counted in the heading. With these limits, scope, rules and the recall line always fit.
3. Open items, then other sessions, in the room that is left: the pull requests and issues
   waiting on you go first (3, 2, 1, none), then the Open line is cut to fit, then the Others
   line is cut or, with less than 40 characters of room, left out.

Everything is read from the store at the moment of the hook, through a :class:`Source`: the
start hook's plain connection (:mod:`kenning.store.hotpath`), or the core's stores
(:class:`StoresSource`, for :func:`build` and a task's card), and from the folder's prepared
facts (git's worktrees).
"""

from __future__ import annotations

from kenning import isotime
from kenning.core import waiting
from kenning.domain import presence
from kenning.quoting import by_origin, cut, neutral

TYPE_CHECKING = False  # typing is left unimported on purpose (start-up time); mypy reads True
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Protocol

    from kenning.context.prepared import Where
    from kenning.core.scopes import Place
    from kenning.core.service import Core
    from kenning.redacted import Redacted
    from kenning.store.protocol import SessionRow, Stores

    # (session key, tool, branch, opening, last reply, last seen as ISO text)
    Other = tuple[str, str, str, Redacted, Redacted, str]

    class Source(Protocol):
        """What the brief reads (the hook's plain connection, or the core's stores)."""

        def sentence_rules(self, workspace: str, project: str) -> list[Redacted]: ...
        def goal_by(self, workspace: str, project: str, branch: str) -> tuple[Redacted, str]: ...
        def meta(self, workspace: str, key: str) -> str | None: ...
        def open_items(self, workspace: str, project: str, branch: str) -> list[tuple[int, Redacted, str]]: ...
        def open_tasks(self, workspace: str, project: str) -> list[tuple[int, Redacted]]: ...
        def others(self, workspace: str, project: str, since: str) -> list[Other]: ...

LIMIT = 1500
RECALL_LINE = ("Once you know the task, call `recall` with it in your own words: memory is looked up for the task, "
               "not given here.")  # fmt: skip
SCOPE_CHARS = 200
GOAL_CHARS = 300
MAX_RULES = 5
RULE_CHARS = 160
OPEN_CHARS = 400
OTHERS_CHARS = 350
MAX_ITEMS = 5
MAX_TASKS = 3
MAX_PARKED = 5
MAX_OTHERS = 3
MAX_WAITING = 3
WAITING_CHARS = 90
MIN_SECTION = 40  # a section with less room than this is left out rather than cut to a stub


def clip(text: str, limit: int) -> str:
    """A rendered line folded to one line and cut to ``limit``, its quotes kept closed."""
    return cut(" ".join(text.split()), limit)


def origin_of(by: str) -> str:
    """Goals and open items record who wrote them: "person" (the kenning command) or an agent."""
    return "person" if by == "person" else "agent"


def section(title: str, parts: Sequence[str], limit: int) -> str:
    return clip(f"{title}: " + " | ".join(parts), limit) if parts else ""


def scope_line(name: str, branch: str) -> str:
    name, branch = neutral(name), neutral(branch)
    if not branch:
        return f"Project {name} · no branch"
    if branch == "HEAD":
        return f"Project {name} · detached HEAD"
    return f"Project {name} · branch {branch}"


def with_waiting(open_line: str, items: Sequence[str], count: int) -> str:
    """The Open line with the first ``count`` waiting items at its end."""
    if count <= 0 or not items:
        return open_line
    more = f" (+{len(items) - count} more on GitHub)" if len(items) > count else ""
    text = "; ".join(items[:count]) + more
    return f"{open_line} | {text}" if open_line else f"Open: {text}"


class Parts:
    """What a brief (or a task's card) says, before it is fitted to its limit."""

    __slots__ = ("scope", "goal", "open", "waiting", "others", "rules", "more_rules")

    def __init__(self, scope: str, goal: str, open: list[str], waiting: list[str], others: list[str],
                 rules: list[str], more_rules: int) -> None:  # fmt: skip
        self.scope, self.goal, self.open, self.waiting = scope, goal, open, waiting
        self.others, self.rules, self.more_rules = others, rules, more_rules

    def rule_lines(self) -> list[str]:
        if not self.rules:
            return []
        total = len(self.rules) + self.more_rules
        title = "Rules:" if not self.more_rules else f"Rules ({len(self.rules)} of {total}; all: kenning memory rules list):"
        return [title, *(f"- {r}" for r in self.rules)]


def open_parts(source: Source, where: Where, branch: str) -> list[str]:
    ws, project = where.workspace, where.project
    parts = []
    items = source.open_items(ws, project, branch)
    if items:
        more = f" (+{len(items) - MAX_ITEMS} more)" if len(items) > MAX_ITEMS else ""
        # An agent's item is data, quoted (cut inside its quote); the person's, as written.
        parts.append("; ".join(f"#{i} {by_origin(clip(neutral(text), 90), origin_of(by))}"
                               for i, text, by in items[:MAX_ITEMS]) + more)  # fmt: skip
    tasks = source.open_tasks(ws, project)
    if tasks:
        # Tasks are made with the kenning command: the person's words, neutral.
        parts.append("tasks: " + "; ".join(f"#{i} {clip(neutral(title), 60)}" for i, title in tasks[:MAX_TASKS]))
    if presence.is_trunk(branch):
        parked = sorted(f"{neutral(b)} ({n} files)" for b, n in where.dirty if b not in (branch, "HEAD"))
        if parked:
            parts.append("uncommitted work on " + ", ".join(parked[:MAX_PARKED]))
    return parts


def others(source: Source, where: Where, me: str, now: float, limit: int = MAX_OTHERS) -> list[str]:
    """Other sessions seen in this project in the last 30 minutes that have not ended."""
    since = isotime.iso(now - presence.LIVE_SECONDS)
    found = []
    for key, tool, branch, opening, last_message, last_seen in source.others(where.workspace, where.project, since):
        if key == me:
            continue
        minutes = int((now - isotime.parse(last_seen)) // 60)
        found.append(presence.other_line(tool, branch, opening, last_message, minutes))
    return found[:limit]


def gather(source: Source, where: Where, branch: str, me: str, now: float) -> Parts:
    """Everything the brief says, read now: ``me`` is the session's key ("" for none)."""
    ws, project = where.workspace, where.project
    rules = source.sentence_rules(ws, project)
    text, by = source.goal_by(ws, project, branch) if branch else ("", "")
    waits: list[str] = []
    if where.root:  # only a repository has pull requests and issues
        raw = source.meta(ws, waiting.cache_key(project))
        waits = [clip(line, WAITING_CHARS) for line in waiting.lines(raw, now)]
    return Parts(
        scope=scope_line(where.name or project, branch),
        # An agent's goal is data, quoted (cut inside its quote); the person's, as written.
        goal=by_origin(clip(neutral(text), GOAL_CHARS - 10), origin_of(by)) if text else "",
        open=open_parts(source, where, branch), waiting=waits, others=others(source, where, me, now),
        # The rules are the person's own (the kenning command): neutral, not quoted.
        rules=[clip(neutral(r), RULE_CHARS) for r in rules[:MAX_RULES]], more_rules=max(0, len(rules) - MAX_RULES),
    )  # fmt: skip


def _fit(line: str, room: int) -> str:
    """``line`` if it fits in ``room`` characters (its newline included), else cut to fit, or
    "" with less than MIN_SECTION characters of room."""
    if not line or len(line) + 1 <= room:
        return line
    return clip(line, room - 1) if room - 1 >= MIN_SECTION else ""


def compose(parts: Parts, *, holdout: bool = False, limit: int = LIMIT) -> str:
    """The brief's text, at most ``limit`` characters, trimmed by importance (module doc)."""
    head = [clip(f"kenning · {parts.scope}", SCOPE_CHARS)]
    if parts.goal:
        head.append(clip(f"Goal: {parts.goal}", GOAL_CHARS))
    rules = parts.rule_lines()
    tail = [] if holdout else [RECALL_LINE]
    fixed = "\n".join(head + rules + tail)
    while len(fixed) > limit and len(rules) > 1:  # only with a limit below what the caps allow
        rules.pop()
        fixed = "\n".join(head + rules + tail)
    room = limit - len(fixed)
    core_open = section("Open", parts.open, OPEN_CHARS)
    open_line = ""
    for count in range(min(len(parts.waiting), MAX_WAITING), -1, -1):
        candidate = with_waiting(core_open, parts.waiting, count)
        if len(candidate) + 1 <= room:
            open_line = candidate
            break
    else:
        open_line = _fit(core_open, room)
    room -= len(open_line) + 1 if open_line else 0
    others_line = _fit(section("Others", parts.others, OTHERS_CHARS), room)
    body = head + [line for line in (open_line, others_line) if line] + rules + tail
    return cut("\n".join(body), limit)


def build(core: Core, place: Place, session: SessionRow | None = None, *, holdout: bool = False,
          cwd: str = "") -> str:  # fmt: skip
    """The brief for ``place`` through the core (tests, and the hook when it opened the core)."""
    from kenning.context.prepared import where_of

    where = where_of(core, place, cwd or (str(place.root) if place.root else ""))
    parts = gather(StoresSource(core.stores), where, place.branch, session.session if session else "",
                   core.now().timestamp())  # fmt: skip
    return compose(parts, holdout=holdout)


class StoresSource:
    """What the brief reads, from the core's stores (any backend)."""

    __slots__ = ("stores",)

    def __init__(self, stores: Stores) -> None:
        self.stores = stores

    def sentence_rules(self, workspace: str, project: str) -> list[Redacted]:
        return self.stores.rules.sentence_rules(workspace, project)

    def goal_by(self, workspace: str, project: str, branch: str) -> tuple[Redacted, str]:
        return self.stores.work.goal_by(workspace, project, branch)

    def meta(self, workspace: str, key: str) -> str | None:
        return self.stores.memories.get_meta(workspace, key)

    def open_items(self, workspace: str, project: str, branch: str) -> list[tuple[int, Redacted, str]]:
        return [(r.id, r.text, r.by) for r in self.stores.work.items(workspace, project, branch)]

    def open_tasks(self, workspace: str, project: str) -> list[tuple[int, Redacted]]:
        return [(t.id, t.title) for t in self.stores.work.tasks(workspace, project, ("open",))]

    def others(self, workspace: str, project: str, since: str) -> list[Other]:
        from kenning.clock import from_iso, to_iso

        return [(s.session, s.tool, s.branch, s.opening, s.last_message, to_iso(s.last_seen))
                for s in self.stores.hooks.live_sessions(workspace, project, from_iso(since))]  # fmt: skip
