"""Entry point of every hook: ``kenning-hook <tool> <event>`` (also ``kenning hook …``).

The only hook module that reads the environment: ``KENNING_HOME`` (data folder),
``KENNING_WORKSPACE``, and for tests and end-to-end runs only ``KENNING_NOW`` (an ISO time for
the clock), ``KENNING_HOLDOUT`` (on|off, forces the session's group) and
``KENNING_BACKGROUND`` (off: no start-of-session refresh process).

Process start is the cost of every hook, so nothing here imports the core unless it must:

- a tool call reads the compiled trigger file and stops there unless a lesson could match
  (``fast``); a first edit or a ``recall`` call only leaves a marker file (``sessionmarks``);
- session start, prompts, the end of a turn and a call that matches a lesson run ``hot``: a
  plain sqlite3 connection and the folder's prepared facts (``context.prepared``);
- the core is opened when those facts are missing or too old (a first start in a folder), for
  a session started from a task, for session end, and when the store's schema is behind.

Whatever happens, the hook exits 0: on bad input with no output, and on its own fault after a
line in ``hook-errors.log``. A store locked longer than the hook's budget is a fault like any
other: one line in the log, no output, the agent goes on.
"""

from __future__ import annotations

import os
import sys
import time
import zlib

from kenning import isotime, jsonfast, sessionmarks
from kenning.hooks import events, fast, output, runlog

TYPE_CHECKING = False  # typing and pathlib are left unimported on purpose (start-up time)
if TYPE_CHECKING:
    from collections.abc import Mapping

    from kenning.context.prepared import Where
    from kenning.core.service import Core
    from kenning.hooks.hot import Reply
    from kenning.store.hotpath import HotRows

    Env = Mapping[str, str]

# A session start (and a prompt, when the folder's prepared facts are older than this)
# refreshes them and git-derived memory (parked work, citations, hourly outcomes) in a
# detached process: it takes ~0.2 s per thousand memories, past the start hook's budget.
# At most once per folder in this many seconds.
REFRESH_EVERY = 600
# How long a hook waits for a store another process holds locked: well inside the hooks'
# 500 ms budget. Past it, the hook gives up with one log line and no output.
STORE_WAIT_MS = 250
# The detached words writer keeps no one waiting: it may wait longer for a busy store.
WORDS_WAIT_MS = 2000


def _home(env: Env) -> str:
    override = env.get("KENNING_HOME", "").strip()
    if override:
        return os.path.expanduser(override)
    if sys.platform.startswith("linux"):
        # platformdirs.user_data_dir("kenning") on Linux, without importing it (~10 ms).
        xdg = env.get("XDG_DATA_HOME", "").strip()
        return os.path.join(xdg or os.path.expanduser("~/.local/share"), "kenning")
    from kenning.config import data_dir

    return str(data_dir(env))


def _forced_holdout(env: Env) -> bool | None:
    value = env.get("KENNING_HOLDOUT", "").strip().lower()
    return True if value in ("on", "1", "true", "yes") else False if value in ("off", "0", "false", "no") else None


def _now_iso(env: Env) -> str:
    fixed = env.get("KENNING_NOW", "").strip()
    if fixed:
        return fixed
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + f".{int(time.time() * 1e6) % 1_000_000:06d}Z"


def refresh_marker(home: str, cwd: str) -> str:
    """The file whose age says when ``cwd`` was last refreshed in the background."""
    return os.path.join(home, sessionmarks.FOLDER, f"refresh.{zlib.crc32(cwd.encode('utf-8', 'replace')):08x}")


def _touch(path: str) -> None:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a"):
            pass
    except OSError:
        pass


