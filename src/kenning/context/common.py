"""Lines the brief and the card share: open items, other sessions, rules."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kenning import gitinfo
from kenning.core import rules, work

if TYPE_CHECKING:
    from kenning.core.scopes import Place
    from kenning.core.service import Core
    from kenning.store.sqlite.hooks_store import SessionRow

RECALL_LINE = "Once you know the task, call `recall` with it in your own words: memory is looked up for the task, not given here."


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def scope_line(place: Place) -> str:
    name = place.name or place.project
    if not place.branch:
        return f"Project {name} · no branch"
    if place.branch == "HEAD":
        return f"Project {name} · detached HEAD"
    return f"Project {name} · branch {place.branch}"


def parked_branches(core: Core, place: Place) -> list[str]:
    """Other branches holding uncommitted work, as git says now (one `git worktree list` and
    one `git status` per worktree: cheaper than reading kenning's parked ``state`` memories
    back, and never stale)."""
    if place.root is None:
        return []
    try:
        states = gitinfo.dirty_worktrees(place.root)
    except (gitinfo.GitError, OSError):
        return []
    found = []
    for state in states:
        if state.branch in (place.branch, gitinfo.DETACHED):
            continue
        found.append(f"{state.branch} ({len(state.changes)} files)")
    return sorted(found)


MAX_WAITING = 3
# What most needs you first: a review asked of you, then your own work that came back.
_RANK = {"review requested": 0, "changes requested": 1, "approved": 2, "": 3}


def waiting_lines(core: Core, place: Place) -> list[str]:
    """Pull requests and issues waiting on you, from what `kenning refresh` last read through
    `gh` (a hook uses no network): none without gh, none older than 24 hours."""
    if place.root is None:
        return []
    from kenning.core import waiting  # only the start hook needs it, not every prompt

    items = sorted(waiting.cached(core, place.project), key=lambda i: _RANK.get(i.why, 4))
    return [clip(i.line, 90) for i in items]


def with_waiting(open_line: str, items: list[str], count: int) -> str:
    """The Open line with the first ``count`` waiting items at its end."""
    if count <= 0 or not items:
        return open_line
    more = f" (+{len(items) - count} more on GitHub)" if len(items) > count else ""
    text = "; ".join(items[:count]) + more
    return f"{open_line} | {text}" if open_line else f"Open: {text}"


def fit_waiting(compose: Callable[[str], list[str]], open_line: str, items: list[str], tail: list[str],
                limit: int) -> list[str]:  # fmt: skip
    """The body with as many waiting items (at most 3) as keep it and ``tail`` within
    ``limit``: the list is trimmed, never another section."""
    for count in range(min(len(items), MAX_WAITING), 0, -1):
        lines = compose(with_waiting(open_line, items, count))
        if len("\n".join(lines + tail)) <= limit:
            return lines
    return compose(open_line)


def open_parts(core: Core, place: Place) -> list[str]:
    parts = []
    items = work.open_items(core, place)
    if items:
        parts.append("; ".join(clip(i, 100) for i in items[:5]) + (f" (+{len(items) - 5} more)" if len(items) > 5 else ""))
    tasks = [t for t in work.tasks(core, place) if t.status == "open"]
    if tasks:
        parts.append("tasks: " + "; ".join(f"#{t.id} {clip(t.title, 60)}" for t in tasks[:3]))
    if work.is_trunk(place.branch):
        parked = parked_branches(core, place)
        if parked:
            parts.append("uncommitted work on " + ", ".join(parked[:5]))
    return parts


def others_parts(core: Core, place: Place, me: SessionRow | None) -> list[str]:
    now = core.now()
    return [work.other_line(s, now) for s in work.live_others(core, place, me.session if me else "")[:3]]


def rule_lines(core: Core, place: Place) -> list[str]:
    return [clip(text, 160) for text in rules.sentences(core, place)]


def section(title: str, parts: list[str], limit: int) -> str:
    if not parts:
        return ""
    if len(parts) == 1:
        return clip(f"{title}: {parts[0]}", limit)
    return clip(f"{title}: " + " | ".join(parts), limit)
