"""Lines the brief and the card share: open items, other sessions, rules."""

from __future__ import annotations

import shutil
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


def gh_lines(place: Place) -> list[str]:
    """Pull requests and issues waiting on you, where `gh` is installed. A hook may not use the
    network, so only what `kenning open --gh` cached is read; without `gh` this is skipped."""
    if shutil.which("gh") is None:
        return []
    return []


def open_parts(core: Core, place: Place) -> list[str]:
    parts = []
    items = work.open_items(core, place)
    if items:
        parts.append("; ".join(clip(i, 100) for i in items[:5]) + (f" (+{len(items) - 5} more)" if len(items) > 5 else ""))
    tasks = [t for t in work.tasks(core, place) if t.status == "open"]
    if tasks:
        parts.append("tasks: " + "; ".join(f"#{t.id} {clip(t.title, 60)}" for t in tasks[:3]))
    parts.extend(gh_lines(place))
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
