"""Who else works in a project, and the time windows that decide it: live sessions, notes left
for other agents, a task waiting for its session, and the trunk branches.

The one definition for :mod:`kenning.core.work` (the core's side) and the session hooks, which
run these on every start and prompt without importing the core: the standard library only.
"""

from __future__ import annotations

from kenning.quoting import as_data, neutral
from kenning.redacted import Redacted, head

TRUNKS = frozenset({"main", "master", "develop", "trunk"})
LIVE_SECONDS = 30 * 60  # a session seen this recently, and not ended, is working here now
HANDOFF_SECONDS = 7 * 86400  # notes left for other agents reach them this long
TASK_CLAIM_SECONDS = 2 * 3600  # the next session in a started task's folder within this is its run


def is_trunk(branch: str) -> bool:
    return branch in TRUNKS or branch in ("", "HEAD")


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def other_line(tool: str, branch: str, opening: str, last_message: str, minutes: int) -> str:
    """``codex on main, asked «…», last said «…», last active 3 min ago``: another session's
    words are data to this one, quoted, never its instructions."""
    bits = [f"{neutral(tool)} on {neutral(branch) or 'no branch'}"]
    if opening:
        bits.append(f"asked {as_data(_clip(neutral(opening), 90))}")
    if last_message:
        bits.append(f"last said {as_data(_clip(neutral(last_message), 90))}")
    bits.append(f"last active {max(0, minutes)} min ago")
    return ", ".join(bits)


def note_is_for(to_agent: str, from_session: str, me: str, tool: str) -> bool:
    """Whether a note left for other agents (``to_agent``: "" for all, else a tool or a
    session) reaches the session ``me`` ("<tool>:<id>") of ``tool``; never its own writer."""
    if from_session == me:
        return False
    return not to_agent or to_agent in (tool, me, me.split(":", 1)[-1])


# How much of a session's words other sessions are shown (its first prompt, its last reply).
WORDS_KEPT = 300


def session_words(text: str) -> Redacted:
    """A session's first prompt or last reply as other sessions may see it: redacted whole,
    then cut to :data:`WORDS_KEPT` characters (never cut first: a cut token escapes redaction)."""
    return head(text, WORDS_KEPT, fold=True)