class Runner:
    def __init__(self, home: str, env: Env, *, close: bool = True) -> None:
        self.close = close
        self.home = home
        self.env = env
        self.forced = _forced_holdout(env)
        self.db_path = os.path.join(home, "kenning.db")

    def core(self) -> Core:
        # Imported here: the core costs tens of milliseconds that most tool calls never need.
        from pathlib import Path

        from kenning.clock import FixedClock, SystemClock, from_iso
        from kenning.config import Settings
        from kenning.core.service import Core

        fixed = self.env.get("KENNING_NOW", "").strip()
        clock = FixedClock(from_iso(fixed)) if fixed else SystemClock()
        settings = Settings(home=Path(self.home), workspace=self.workspace)
        return Core.open(settings, clock, busy_timeout_ms=STORE_WAIT_MS)

    @property
    def workspace(self) -> str:
        return self.env.get("KENNING_WORKSPACE", "").strip() or "local"

    def now(self) -> float:
        fixed = self.env.get("KENNING_NOW", "").strip()
        return isotime.parse(fixed) if fixed else time.time()

    def candidates(self, event: events.HookEvent) -> list[fast.Entry]:
        """The fast path: the lessons that could match this call, from the compiled trigger
        file; none means the store is never opened. A first edit or a ``recall`` call is
        recorded in a marker file, not the store."""
        if event.call_kind in sessionmarks.FLAGS:
            sessionmarks.mark(self.home, event.tool, event.session_id, event.call_kind)
        if event.call_kind in ("recall", "index") and event.kind == "pre_tool":
            # kenning's own MCP tool: the server ties what it hands out to this session by this line.
            sessionmarks.log_call(self.home, event.tool, event.session_id, event.call_kind, event.command,
                                  isotime.iso(self.now()))  # fmt: skip
        if not event.lessons_here:
            return []
        from kenning.domain.holdout import by_hash

        holdout = self.forced if self.forced is not None else by_hash(event.session_id)
        if holdout:
            return []
        data = fast.load(self.home, self.db_path, self.workspace)
        return fast.candidates(data, event.call_kind, event.command, event.paths)

    def wakeup_on(self, project: str) -> bool:
        from kenning import userconfig

        return userconfig.is_on(self.home, userconfig.WAKEUP_AT_START, project)

    def run(self, event: events.HookEvent) -> str:
        entries: list[fast.Entry] = []
        if event.kind in ("pre_tool", "post_tool"):
            entries = self.candidates(event)
            if not entries:
                return ""
        elif event.kind == "other":
            return ""
        reply = self.with_core(event) if event.kind == "end" else self.hot(event, entries)
        if reply.send_back:
            return output.send_back(event.tool, event.name, reply.send_back)
        if reply.hold:
            return output.hold(event.tool, event.name, reply.hold)
        return output.context(event.tool, event.name, reply.context)

    def hot(self, event: events.HookEvent, entries: list[fast.Entry]) -> Reply:
        """The hook without the core when the folder's prepared facts are there; with it
        otherwise (a first start), and for what only the core can do."""
        from kenning.context import prepared
        from kenning.hooks import hot
        from kenning.store import hotpath

        now = self.now()
        max_age = prepared.MAX_AGE if event.kind == "start" else prepared.IDENTITY_MAX_AGE
        where = prepared.load(self.home, self.workspace, event.cwd, time.time(), max_age)
        wakeup = event.kind == "start" and where is not None and self.wakeup_on(where.project)
        if wakeup and where is not None and where.wakeup is None:
            where = None  # asked for since the facts were prepared
        opened: list[HotRows] = []  # every plain connection this run opened, closed at the end
        rows = hotpath.connect(self.db_path, STORE_WAIT_MS)
        if rows is not None:
            opened.append(rows)
        core = None
        try:
            if where is None and rows is not None:
                # A first start in the folder (or after a pause): git and the scopes table.
                where = self.light_facts(rows, event)
            if where is None or rows is None:  # no store yet, or the wake-up bundle: the core
                core = self.core()
                where = prepared.compute(core, event.cwd, self.wakeup_on)
                prepared.save(self.home, where)
                rows = rows or self.rows_after(core, opened)
            wakeup = event.kind == "start" and self.wakeup_on(where.project)
            reply = self.hot_once(event, entries, rows, where, now, wakeup)
            if reply is None:  # the store's schema is behind: the full open migrates it
                core = core or self.core()
                reply = self.hot_once(event, entries, rows, where, now, wakeup)
            if not isinstance(reply, hot.Reply):  # it needs the core (hot.CORE)
                core = core or self.core()
                reply = self.core_reply(core, event, rows)
            done = rows
            fast.after_writes(self.home, self.db_path, done.lesson_stamp)
            # Keep the prepared facts young: every start, and a prompt once they are old.
            if event.cwd and (event.kind == "start" or (event.kind == "prompt"
                                                        and time.time() - where.written > REFRESH_EVERY)):
                self.refresh_in_background(event.cwd)
            return reply
        finally:
            # The hook process leaves without closing (main(): os._exit); tests close.
            if self.close:
                for each in opened:
                    each.close()
                if core is not None:
                    core.close()

    def light_facts(self, rows: HotRows, event: events.HookEvent) -> Where | None:
        """The folder's facts from git and the scopes table (no core), saved for the next hooks;
        None when they would not do: the project starts with the wake-up bundle, or the store's
        scopes table cannot be read."""
        from kenning.context import prepared
        from kenning.store import hotpath

        if not event.cwd:
            return None
        try:
            where = prepared.compute_light(rows, self.workspace, event.cwd)
        except Exception as error:
            if hotpath.schema_behind(error):
                return None
            raise
        if event.kind == "start" and self.wakeup_on(where.project):
            return None
        prepared.save(self.home, where)
        return where

    def hot_once(self, event: events.HookEvent, entries: list[fast.Entry], rows: HotRows,
                 where: Where, now: float, wakeup: bool) -> Reply | str | None:  # fmt: skip
        """One try of the hot path; None when the schema lacks a table or column it reads."""
        from kenning.hooks import hot
        from kenning.store import hotpath

        hook = hot.Hook(rows, where, event, home=self.home, now=now, forced=self.forced, defer=self.write_later)
        try:
            if event.kind == "start":
                return hook.start(wakeup)
            if event.kind == "prompt":
                return hook.prompt()
            if event.kind == "stop":
                return hook.stop()
            return hook.lessons(entries)
        except Exception as error:
            if hotpath.schema_behind(error):  # no such table / column: an older schema
                return None
            raise

    def rows_after(self, core: Core, opened: list[HotRows]) -> HotRows:
        """A plain connection to the store the core just created (and migrated)."""
        from kenning.store import hotpath

        rows = hotpath.connect(self.db_path, STORE_WAIT_MS)
        if rows is None:  # pragma: no cover - the core's open created the file
            raise RuntimeError(f"no store at {self.db_path} after opening it")
        opened.append(rows)
        return rows

    def core_reply(self, core: Core, event: events.HookEvent, rows: HotRows) -> Reply:
        """What only the core does: a session started from a task (its card), claiming a
        waiting task, lessons under the user's rules. Anything else runs hot over the core's
        connection once the session is claimed."""
        from kenning.context import prepared
        from kenning.hooks import handlers, hot

        if event.kind in ("start", "pre_tool", "post_tool"):
            done = handlers.handle(core, event, self.forced)
            return hot.Reply(done.context, done.send_back, done.hold)
        handlers.claim(core, event, self.forced)
        where = prepared.compute(core, event.cwd, self.wakeup_on)
        reply = self.hot_once(event, [], rows, where, self.now(), False)
        if not isinstance(reply, hot.Reply):  # pragma: no cover - the session exists now
            raise RuntimeError(f"the {event.kind} hook still needs the core")
        return reply

    def with_core(self, event: events.HookEvent) -> Reply:
        from kenning.hooks import handlers, hot

        core = self.core()
        try:
            done = handlers.handle(core, event, self.forced)
            fast.after_writes(self.home, self.db_path, lambda: core.stores.hooks.lesson_stamp(core.workspace))
        finally:
            if self.close:
                core.close()
        return hot.Reply(done.context, done.send_back, done.hold)

    def background(self) -> bool:
        return self.env.get("KENNING_BACKGROUND", "").strip().lower() not in ("off", "0", "no", "false")

    def refresh_in_background(self, cwd: str) -> None:
        if not self.background():
            return
        marker = refresh_marker(self.home, cwd)
        try:
            if time.time() - os.path.getmtime(marker) < REFRESH_EVERY:
                return
        except OSError:
            pass
        _touch(marker)
        os.utime(marker)
        spawn([REFRESH_ARG, cwd], self.child_env())

    def write_later(self, key: str, column: str, text: str) -> bool:
        """Hand a session's words to a detached process that redacts and stores them (the
        redactor takes longer to import than this hook may take); False when none can start.
        The words go through a pipe, never a file."""
        if not self.background():
            return False
        from kenning.domain.presence import WORDS_KEPT
        from kenning.redacted import MARGIN

        # Redaction comes before the cut (kenning.redacted.head): pass enough to redact first.
        return spawn([WORDS_ARG, key, column], self.child_env(), text[: WORDS_KEPT + MARGIN].encode("utf-8", "replace"))

    def child_env(self) -> dict[str, str]:
        return {**self.env, "KENNING_HOME": self.home}

    def write_words(self, key: str, column: str, text: str) -> None:
        """The detached writer's work: one session's words, redacted, into its row."""
        from kenning.domain.presence import session_words
        from kenning.store import hotpath

        if column not in ("opening", "last_message"):
            raise ValueError(f"not a words column: {column!r}")
        rows = hotpath.connect(self.db_path, WORDS_WAIT_MS)
        if rows is None:
            return
        try:
            with rows.transaction():
                rows.update_session(self.workspace, key, {column: session_words(text)})
        finally:
            rows.close()

    def refresh(self, cwd: str) -> None:
        """The detached refresh: the folder's prepared facts first (the next hooks need them),
        then git-derived memory, citations and outcomes; old session markers go."""
        from kenning.context import prepared
        from kenning.core import parked

        sessionmarks.prune(self.home, time.time())
        sessionmarks.prune_calls(self.home)
        core = self.core()
        try:
            prepared.save(self.home, prepared.compute(core, cwd, self.wakeup_on))
            parked.at_start(core, cwd)
        finally:
            core.close()


