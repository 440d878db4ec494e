"""What the hooks do with the core open: the few things the core-free path (:mod:`kenning.hooks.hot`)
hands over. A session started from a task gets its card (it greps the project for the task's
files), a new session in a folder where a task waits claims it, lessons in a project with
rules that decide what is given out go through those rules, and session end turns the session
into graph facts. These functions return the text to add or the reason to hold a call, and
never raise on a strange folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kenning import userconfig
from kenning.context import brief
from kenning.core import work
from kenning.hooks.events import HookEvent
from kenning.hooks.hot import LESSONS_HEAD

if TYPE_CHECKING:
    from kenning.core.scopes import Place
    from kenning.core.service import Core
    from kenning.store.protocol import SessionRow


@dataclass(frozen=True)
class Reply:
    context: str = ""
    send_back: str = ""
    hold: str = ""  # hold the tool call once, with this as the reason the model reads


def _place(core: Core, event: HookEvent) -> Place:
    return core.place(event.cwd or None)


def claim(core: Core, event: HookEvent, holdout: bool | None) -> SessionRow:
    """The session's row, registered (and a task waiting in its folder claimed) by the core."""
    return work.ensure_session(core, _place(core, event), event.tool, event.session_id, event.cwd, forced=holdout)


def marked(core: Core, event: HookEvent, session: SessionRow) -> tuple[bool, bool]:
    """(called recall, changed files): the row's flags or the marker files the tool-call hooks
    leave (they never open the store for these)."""
    from kenning import sessionmarks

    recalled, changed = session.recalled, session.changed_files
    if core.settings is not None:
        home = str(core.settings.home)
        recalled = recalled or sessionmarks.has(home, event.tool, event.session_id, sessionmarks.RECALLED)
        changed = changed or sessionmarks.has(home, event.tool, event.session_id, sessionmarks.CHANGED_FILES)
    return recalled, changed


def wake_up(core: Core, place: Place) -> str:
    """The wake-up bundle of :mod:`kenning.context.wakeup`, for projects whose setting
    ``start.wakeup`` is on (``kenning config set start.wakeup on``; off by default)."""
    if core.settings is None or not userconfig.is_on(str(core.settings.home), userconfig.WAKEUP_AT_START,
                                                     place.project):  # fmt: skip
        return ""
    from kenning.context import wakeup

    return wakeup.bundle(core, place)


def on_start(core: Core, event: HookEvent, holdout: bool | None) -> Reply:
    place = _place(core, event)
    session = claim(core, event, holdout)
    core.stores.hooks.update_session(core.workspace, session.session, last_seen=core.now(), branch=place.branch,
                                     ended_at=None)  # fmt: skip
    task = work.task_of(core, session)
    if task is not None:
        from kenning.context import card  # git grep and the file matching: only for a task run

        text = card.build(core, place, task, session)
    else:
        text = brief.build(core, place, session, holdout=session.holdout, cwd=event.cwd)
    extra = wake_up(core, place)
    text = f"{text}\n\n{extra}" if extra else text
    if task is None:  # a card records what it carries itself
        from kenning.core import deliveries
        from kenning.refscan import refs_in

        deliveries.record(core, "brief", refs_in(text), session=session.session, project=place.project)
    return Reply(context=text)


def on_tool(core: Core, event: HookEvent, holdout: bool | None) -> Reply:
    """Hand out the lessons this call matches through the user's rules, holding the call once
    so they arrive before it runs."""
    place = _place(core, event)
    session = claim(core, event, holdout)
    if not event.lessons_here or session.holdout:
        return Reply()
    from kenning.core import lessons as lessons_mod
    from kenning.core.render import memory_line

    call = lessons_mod.ToolCall(event.call_kind, event.command, event.paths)
    given = lessons_mod.for_call(core, place, call, session.session, event.cwd)
    if not given:
        return Reply()
    text = "\n".join([LESSONS_HEAD] + [f"- {memory_line(m, limit=400)}" for m in given])
    return Reply(hold=text) if event.kind == "pre_tool" else Reply(context=text)


# Claude Code gives every SessionEnd hook 1.5 s together; a larger transcript waits for
# `kenning escalate` (or the next session end) rather than being cut off mid-way.
ESCALATE_INLINE_BYTES = 4_000_000


def on_end(core: Core, event: HookEvent, holdout: bool | None) -> Reply:
    hooks = core.stores.hooks
    key = work.session_key(event.tool, event.session_id)
    row = hooks.session(core.workspace, key)
    if row is not None:
        recalled, changed = marked(core, event, row)
        hooks.update_session(core.workspace, key, ended_at=core.now(), last_seen=core.now(), recalled=recalled,
                             changed_files=changed)  # fmt: skip
    escalate_session(core, event)
    return Reply()


def escalate_session(core: Core, event: HookEvent) -> None:
    """The session's decisions, the user's corrections and its outcome become graph facts."""
    if not event.session_id:
        return
    path = Path(event.transcript_path) if event.transcript_path else None
    if path is not None and path.is_file() and path.stat().st_size > ESCALATE_INLINE_BYTES:
        return
    from kenning.core.escalate import at_session_end

    at_session_end(core, event.tool, event.session_id, event.transcript_path, event.cwd)


HANDLERS = {"start": on_start, "pre_tool": on_tool, "post_tool": on_tool, "end": on_end}


def handle(core: Core, event: HookEvent, holdout: bool | None = None) -> Reply:
    handler = HANDLERS.get(event.kind)
    return handler(core, event, holdout) if handler else Reply()
