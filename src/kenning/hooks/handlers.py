"""What each hook event does once the database is open. The entry point (main.py) decides
whether it needs opening at all; these functions return the text to add or the reason to send
a turn back, and never raise on a strange folder."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from kenning import sessionmarks, userconfig
from kenning.context import brief, notes
from kenning.core import work
from kenning.core.lifecycle import RESTING_AFTER
from kenning.hooks.events import HookEvent
from kenning.store.sqlite.hooks_store import HookStore, SessionRow

if TYPE_CHECKING:
    from kenning.core.scopes import Place
    from kenning.core.service import Core

MIN_FIRST_PROMPT = 8
TIDY_EVERY = timedelta(days=7)
TIDY_MANY = 300
TIDY_PREFS_DECISIONS = 5
RECALL_ASK = ("Before you start, call `recall` with this task in your own words (skip it if the request "
              "is trivial). Memory is looked up for the task; nothing was given at the start.")  # fmt: skip
TIDY_ASK = ("This project's memory needs a tidy ({why}). When this task is done, offer the user a tidy: "
            "list_memories, then propose_memory_change for merges, retirements or lessons; change nothing "
            "without their yes.")  # fmt: skip
STOP_ASK = ("This session changed files and never looked the task up in memory. Call `recall` with the "
            "task in your own words, check the result against what you did, then finish.")  # fmt: skip


@dataclass(frozen=True)
class Reply:
    context: str = ""
    send_back: str = ""
    hold: str = ""  # hold the tool call once, with this as the reason the model reads


def _place(core: Core, event: HookEvent) -> Place:
    return core.place(event.cwd or None)


def _session(core: Core, place: Place, event: HookEvent, holdout: bool | None) -> SessionRow:
    return work.ensure_session(core, place, event.tool, event.session_id, event.cwd, forced=holdout)


def _hooks(core: Core) -> HookStore:
    return work.hooks_of(core)


def wake_up(core: Core, place: Place, session: SessionRow) -> str:
    """The wake-up bundle of :mod:`kenning.context.wakeup`, for projects whose setting
    ``start.wakeup`` is on (``kenning config set start.wakeup on``; off by default)."""
    if core.db is None or core.settings is None:
        return ""
    if not userconfig.is_on(str(core.settings.home), userconfig.WAKEUP_AT_START, place.project):
        return ""
    from kenning.context import wakeup

    return wakeup.bundle(core, core.db, place)


def on_start(core: Core, event: HookEvent, holdout: bool | None) -> Reply:
    place = _place(core, event)
    # Not parked.at_start: its citation sweep and state scans cost ~0.2 s per thousand
    # memories, past this hook's budget; the MCP server's start runs it. The brief reads
    # other branches' uncommitted work from git directly.
    session = _session(core, place, event, holdout)
    _hooks(core).update_session(session.session, last_seen=core.now(), branch=place.branch, ended_at=None)
    task = work.task_of(core, session)
    if task is not None:
        from kenning.context import card  # git grep and the file matching: only for a task run

        text = card.build(core, place, task, session)
    else:
        text = brief.build(core, place, session, holdout=session.holdout)
    extra = wake_up(core, place, session)
    return Reply(context=f"{text}\n\n{extra}" if extra else text)


def tidy_reason(core: Core, place: Place) -> str:
    hooks, now = _hooks(core), core.now()
    last = hooks.last_ask(core.workspace, place.project, "tidy")
    if last is not None and now - last < TIDY_EVERY:
        return ""
    if hooks.open_proposals(core.workspace, place.project):
        return ""
    awake, prefs_decisions, triggered = hooks.tidy_counts(core.workspace, place.project, now - RESTING_AFTER)
    if awake > TIDY_MANY:
        return f"{awake} memories that are not resting"
    if prefs_decisions >= TIDY_PREFS_DECISIONS and triggered == 0:
        return f"{prefs_decisions} preferences and decisions, and no lesson with a trigger"
    return ""


def on_prompt(core: Core, event: HookEvent, holdout: bool | None) -> Reply:
    place = _place(core, event)
    session = _session(core, place, event, holdout)
    hooks, now = _hooks(core), core.now()
    prompt = event.prompt.strip()
    first = session.first_prompt_at is None and len(prompt) >= MIN_FIRST_PROMPT
    fields: dict[str, object] = {"last_seen": now, "prompts": session.prompts + 1}
    parts: list[str] = []
    if first:
        fields.update(first_prompt_at=now, opening=work.session_words(prompt))
    branch_now = place.branch  # read from .git by this process (git facts are cached per process only)
    with core.store.transaction():
        hooks.update_session(session.session, **fields)
        if first and session.task_id is None and not session.holdout:
            parts.append(RECALL_ASK)
            why = tidy_reason(core, place)
            if why:
                parts.append(TIDY_ASK.format(why=why))
                hooks.set_ask(core.workspace, place.project, "tidy", now, session.session)
        parts.extend(notes.build(core, place, session, prompt, branch_now))
    return Reply(context="\n".join(parts))


LESSONS_HEAD = ("kenning lessons for this call (it was held once so that you read them first; issue it "
                "again, changed if a lesson says so):")  # fmt: skip


def on_tool(core: Core, event: HookEvent, holdout: bool | None) -> Reply:
    """Hand out the lessons this call matches, holding the call once so they arrive before it
    runs. (That the session changed files or called recall is in marker files: main.py.)"""
    place = _place(core, event)
    session = _session(core, place, event, holdout)
    if not event.lessons_here or session.holdout:
        return Reply()
    from kenning.core import lessons as lessons_mod  # only a call that could match gets here
    from kenning.core.render import memory_line

    call = lessons_mod.ToolCall(event.call_kind, event.command, event.paths)
    given = lessons_mod.for_call(core, place, call, session.session, event.cwd)
    if not given:
        return Reply()
    text = "\n".join([LESSONS_HEAD] + [f"- {memory_line(m, limit=400)}" for m in given])
    return Reply(hold=text) if event.kind == "pre_tool" else Reply(context=text)


def marked(core: Core, event: HookEvent, session: SessionRow) -> tuple[bool, bool]:
    """(called recall, changed files): the row's flags or the marker files the tool-call hooks
    leave (they never open the store for these)."""
    recalled, changed = session.recalled, session.changed_files
    if core.settings is not None:
        home = str(core.settings.home)
        recalled = recalled or sessionmarks.has(home, event.tool, event.session_id, sessionmarks.RECALLED)
        changed = changed or sessionmarks.has(home, event.tool, event.session_id, sessionmarks.CHANGED_FILES)
    return recalled, changed


def on_stop(core: Core, event: HookEvent, holdout: bool | None) -> Reply:
    place = _place(core, event)
    session = _session(core, place, event, holdout)
    hooks = _hooks(core)
    recalled, changed = marked(core, event, session)
    hooks.update_session(session.session, last_seen=core.now(), last_message=work.session_words(event.last_message),
                         recalled=recalled, changed_files=changed)  # fmt: skip
    if event.stop_hook_active or session.stop_asked or recalled:
        return Reply()
    if session.task_id is not None or session.holdout or not changed:
        return Reply()
    hooks.update_session(session.session, stop_asked=True)
    return Reply(send_back=STOP_ASK)


# Claude Code gives every SessionEnd hook 1.5 s together; a larger transcript waits for
# `kenning escalate` (or the next session end) rather than being cut off mid-way.
ESCALATE_INLINE_BYTES = 4_000_000


def on_end(core: Core, event: HookEvent, holdout: bool | None) -> Reply:
    hooks = _hooks(core)
    key = work.session_key(event.tool, event.session_id)
    row = hooks.session(key)
    if row is not None:
        recalled, changed = marked(core, event, row)
        hooks.update_session(key, ended_at=core.now(), last_seen=core.now(), recalled=recalled,
                             changed_files=changed)  # fmt: skip
    escalate_session(core, event)
    return Reply()


def escalate_session(core: Core, event: HookEvent) -> None:
    """The session's decisions, the user's corrections and its outcome become graph facts."""
    if core.db is None or core.settings is None or not event.session_id:
        return
    path = Path(event.transcript_path) if event.transcript_path else None
    if path is not None and path.is_file() and path.stat().st_size > ESCALATE_INLINE_BYTES:
        return
    from kenning.graph.escalate import at_session_end

    at_session_end(core.db, core.settings, core.clock, event.tool, event.session_id, event.transcript_path, event.cwd)


HANDLERS = {"start": on_start, "prompt": on_prompt, "pre_tool": on_tool, "post_tool": on_tool,
            "stop": on_stop, "end": on_end}  # fmt: skip


def handle(core: Core, event: HookEvent, holdout: bool | None = None) -> Reply:
    handler = HANDLERS.get(event.kind)
    return handler(core, event, holdout) if handler else Reply()


