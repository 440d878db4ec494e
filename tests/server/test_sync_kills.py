"""Kill the server and the client at random points during sync: nothing lost, nothing doubled.

Three real parts: ``kenning serve`` as a process over a real PostgreSQL, the laptop's
``kenning sync`` as a process (small batches, so a sync is many requests), and alice's
second machine (the desk) syncing in-process between rounds. Each round both machines write
memories (the laptop also hides and forgets some), the laptop's sync starts, and once the
server's sequence number has moved a random number of records past where the round began
(so mid-push, at the end of the push, or during the pull; or before the server has seen any
of it: while the client starts, counts what is pending, or builds its first batch) the test
SIGKILLs the client, the server, or both. Then the server comes back on the same port, a plain sync of each machine
runs to the end, and the test's own ledger of what was written decides: every machine and
the server hold exactly the memories written and not forgotten, each once with its text,
and no memory's history holds an event twice. Captured sessions ride along: most rounds the
laptop captures a new session (some longer than one part) or more turns of an earlier one, and
now and then forgets one; every machine then holds each live session's turns exactly once, the
server's parts hold each turn once, and a forgotten session is gone everywhere.
"""

from __future__ import annotations

import os
import random
import signal
import string
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import psycopg
import pytest
from serverkit import Machine, ServerProcess, free_port, invite, team

from kenning.capture.sync import chunk_rows
from kenning.clock import SystemClock, to_iso
from kenning.config import Settings
from kenning.core.forget import apply as forget_apply
from kenning.core.forget import plan_memories, plan_session
from kenning.core.remember import RememberRequest
from kenning.core.service import Core
from kenning.model import Kind, Origin, Status
from kenning.redacted import EMPTY, redacted
from kenning.store import sync_state
from kenning.store.protocol import CapturedSession, LedgerEntry, TurnRow
from kenning.store.server.postgres import PostgresServerStore
from kenning.sync import link as links
from kenning.sync.client import SyncClient
from kenning.sync.http import HttpTransport
from kenning.sync.wire import PART_TURNS

KILLS = 30  # processes killed while a sync was running (a round that kills both counts two)
MAX_ROUNDS = 60
PER_ROUND = 10  # new memories on the laptop each round
BATCH = 2  # records per push of the killed sync: a round is several requests


def _text(rng: random.Random) -> str:
    """A memory no other one is a near-duplicate of (random words share no terms)."""
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(6, 9))) for _ in range(7)]
    return "The " + " ".join(words) + " setting stays on"


def _remember(core: Core, text: str) -> str:
    result = core.remember(core.place(project="github.com/acme/shop"),
                           RememberRequest(text, kind=Kind.FACT, origin=Origin.PERSON, source="cli"))  # fmt: skip
    assert result.memory is not None, result
    return result.memory.ref


def _capture(core: Core, rng: random.Random, sid: str, start: int, n: int) -> list[str]:
    """``n`` more turns of session ``sid`` as capture stores them (redacted, chunked); their uids."""
    turns, previous, uids = [], EMPTY, []
    for i in range(start, start + n):
        role = "user" if i % 2 == 0 else "assistant"
        text = redacted(f"Turn {i}: " + " ".join(_text(rng).split()[1:6]) + " in the orders export")
        uid = f"{sid[-8:]}-{i:04d}"
        turns.append(TurnRow(sid, uid, role, text, f"2026-11-30T{10 + i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z",
                             [], [], "", "github.com/acme/shop", "claude", chunk_rows(role, text, previous)))  # fmt: skip
        previous = text
        uids.append(uid)
    session = CapturedSession(sid, "claude", "github.com/acme/shop", "shop", "/src/shop", "main", turns[0].at, turns[-1].at)
    core.stores.capture.commit_file("acme", LedgerEntry(f"/transcripts/{sid}.jsonl", "claude"), [session], turns,
                                    replace=False, now=to_iso(core.now()))  # fmt: skip
    return uids


def _sessions(core: Core) -> dict[str, list[str]]:
    """Each captured session's turn uids, in order (a turn stored twice shows twice)."""
    capture = core.stores.capture
    return {s.id: [t.uid for t in capture.turns("acme", s.id)] for s in capture.all_sessions("acme")}