REFRESH_ARG = "--refresh"
WORDS_ARG = "--words"


def spawn(args: list[str], env: Mapping[str, str], stdin: bytes = b"") -> bool:
    """Start ``python -m kenning.hooks.main ARGS`` detached (its own session, output to
    /dev/null, ``stdin`` through a pipe) and do not wait for it. ``os.posix_spawn`` rather than
    ``subprocess``: that module costs milliseconds to import. False when it cannot start."""
    cmd = [sys.executable, "-m", "kenning.hooks.main", *args]
    if not hasattr(os, "posix_spawn"):  # pragma: no cover - Windows
        import subprocess

        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    env=dict(env), close_fds=True)  # fmt: skip
            if proc.stdin is not None:
                proc.stdin.write(stdin)
                proc.stdin.close()
        except OSError:
            return False
        return True
    try:
        read, write = os.pipe()
    except OSError:
        return False
    try:
        os.posix_spawn(sys.executable, cmd, dict(env), setsid=True, file_actions=[
            (os.POSIX_SPAWN_DUP2, read, 0),
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
        ])  # fmt: skip
        os.close(read)
        # A few kilobytes at most: the pipe's buffer takes them without waiting for the child.
        os.write(write, stdin)
        return True
    except OSError:
        return False
    finally:
        for fd in (read, write):
            try:
                os.close(fd)
            except OSError:
                continue  # closed already (contextlib is not imported on this path)


