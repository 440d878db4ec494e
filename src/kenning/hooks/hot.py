"""The session hooks without the core: session start, prompts, the end of a turn, and a tool
call that matches a lesson.

Each works on a plain connection to the local store (:mod:`kenning.store.hotpath`) and the
folder's prepared facts (:mod:`kenning.context.prepared`), and imports nothing heavier than
that: the core's imports alone cost several times Python's own start on a busy machine. The
few cases that need the core answer :data:`CORE` and the entry point hands them to
:mod:`kenning.hooks.handlers`: a session started from a task (its card greps the project), a
new session in a folder where a task waits for it (claiming it), and lessons in a project with
rules that decide what is given out (the rules need the memory model).

The same functions run over the core's own connection when the entry point had to open the
core anyway, so there is one way each hook behaves.
"""

from __future__ import annotations

from kenning import isotime, sessionmarks
from kenning.context import asks, brief, notes
from kenning.domain import presence
from kenning.domain.holdout import by_hash
from kenning.redacted import EMPTY

TYPE_CHECKING = False  # typing is left unimported on purpose (start-up time); mypy reads True
if TYPE_CHECKING:
    from collections.abc import Callable

    from kenning.store.hotpath import HotRow, HotRows

    # (session key, column, text) -> True when a detached process will redact and write it
    Defer = Callable[[str, str, str], bool]

    from kenning.context.prepared import Where
    from kenning.hooks.events import HookEvent

CORE = "core"  # the answer of a hook that needs the core

LESSONS_HEAD = ("kenning lessons for this call (it was held once so that you read them first; issue it "
                "again, changed if a lesson says so):")  # fmt: skip
PER_CALL = 2


class Reply:
    """What a hook answers: context to add, a reason to send the turn back, or a reason to
    hold the tool call once. Empty: no output."""

    __slots__ = ("context", "send_back", "hold")

    def __init__(self, context: str = "", send_back: str = "", hold: str = "") -> None:
        self.context, self.send_back, self.hold = context, send_back, hold


