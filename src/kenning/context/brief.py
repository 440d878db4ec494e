"""The start brief: where the session is, in under 1,500 characters, with no memory in it.

Scope (project, branch, the branch's saved goal — never one guessed from the branch name),
open items, other live sessions, up to 5 of the user's rules, and one line pointing the
session at `recall`. Memory is looked up for the task, not handed out at the start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kenning.context.common import (
    RECALL_LINE,
    clip,
    fit_waiting,
    open_parts,
    others_parts,
    rule_lines,
    scope_line,
    section,
    waiting_lines,
)
from kenning.core import work

if TYPE_CHECKING:
    from kenning.core.scopes import Place
    from kenning.core.service import Core
    from kenning.store.sqlite.hooks_store import SessionRow

LIMIT = 1500


def build(core: Core, place: Place, session: SessionRow | None = None, *, holdout: bool = False) -> str:
    head = [f"kenning · {scope_line(place)}"]
    goal = work.goal(core, place) if place.branch else ""
    if goal:
        head.append(clip(f"Goal: {goal}", 300))
    others = section("Others", others_parts(core, place, session), 350)
    rules = rule_lines(core, place)
    rest = ([others] if others else []) + (["Rules:", *(f"- {r}" for r in rules)] if rules else [])

    def compose(open_line: str) -> list[str]:
        return head + ([open_line] if open_line else []) + rest

    tail = [] if holdout else [RECALL_LINE]
    open_line = section("Open", open_parts(core, place), 400)
    return fit(fit_waiting(compose, open_line, waiting_lines(core, place), tail, LIMIT), tail, LIMIT)


def fit(lines: list[str], tail: list[str], limit: int) -> str:
    """Join, dropping lines from the end of the body (never the tail) until it fits."""
    body = list(lines)
    while body:
        text = "\n".join(body + tail)
        if len(text) <= limit:
            return text
        body.pop()
    return clip("\n".join(tail), limit)
