"""Entry point of every hook: ``kenning-hook <tool> <event>`` (also ``kenning hook …``).

The only hook module that reads the environment: ``KENNING_HOME`` (data folder),
``KENNING_WORKSPACE``, and for tests and end-to-end runs only ``KENNING_NOW`` (an ISO time for
the clock), ``KENNING_HOLDOUT`` (on|off, forces the session's group) and
``KENNING_BACKGROUND`` (off: no start-of-session refresh process).

Process start is the cost on every tool call, so this module imports only the standard
library and kenning's small hook modules up front; the core is imported only when the
database has to be opened. Whatever happens, the hook exits 0: on bad input with no output,
and on its own fault after a line in ``hook-errors.log``.
"""

from __future__ import annotations

import os
import sys
import time

from kenning import jsonfast, sessionmarks
from kenning.hooks import events, fast, output, runlog

TYPE_CHECKING = False  # typing and pathlib are left unimported on purpose (start-up time)
if TYPE_CHECKING:
    from kenning.core.service import Core

if TYPE_CHECKING:
    from collections.abc import Mapping

    Env = Mapping[str, str]

# A session start refreshes git-derived memory (parked work, citations, hourly outcomes) in a
# detached process: it takes ~0.2 s per thousand memories, past the start hook's budget.
# At most once per project folder in this many seconds.
REFRESH_EVERY = 600


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
        from kenning.store.sqlite.schema import open_database

        fixed = self.env.get("KENNING_NOW", "").strip()
        clock = FixedClock(from_iso(fixed)) if fixed else SystemClock()
        workspace = self.env.get("KENNING_WORKSPACE", "").strip() or "local"
        settings = Settings(home=Path(self.home), workspace=workspace)
        return Core.over(open_database(settings.db_path), settings, clock)

    def lessons_could_match(self, event: events.HookEvent) -> bool:
        """The fast path: open the database only when a trigger or a citation could match this
        call. A first edit or a ``recall`` call is recorded in a marker file, not the store."""
        if event.call_kind in sessionmarks.FLAGS:
            sessionmarks.mark(self.home, event.tool, event.session_id, event.call_kind)
        if not event.lessons_here:
            return False
        from kenning.core.holdout import by_hash

        holdout = self.forced if self.forced is not None else by_hash(event.session_id)
        if holdout:
            return False
        data = fast.load(self.home, self.db_path)
        return fast.could_match(data, event.call_kind, event.command, event.paths)

    def run(self, event: events.HookEvent) -> str:
        if event.kind in ("pre_tool", "post_tool"):
            if not self.lessons_could_match(event):
                return ""
        elif event.kind == "other":
            return ""
        from kenning.hooks.handlers import handle

        core = self.core()
        try:
            reply = handle(core, event, self.forced)
            if core.db is not None:
                from kenning.store.sqlite.hooks_store import HookStore

                fast.after_writes(self.home, self.db_path, HookStore(core.db).lesson_stamp)
        finally:
            if self.close:
                core.close()
        if event.kind == "start" and event.cwd:
            self.refresh_in_background(event.cwd)
        if reply.send_back:
            return output.send_back(event.tool, event.name, reply.send_back)
        if reply.hold:
            return output.hold(event.tool, event.name, reply.hold)
        return output.context(event.tool, event.name, reply.context)


    def refresh_in_background(self, cwd: str) -> None:
        if self.env.get("KENNING_BACKGROUND", "").strip().lower() in ("off", "0", "no", "false"):
            return
        import hashlib
        import subprocess

        marker = os.path.join(self.home, sessionmarks.FOLDER, "refresh." + hashlib.sha1(cwd.encode()).hexdigest()[:16])
        try:
            if time.time() - os.path.getmtime(marker) < REFRESH_EVERY:
                return
        except OSError:
            pass
        _touch(marker)
        os.utime(marker)
        subprocess.Popen(  # detached: the agent's session never waits for it
            [sys.executable, "-m", "kenning.hooks.main", REFRESH_ARG, cwd],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, close_fds=True,
        )

    def refresh(self, cwd: str) -> None:
        from kenning.core import parked

        sessionmarks.prune(self.home, time.time())
        core = self.core()
        try:
            parked.at_start(core, cwd)
        finally:
            core.close()


REFRESH_ARG = "--refresh"


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
            runlog.error(home, _now_iso(env), "refresh", "kenning", exc)
        runlog.run(home, _now_iso(env), "refresh", "kenning", (time.perf_counter() - started) * 1000)
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
        runlog.error(home, _now_iso(env), hook, tool, exc)
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
