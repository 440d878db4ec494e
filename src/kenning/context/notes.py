"""Notes a later prompt may get (and only these): the branch changed, another agent works in
this project or left a note, or a plan or review is ahead. Each is shown once.

Read and recorded through the hook's plain connection (:mod:`kenning.store.hotpath`): the
prompt hook runs this without the core.
"""

from __future__ import annotations

from kenning import isotime
from kenning.domain import presence
from kenning.quoting import by_origin, neutral

TYPE_CHECKING = False  # typing is left unimported on purpose (start-up time); mypy reads True
if TYPE_CHECKING:
    import re

    from kenning.context.prepared import Where
    from kenning.store.hotpath import HotRow, HotRows

PLAN_WORDS = ("plan", "review", "design", "bug report")
PLAN_PATTERN = (r"\b(make|write|draft|prepare|create|do|give me|need)\b[^.?!]{0,40}\b(plan|review|design|test plan|"
                r"bug report)\b|\b(plan|review)\s+(the|this|my|our)\b")  # fmt: skip
PLAN_NOTE = ("A plan or review is ahead: once it is written, ask the user whether to keep it "
             "(log_progress with its goal and open items).")  # fmt: skip
MAX_AGENTS = 2
MAX_HANDOFFS = 3
_plan: re.Pattern[str] | None = None


def plan_ahead(prompt: str) -> bool:
    """Whether the prompt asks for a plan or a review (``re`` is imported only when one of the
    words is there)."""
    global _plan
    lowered = prompt.lower()
    if not any(word in lowered for word in PLAN_WORDS):
        return False
    if _plan is None:
        import re

        _plan = re.compile(PLAN_PATTERN, re.IGNORECASE)
    return _plan.search(prompt) is not None


def build(rows: HotRows, where: Where, session: HotRow, prompt: str, branch_now: str,
          now: float) -> list[str]:  # fmt: skip
    """The notes for this prompt; records what was shown, and the session's branch."""
    key, tool, then = str(session["session"]), str(session["tool"]), str(session["branch"])
    ws, project, now_iso = where.workspace, where.project, isotime.iso(now)
    notes: list[str] = []
    if branch_now and then and branch_now != then:
        notes.append(f"The branch changed: this session is now on {neutral(branch_now)} (was {neutral(then)}).")
    if branch_now != then:
        rows.update_session(ws, key, {"branch": branch_now})
    seen_agents = rows.shown(key, "agent")
    since = isotime.iso(now - presence.LIVE_SECONDS)
    fresh = [s for s in rows.live_sessions(ws, project, since)
             if s["session"] != key and s["session"] not in seen_agents]  # fmt: skip
    for s in fresh[:MAX_AGENTS]:
        minutes = int((now - isotime.parse(s["last_seen"])) // 60)
        line = presence.other_line(s["tool"], s["branch"], s["opening"], s["last_message"], minutes)
        notes.append(f"Another agent works in this project: {line}.")
    rows.mark_shown(key, "agent", [str(s["session"]) for s in fresh], now_iso)
    seen_notes = rows.shown(key, "handoff")
    pending = [h for h in rows.handoffs(ws, project, isotime.iso(now - presence.HANDOFF_SECONDS))
               if str(h["id"]) not in seen_notes and presence.note_is_for(h["to_agent"], h["from_session"], key, tool)]  # fmt: skip
    for h in pending[:MAX_HANDOFFS]:
        # An agent's note is data, quoted; a widget's with its label; the person's as written.
        body = by_origin(str(h["text"]), str(h["origin"]))
        notes.append(f"A note left for you by {neutral(str(h['from_tool'])) or 'another agent'}: {body}")
    rows.mark_shown(key, "handoff", [str(h["id"]) for h in pending], now_iso)
    if plan_ahead(prompt):
        notes.append(PLAN_NOTE)
    return notes
