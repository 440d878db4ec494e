"""A store another process holds (a sync or a migration inside ``BEGIN IMMEDIATE``): every hook
of a recorded Claude Code session returns while the lock is still held, exit 0: one that must
write gives up with no answer and one line in the error log, one that only reads answers as
usual (a held write lock lets readers in); the detached writers the hooks start give up with
one line too. No timing is
measured: the holder keeps its transaction open until every hook has returned, and its commit
at the end shows it held the lock the whole time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hookrun_helper import claude_payloads, run_hook

S = "5d1f4c2a-8b3e-4f6a-9c0d-1e2f3a4b5c6d"
# The events whose hook must write (the session's row, its prompt count, its end).
WRITERS = {"SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"}

HOLD = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
conn.execute("INSERT INTO meta (key, value) VALUES ('holder', 'writing')")
print("held", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
print("committed", flush=True)
"""


class Holder:
    """Another process inside a write transaction until it is told to commit."""

    def __init__(self, db: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", HOLD, str(db)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
        assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == "held"

    def holding(self) -> bool:
        return self.proc.poll() is None

    def commit(self) -> str:
        out, err = self.proc.communicate("commit\n", timeout=60)
        assert self.proc.returncode == 0, err
        return out.strip()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def error_lines(home: Path) -> list[str]:
    log = home / "hook-errors.log"
    return log.read_text().splitlines() if log.exists() else []


@pytest.fixture
def env() -> dict[str, str]:
    # No detached refresh: its log line would land at a moment of its own, not the hook's.
    return {"KENNING_BACKGROUND": "off"}


def test_every_hook_returns_while_another_process_holds_the_write_lock(repo: Path, kenning_home: Path,
                                                                       env: dict[str, str]) -> None:  # fmt: skip
    payloads = claude_payloads(repo, S)
    start = run_hook("claude-code", "SessionStart", payloads[0], env=env)
    assert start.code == 0 and "Project shop" in start.context  # a store with this session in it
    db = kenning_home / "kenning.db"
    sessions_before = subprocess.run([sys.executable, "-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1])"
                                      ".execute('SELECT count(*), max(last_seen) FROM hook_sessions').fetchone())",
                                      str(db)], capture_output=True, text=True, check=True).stdout  # fmt: skip

    holder = Holder(db)
    try:
        for payload in payloads:
            event = payload["hook_event_name"]
            before = error_lines(kenning_home)
            run = run_hook("claude-code", event, payload, env=env)
            new = error_lines(kenning_home)[len(before):]
            assert run.code == 0 and run.stderr == "", (event, run)
            assert holder.holding(), f"the lock was still held when {event} returned"
            if event in WRITERS:
                assert len(new) == 1, (event, new)  # one line, no traceback
            if new:  # gave up: no answer, one line saying why
                assert len(new) == 1 and run.stdout == "", (event, new, run.stdout)
                assert f"\t{event}\tclaude-code\t" in new[0] and "locked" in new[0] and "gave up" in new[0], new
            else:  # needed only to read, which a held write lock allows (WAL): answered as usual
                assert run.stdout == "" or isinstance(run.answer, dict), (event, run.stdout)
    finally:
        if holder.holding():
            assert holder.commit() == "committed"  # its transaction was open all along
        holder.kill()

    check = ("import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute("
             "'SELECT count(*), max(last_seen) FROM hook_sessions').fetchone()); "
             "print(c.execute(\"SELECT value FROM meta WHERE key = 'holder'\").fetchone())")
    after = subprocess.run([sys.executable, "-c", check, str(db)], capture_output=True, text=True,
                           check=True).stdout.splitlines()  # fmt: skip
    assert after[0] == sessions_before.strip()  # nothing half-written by the hooks that gave up
    assert after[1] == "('writing',)"
    # Once the store is free the next hook answers again: failing open left nothing stuck.
    again = run_hook("claude-code", "SessionStart", payloads[0], env=env)
    assert again.code == 0 and "Project shop" in again.context


@pytest.mark.parametrize("args", [["--words", f"claude-code:{S}", "opening"], ["--refresh", "{repo}"]],
                         ids=["words", "refresh"])  # fmt: skip
def test_the_detached_writers_give_up_on_a_held_store_with_one_line(repo: Path, kenning_home: Path,
                                                                     args: list[str]) -> None:  # fmt: skip
    run_hook("claude-code", "SessionStart", claude_payloads(repo, S)[0], env={"KENNING_BACKGROUND": "off"})
    holder = Holder(kenning_home / "kenning.db")
    try:
        before = error_lines(kenning_home)
        argv = [a.replace("{repo}", str(repo)) for a in args]
        done = subprocess.run([sys.executable, "-m", "kenning.hooks.main", *argv], input=b"Deploy the shop",
                              capture_output=True, timeout=60, check=False)  # fmt: skip
        new = error_lines(kenning_home)[len(before):]
        assert done.returncode == 0 and done.stdout == b""
        assert len(new) == 1 and "locked" in new[0] and "gave up" in new[0], new
        assert holder.holding()
    finally:
        if holder.holding():
            assert holder.commit() == "committed"
        holder.kill()