def _server_sessions(dsn: str) -> tuple[set[str], dict[str, list[str]]]:
    """The live session heads on the server, and each session's turn uids over its live parts."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        heads = {k for k, d in conn.execute("SELECT key, deleted FROM records WHERE kind = 'session'").fetchall() if not d}
        parts = conn.execute("SELECT body FROM record_bodies WHERE kind = 'session_part' ORDER BY key").fetchall()
    turns: dict[str, list[str]] = {}
    for (body,) in parts:
        turns.setdefault(body["session"], []).extend(t["uid"] for t in body["turns"])
    return heads, turns


def _pending(core: Core, home: Path) -> int:
    """How many records the laptop's next sync pushes (to aim the kill inside the push)."""
    link = links.require(home)
    unused = HttpTransport(link.server)  # counting sends nothing
    try:
        return len(list(SyncClient(core.stores, sync_state(core.stores), unused, link, core.now).pending_items("acme")))
    finally:
        unused.close()


def _head(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT last FROM workspace_seq WHERE workspace = 'acme'").fetchone()
    return int(row[0]) if row else 0


def _live(core: Core) -> dict[str, str]:
    return {m.ref: m.text for m in core.store.iter_all("acme") if m.status is Status.ACTIVE}


def _no_doubled_events(core: Core, refs: list[str]) -> None:
    for ref in refs:
        events = Counter((e.at, e.event, e.detail, e.other_ref) for e in core.store.events(core.workspace, ref))
        assert all(n == 1 for n in events.values()), (ref, events)


def _sync_to_the_end(home: Path) -> None:
    """A plain sync of the laptop (in-process), as its next `kenning sync` would run."""
    core = Core.open(Settings(home=home, workspace="acme"), SystemClock())
    link = links.require(home)
    transport = HttpTransport(link.server, link.token)
    try:
        SyncClient(core.stores, sync_state(core.stores), transport, link, core.now).sync()
    finally:
        transport.close()
        core.close()


@pytest.mark.timeout(1800)
def test_kills_of_server_and_client_during_sync_lose_and_double_nothing(server_dsn: str, tmp_path: Path) -> None:
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    port = free_port()
    server_home = tmp_path / "server-home"
    server = ServerProcess(server_home, server_dsn, port=port)
    admin = PostgresServerStore.open(server_dsn, max_size=2)
    team(admin)
    laptop_home = tmp_path / "laptop"
    env = {**os.environ, "KENNING_HOME": str(laptop_home), "KENNING_WORKSPACE": "acme"}
    login = subprocess.run([sys.executable, "-m", "kenning.cli", "login", server.url, "--invite",
                            invite(admin, "alice", ["acme"]), "--label", "laptop"],
                           env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert login.returncode == 0, login.stderr
    desk = Machine(tmp_path, "desk", server.url, invite(admin, "alice", ["acme"]))
    expected: dict[str, str] = {}  # ref -> text: written and not forgotten
    forgotten: set[str] = set()
    tombstoned: set[str] = set()  # forgotten after the server had it: a tombstone there
    on_server: set[str] = set()  # every ref the server held at the end of the last round
    sessions: dict[str, list[str]] = {}  # captured on the laptop and not forgotten: their turn uids
    forgotten_sessions: set[str] = set()
    kills: Counter[str] = Counter()
    rounds = 0
    try:
        while kills["client"] + kills["server"] < KILLS and rounds < MAX_ROUNDS:
            rounds += 1
            for _ in range(3):
                text = _text(rng)
                expected[desk.remember(text, kind=Kind.FACT).memory.ref] = text  # type: ignore[union-attr]
            desk.sync()
            laptop = Core.open(Settings(home=laptop_home, workspace="acme"), SystemClock())
            try:
                for _ in range(PER_ROUND):
                    text = _text(rng)
                    expected[_remember(laptop, text)] = text
                mine = sorted(_live(laptop))
                if rng.random() < 0.5:
                    laptop.hide(rng.choice(mine))  # a changed record: it travels as private
                if rng.random() < 0.4:
                    gone = rng.choice(mine)
                    forget_apply(laptop, plan_memories(laptop, [gone]))
                    expected.pop(gone, None)
                    forgotten.add(gone)
                    if gone in on_server:
                        tombstoned.add(gone)
                if rng.random() < 0.7:  # a new session, now and then longer than one part
                    sid = f"claude:{rng.getrandbits(64):016x}"
                    sessions[sid] = _capture(laptop, rng, sid, 0, rng.choice([3, 12, 40, PART_TURNS + 30]))
                if sessions and rng.random() < 0.4:  # the agent went on in an earlier session
                    sid = rng.choice(sorted(sessions))
                    sessions[sid] += _capture(laptop, rng, sid, len(sessions[sid]), rng.randint(1, 8))
                if len(sessions) > 2 and rng.random() < 0.2:
                    sid = rng.choice(sorted(sessions))
                    forget_apply(laptop, plan_session(laptop, sid, memories=False))
                    del sessions[sid]
                    forgotten_sessions.add(sid)
                pushing = _pending(laptop, laptop_home)
            finally:
                laptop.close()

            start = _head(server_dsn)
            target = rng.randint(0, pushing + 3)
            victim = rng.choice(["client", "server", "both"])
            sync = subprocess.Popen([sys.executable, "-m", "kenning.cli", "sync", "--batch", str(BATCH), "--json"],
                                    env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
            deadline = time.monotonic() + 120
            while sync.poll() is None and _head(server_dsn) < start + min(target, pushing) and time.monotonic() < deadline:
                time.sleep(0.005)
            if target == 0:  # before the server saw anything: starting, counting, building the first batch
                time.sleep(rng.uniform(0.2, 2.0))
            if target > pushing:  # past the push: into the pull, or after the end
                time.sleep(rng.uniform(0, 0.4))
            if sync.poll() is None:
                if victim in ("client", "both"):
                    sync.send_signal(signal.SIGKILL)
                    kills["client"] += 1
                if victim in ("server", "both"):
                    kills["server"] += 1
                    server.kill()
                    server.log.close()
                    server = ServerProcess(server_home, server_dsn, port=port)
            # A client whose server went away retries, then gives up saying so; either is fine.
            sync.wait(timeout=120)
            assert sync.stderr is not None
            sync.stderr.close()

            _sync_to_the_end(laptop_home)
            desk.sync()
            laptop = Core.open(Settings(home=laptop_home, workspace="acme"), SystemClock())
            try:
                have = _live(laptop)
                assert have == expected, (seed, rounds, set(have) ^ set(expected))
                assert not forgotten & {m.ref for m in laptop.store.iter_all("acme")}
                _no_doubled_events(laptop, list(have))
                assert _sessions(laptop) == sessions, (seed, rounds)
            finally:
                laptop.close()
            assert _sessions(desk.core) == sessions, (seed, rounds)
            heads, parts = _server_sessions(server_dsn)
            assert heads == set(sessions) and {k: sorted(v) for k, v in parts.items()} == {
                k: sorted(v) for k, v in sessions.items()}, (seed, rounds)  # fmt: skip
            on_desk = _live(desk.core)
            assert on_desk == expected, (seed, rounds, set(on_desk) ^ set(expected))
            _no_doubled_events(desk.core, list(on_desk))
            with psycopg.connect(server_dsn, autocommit=True) as conn:
                rows = conn.execute("SELECT r.key, r.deleted, b.body->>'text', b.body->>'status' FROM records r LEFT JOIN"
                                    " record_bodies b USING (workspace, kind, key) WHERE r.kind = 'memory'").fetchall()  # fmt: skip
            assert {k: t for k, d, t, s in rows if not d and s == "active"} == expected, (seed, rounds)
            assert {k for k, d, _t, _s in rows if d} == tombstoned, (seed, rounds)
            on_server = {k for k, *_ in rows}
            assert not (forgotten - tombstoned) & on_server, (seed, rounds)  # forgotten before it ever left
            # The server's materialized copy (what REST recall reads) matches its records, each memory once,
            # and keeps each event of its history once.
            with psycopg.connect(server_dsn, autocommit=True) as conn:
                served = conn.execute("SELECT ref, text, status FROM memories WHERE workspace = 'acme'").fetchall()
                private = {r for (r,) in conn.execute("SELECT key FROM records WHERE kind = 'memory' AND private").fetchall()}
                doubled = conn.execute("SELECT ref, at, event, count(*) FROM memory_events WHERE workspace = 'acme'"
                                       " GROUP BY ref, at, event, detail, other_ref HAVING count(*) > 1").fetchall()  # fmt: skip
            assert {r: t for r, t, st in served if st == "active"} == {k: t for k, t in expected.items() if k not in private}
            assert {r for r, *_ in served} == {k for k, d, *_ in rows if not d} - private, (seed, rounds)
            assert not doubled, (seed, rounds, doubled[:3])
            print(f"round {rounds} {victim} target={target} kills={dict(kills)} t={time.monotonic():.1f}", file=sys.stderr)
    finally:
        desk.close()
        admin.close()
        server.stop()
    assert kills["client"] + kills["server"] >= KILLS and min(kills["client"], kills["server"]) >= 5, (seed, rounds, kills)