def _failure(exc: BaseException, waited_ms: int, outcome: str) -> BaseException | str:
    """What the error log says of ``exc``: one line for a store another process holds (an
    expected wait, not a fault: no traceback), the exception itself for anything else."""
    if type(exc).__name__ == "OperationalError" and "locked" in str(exc):
        return f"the store stayed locked past {waited_ms} ms; gave up, {outcome}"
    return exc


def run(argv: list[str], stdin: bytes, env: Env, *, close: bool = True) -> tuple[int, str]:
    started = time.perf_counter()
    tool = argv[0] if argv else ""
    hook = argv[1] if len(argv) > 1 else ""
    home = _home(env)
    out = ""
    if tool == REFRESH_ARG:
        try:
            Runner(home, env).refresh(hook)
        except Exception as exc:  # best effort, like every hook
            runlog.error(home, _now_iso(env), "refresh", "kenning", _failure(exc, STORE_WAIT_MS, "no refresh"))
        runlog.run(home, _now_iso(env), "refresh", "kenning", (time.perf_counter() - started) * 1000)
        return 0, ""
    if tool == WORDS_ARG:
        try:
            Runner(home, env).write_words(hook, argv[2] if len(argv) > 2 else "", stdin.decode("utf-8", "replace"))
        except Exception as exc:  # best effort: the session goes on without its words stored
            runlog.error(home, _now_iso(env), "words", "kenning", _failure(exc, WORDS_WAIT_MS, "words not stored"))
        return 0, ""
    try:
        try:
            payload = jsonfast.loads(stdin) if stdin.strip() else None
        except ValueError:
            payload = None
        event = events.normalise(tool, hook, payload)
        if event is None:
            if stdin.strip():
                runlog.error(home, _now_iso(env), hook, tool, f"ignored a payload that is not a {tool or 'known tool'} hook event ({len(stdin)} bytes)")
        else:
            hook = event.name
            out = Runner(home, env, close=close).run(event)
    except Exception as exc:  # fail open: the agent's work goes on without us
        runlog.error(home, _now_iso(env), hook, tool, _failure(exc, STORE_WAIT_MS, "no answer"))
        out = ""
    runlog.run(home, _now_iso(env), hook, tool, (time.perf_counter() - started) * 1000)
    return 0, out


def main() -> None:
    try:
        stdin = sys.stdin.buffer.read()
    except (OSError, ValueError):
        stdin = b""
    code, out = run(sys.argv[1:], stdin, os.environ, close=False)
    try:
        if out:
            sys.stdout.write(out)
        sys.stdout.flush()
    except (OSError, ValueError):
        pass  # the agent stopped listening; nothing to report to
    # Leave without interpreter teardown or closing SQLite (closing the last connection
    # checkpoints the WAL, ~15 ms): every transaction is already committed to the WAL.
    os._exit(code)


if __name__ == "__main__":
    main()