class Hook:
    """One hook run: the event, the folder's facts, the store connection and the time."""

    def __init__(self, rows: HotRows, where: Where, event: HookEvent, *, home: str, now: float,
                 forced: bool | None, defer: Defer | None = None) -> None:  # fmt: skip
        self.rows, self.where, self.event, self.home = rows, where, event, home
        self.now, self.now_iso, self.forced = now, isotime.iso(now), forced
        self.key = f"{event.tool}:{event.session_id}"
        # Redaction costs more to import than this hook's budget: the words a session said
        # (its first prompt, its last reply) are redacted and written by a detached process
        # when the entry point can start one, else here.
        self.defer = defer

    def words(self, fields: dict[str, object], column: str, text: str) -> None:
        """Store ``text`` in ``column`` (redacted, cut to 300 characters), now or detached."""
        if not text.strip():
            fields[column] = EMPTY
        elif self.defer is None or not self.defer(self.key, column, text):
            fields[column] = presence.session_words(text)

    # -------------------------------------------------------------------------- session
    def session(self) -> HotRow | str:
        """The session's row, registered on first sight (its holdout group decided then: a
        forced group from the entry point wins, and is recorded); CORE when a task started in
        this folder waits for its session (the core claims it)."""
        rows, event, where = self.rows, self.event, self.where
        ws = where.workspace
        row = rows.session(ws, self.key)
        if row is None:
            since = isotime.iso(self.now - presence.TASK_CLAIM_SECONDS)
            if event.cwd and rows.unclaimed_task(ws, event.cwd, since) is not None:
                return CORE
            group = self.forced if self.forced is not None else by_hash(event.session_id)
            with rows.transaction():
                rows.add_session(self.key, event.tool, ws, where.project, where.branch(), event.cwd, self.now_iso,
                                 group, None)  # fmt: skip
            row = rows.session(ws, self.key)
            if row is None:  # pragma: no cover - inserted just above
                raise RuntimeError(f"session {self.key} was not registered")
        elif self.forced is not None and bool(row["holdout"]) != self.forced:
            rows.update_session(ws, self.key, {"holdout": self.forced})
            row = rows.session(ws, self.key)
            assert row is not None
        return row

    def marked(self, row: HotRow) -> tuple[bool, bool]:
        """(called recall, changed files): the row's flags or the tool-call hooks' markers."""
        e = self.event
        recalled = bool(row["recalled"]) or sessionmarks.has(self.home, e.tool, e.session_id, sessionmarks.RECALLED)
        changed = bool(row["changed_files"]) or sessionmarks.has(
            self.home, e.tool, e.session_id, sessionmarks.CHANGED_FILES
        )
        return recalled, changed

    # ---------------------------------------------------------------------------- hooks
    def start(self, wakeup: bool) -> Reply | str:
        row = self.session()
        if isinstance(row, str) or row["task_id"] is not None:
            return CORE  # a session started from a task gets its card
        branch = self.where.branch()
        self.rows.update_session(self.where.workspace, self.key,
                                 {"last_seen": self.now_iso, "branch": branch, "ended_at": None})  # fmt: skip
        parts = brief.gather(self.rows, self.where, branch, self.key, self.now)
        text = brief.compose(parts, holdout=bool(row["holdout"]))
        if wakeup and self.where.wakeup:
            text = f"{text}\n\n{self.where.wakeup}"
        self.delivered("brief", text)
        return Reply(context=text)

    def delivered(self, channel: str, text: str) -> None:
        """Record the memory refs ``text`` hands this session (the brief and prompt notes carry
        none by design; a note may quote one)."""
        if "m:" not in text:
            return
        from kenning.refscan import refs_in

        refs = refs_in(text)
        if refs:
            self.rows.add_deliveries(self.where.workspace, self.key, channel, refs, self.where.project,
                                     self.event.tool, self.now_iso)  # fmt: skip

    def prompt(self) -> Reply | str:
        row = self.session()
        if isinstance(row, str):
            return CORE
        prompt = self.event.prompt.strip()
        first = asks.is_first_prompt(prompt, row["first_prompt_at"])
        fields: dict[str, object] = {"last_seen": self.now_iso, "prompts": int(row["prompts"]) + 1}
        if first:
            fields["first_prompt_at"] = self.now_iso
            self.words(fields, "opening", prompt)
        where, parts = self.where, []
        with self.rows.transaction():
            self.rows.update_session(where.workspace, self.key, fields)
            if first and row["task_id"] is None and not row["holdout"]:
                parts.append(asks.RECALL_ASK)
                why = asks.tidy_reason(self.rows, where.workspace, where.project, self.now)
                if why:
                    parts.append(asks.TIDY_ASK.format(why=why))
                    self.rows.set_ask(where.workspace, where.project, "tidy", self.now_iso, self.key)
            noted = notes.build(self.rows, where, row, prompt, where.branch(), self.now)
            self.delivered("note", "\n".join(noted))
            parts.extend(noted)
        return Reply(context="\n".join(parts))

    def stop(self) -> Reply | str:
        row = self.session()
        if isinstance(row, str):
            return CORE
        recalled, changed = self.marked(row)
        fields: dict[str, object] = {"last_seen": self.now_iso, "recalled": recalled, "changed_files": changed}
        self.words(fields, "last_message", self.event.last_message)
        ask = not (self.event.stop_hook_active or row["stop_asked"] or recalled)
        ask = ask and row["task_id"] is None and not row["holdout"] and changed
        if ask:
            fields["stop_asked"] = True
        self.rows.update_session(self.where.workspace, self.key, fields)
        return Reply(send_back=asks.STOP_ASK) if ask else Reply()

    def lessons(self, entries: list[tuple[str, str, str, str, str, int, str]]) -> Reply | str:
        """The lessons this call matches (``entries``: the compiled trigger file's candidates,
        see :func:`kenning.hooks.fast.candidates`), at most 2, each once per session; the call is
        held once with them when the hook runs before it."""
        from kenning.domain import matching, wording

        event, where, rows = self.event, self.where, self.rows
        row = self.session()
        if isinstance(row, str):
            return CORE
        if row["holdout"]:
            return Reply()
        reach = set(where.reach)
        rels = [matching.relative(p, where.root or None, event.cwd) for p in event.paths if p]
        # Entries: (kind, ref, workspace, scope, created_at, id, pattern); kind is shell, read,
        # edit or cited (pattern: the cited path). Order as the core's: triggered lessons
        # newest first, then for each touched file the lessons and decisions citing it.
        mine = [e for e in entries if e[2] == where.workspace and e[3] in reach]
        triggered = sorted(((e[4], e[5]), e[1]) for e in mine if e[0] != "cited"
                           and matching.fires(e[0], e[6], event.call_kind, event.command, rels))  # fmt: skip
        order = [ref for _, ref in reversed(triggered)]
        citing: set[str] = set()
        for rel in rels:
            hits = sorted(((e[4], e[5]), e[1]) for e in mine if e[0] == "cited" and matching.names_file(e[6], rel))
            for _, ref in reversed(hits):
                citing.add(ref)
                if ref not in order:
                    order.append(ref)
        given = rows.shown(self.key, "lesson")
        fresh = [ref for ref in order if ref not in given]
        if not fresh:
            return Reply()
        places = [where.project, *([where.group] if where.group else [])]
        found = rows.deliverable(where.workspace, fresh, places)
        # Only lessons fire on a trigger; a decision arrives when it cites the touched file.
        fresh = [ref for ref in fresh if ref in found and (found[ref]["kind"] == "lesson" or ref in citing)]
        if not fresh:
            return Reply()
        if rows.ready_rules(where.workspace, where.project):
            return CORE  # the user's rules decide what is given out; they need the memory model
        chosen = fresh[:PER_CALL]
        with rows.transaction():
            rows.mark_shown(self.key, "lesson", chosen, self.now_iso)
            rows.add_deliveries(where.workspace, self.key, "lesson", chosen, where.project, event.tool, self.now_iso)
        lines = [LESSONS_HEAD]
        for ref in chosen:
            m = found[ref]
            lines.append("- " + wording.line(ref, m["kind"], m["text"], reason=m["reason"], source_ref=m["source_ref"],
                                             origin=str(m["origin"]), limit=400))  # fmt: skip
        text = "\n".join(lines)
        return Reply(hold=text) if event.kind == "pre_tool" else Reply(context=text)
