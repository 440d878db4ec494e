"""Notes a later prompt may get (and only these): the branch changed, another agent works in
this project or left a note, or a plan or review is ahead. Each is shown once."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kenning.core import work
from kenning.core.lifecycle import WIDGET_QUOTE
from kenning.store.sqlite.hooks_store import HookStore

if TYPE_CHECKING:
    from kenning.core.scopes import Place
    from kenning.core.service import Core
    from kenning.store.sqlite.hooks_store import SessionRow

PLAN_RE = re.compile(
    r"\b(make|write|draft|prepare|create|do|give me|need)\b[^.?!]{0,40}\b(plan|review|design|test plan|bug report)\b"
    r"|\b(plan|review)\s+(the|this|my|our)\b",
    re.IGNORECASE,
)


def build(core: Core, place: Place, session: SessionRow, prompt: str, branch_now: str) -> list[str]:
    hooks = HookStore(core.db) if core.db is not None else None
    if hooks is None:
        return []
    notes: list[str] = []
    now = core.now()
    if branch_now and session.branch and branch_now != session.branch:
        notes.append(f"The branch changed: this session is now on {branch_now} (was {session.branch}).")
    if branch_now != session.branch:
        hooks.update_session(session.session, branch=branch_now)
    seen_agents = hooks.shown(session.session, "agent")
    fresh = [s for s in work.live_others(core, place, session.session) if s.session not in seen_agents]
    notes.extend(f"Another agent works in this project: {work.other_line(o, now)}." for o in fresh[:2])
    hooks.mark_shown(session.session, "agent", [s.session for s in fresh], now)
    pending = work.pending_handoffs(core, place, session)
    for h in pending[:3]:
        body = WIDGET_QUOTE.format(h.text) if h.origin == "widget" else h.text
        who = h.from_tool or "another agent"
        notes.append(f"A note left for you by {who}: {body}")
    hooks.mark_shown(session.session, "handoff", [str(h.id) for h in pending], now)
    if PLAN_RE.search(prompt or ""):
        notes.append("A plan or review is ahead: once it is written, ask the user whether to keep it "
                     "(log_progress with its goal and open items).")  # fmt: skip
    return notes
