"""What a session is asked, and when: the first prompt's `recall` ask, the weekly tidy ask that
may join it, and the end-of-turn ask. None of them reaches a holdout session or a session
started from a task.

Standard library and the hook's plain connection (:mod:`kenning.store.hotpath`) only: the
prompt hook's path.
"""

from __future__ import annotations

from kenning import isotime

TYPE_CHECKING = False  # typing is left unimported on purpose (start-up time); mypy reads True
if TYPE_CHECKING:
    from kenning.store.hotpath import HotRows

MIN_FIRST_PROMPT = 8  # a shorter prompt is not counted as the first
TIDY_EVERY_SECONDS = 7 * 86400
TIDY_MANY = 300
TIDY_PREFS_DECISIONS = 5
RESTING_SECONDS = 30 * 86400  # kenning.domain.lifecycle.RESTING_AFTER

RECALL_ASK = ("Before you start, call `recall` with this task in your own words (skip it if the request "
              "is trivial). Memory is looked up for the task; nothing was given at the start.")  # fmt: skip
TIDY_ASK = ("This project's memory needs a tidy ({why}). When this task is done, offer the user a tidy: "
            "list_memories, then propose_memory_change for merges, retirements or lessons; change nothing "
            "without their yes.")  # fmt: skip
STOP_ASK = ("This session changed files and never looked the task up in memory. Call `recall` with the "
            "task in your own words, check the result against what you did, then finish.")  # fmt: skip


def is_first_prompt(prompt: str, first_prompt_at: str | None) -> bool:
    return first_prompt_at is None and len(prompt.strip()) >= MIN_FIRST_PROMPT


def tidy_reason(rows: HotRows, workspace: str, project: str, now: float) -> str:
    """Why the project's memory needs a tidy, or "" (asked at most weekly, never while
    proposals wait in Needs review): more than 300 memories that are not resting, or at least
    5 preferences and decisions and no lesson with a trigger."""
    last = rows.last_ask(workspace, project, "tidy")
    if last is not None and now - isotime.parse(last) < TIDY_EVERY_SECONDS:
        return ""
    if rows.open_proposals(workspace, project):
        return ""
    awake, prefs_decisions, triggered = rows.tidy_counts(workspace, project, isotime.iso(now - RESTING_SECONDS))
    if awake > TIDY_MANY:
        return f"{awake} memories that are not resting"
    if prefs_decisions >= TIDY_PREFS_DECISIONS and triggered == 0:
        return f"{prefs_decisions} preferences and decisions, and no lesson with a trigger"
    return ""
