"""A large first push streams: the records are built as the batches take them, so what is alive
at any moment is about one batch and one page of rows, not the whole store. Counted, never
timed: at every request the test counts the record bodies (and the memory and fact rows) that
are alive in the process; a client that built every pending record first (as it did before)
holds all of them at the first request. Real HTTP on loopback and a real PostgreSQL.
"""

from __future__ import annotations

import gc
import random
import string
import threading
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from serverkit import Machine, invite, running_server, team

from kenning.capture.sync import chunk_rows
from kenning.clock import to_iso
from kenning.model import Kind, Memory, MemoryEvent, Origin
from kenning.redacted import EMPTY, redacted
from kenning.store.protocol import CapturedSession, FactRow, LedgerEntry, TurnRow
from kenning.store.sqlite.memories import PAGE
from kenning.sync import records
from kenning.sync.client import WorkspaceReport
from kenning.sync.http import HttpTransport

MEMORIES = 1_100  # more than two pages of rows
FACTS = 600
SESSIONS = 4
TURNS = 230  # three parts each
BATCH = 100
T0 = datetime(2026, 11, 1, tzinfo=UTC)


def _words(rng: random.Random, n: int) -> str:
    return " ".join("".join(rng.choices(string.ascii_lowercase, k=rng.randint(6, 9))) for _ in range(n))


def _fill(machine: Machine) -> None:
    """Many pending rows of every big kind, written straight into the machine's stores."""
    rng = random.Random(5)
    store, graph, capture = machine.core.store, machine.core.stores.graph, machine.core.stores.capture
    with store.transaction():
        for i in range(MEMORIES):
            ref = f"m:{i:08x}"
            store.insert(Memory(ref, "acme", "github.com/acme/shop", redacted(f"The {_words(rng, 7)} setting stays on"),
                                Kind.FACT, 0.8, Origin.PERSON, T0 + timedelta(seconds=i), T0))  # fmt: skip
            store.add_event("acme", MemoryEvent(ref, T0 + timedelta(seconds=i), "created", "cli"))
        now = to_iso(T0)
        for i in range(FACTS):
            graph.ensure_entity("acme", f"svc{i}", redacted(f"svc{i}"), "service", now)
            graph.insert(FactRow(0, "acme", "github.com/acme/shop", f"svc{i}", "uses", "postgres", "entity", "",
                                 to_iso(T0 + timedelta(seconds=i)), None, 0.9, "asserted", "", "", "", EMPTY, now))  # fmt: skip
    for s in range(SESSIONS):
        sid = f"claude:{s:032x}"
        turns, previous = [], EMPTY
        for i in range(TURNS):
            role = "user" if i % 2 == 0 else "assistant"
            text = redacted(f"Turn {i}: {_words(rng, 12)}")
            turns.append(TurnRow(sid, f"{s}-{i:04d}", role, text, to_iso(T0 + timedelta(minutes=s, seconds=i)), [], [], "",
                                 "github.com/acme/shop", "claude", chunk_rows(role, text, previous)))  # fmt: skip
            previous = text
        head = CapturedSession(sid, "claude", "github.com/acme/shop", "shop", "/src/shop", "main", turns[0].at, turns[-1].at)
        capture.commit_file("acme", LedgerEntry(f"/t/{sid}.jsonl", "claude"), [head], turns, replace=False, now=to_iso(T0))


def _alive() -> dict[str, int]:
    """Record bodies (memory, fact, session part), memory rows and fact rows alive now."""
    gc.collect()
    out = {"bodies": 0, "memories": 0, "facts": 0}
    for o in gc.get_objects():
        if isinstance(o, dict) and (("events" in o and "ref" in o) or ("subject_name" in o and "predicate" in o)
                                    or ("turns" in o and "index" in o)):  # fmt: skip
            out["bodies"] += 1
        elif isinstance(o, Memory):
            out["memories"] += 1
        elif isinstance(o, FactRow):
            out["facts"] += 1
    return out


class Watching(HttpTransport):
    """The real transport, counting what is alive in this process at every push."""

    def __init__(self, url: str, token: str) -> None:
        super().__init__(url, token)
        self.peaks: dict[str, int] = {"bodies": 0, "memories": 0, "facts": 0}
        self.pushes = 0

    def post(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        if path.endswith("/sync/push"):
            self.pushes += 1
            for k, v in _alive().items():
                self.peaks[k] = max(self.peaks[k], v)
        return super().post(path, body)


def test_a_large_first_push_holds_about_one_batch_at_a_time(server_dsn: str, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    with running_server(server_dsn) as srv:
        team(srv.store)
        laptop = Machine(tmp_path, "laptop", srv.url, invite(srv.store, "alice", ["acme"]))
        watching = Watching(srv.url, laptop.link.token)
        try:
            _fill(laptop)
            counted = sum(1 for _ in laptop.client().pending_items("acme", build=False))
            steps: list[tuple[str, int, int]] = []
            report = WorkspaceReport("acme")
            client = laptop.client(batch_items=BATCH)
            client.transport = watching
            client.push("acme", report, lambda stage, done, total: steps.append((stage, done, total)))

            # Everything arrived, each record once.
            expected = MEMORIES + FACTS + SESSIONS * 4  # a session: three parts and a head
            assert report.pushed == expected and not report.refused, report
            with psycopg.connect(server_dsn, autocommit=True) as conn:
                kinds = dict(conn.execute("SELECT kind, count(*) FROM records GROUP BY kind").fetchall())
            assert kinds == {"memory": MEMORIES, "fact": FACTS, "session": SESSIONS, "session_part": SESSIONS * 3}
            assert watching.pushes >= expected // BATCH

            # The bar had its total before the first push (the count builds no body), and ended on it.
            assert counted == expected and steps[0] == ("push acme", 0, expected) and steps[-1] == ("push acme", expected, expected)

            # Bounded: at every request about two batches of bodies (the batch, its copy read back
            # from the outbox, the next record already built) and a page of rows, whatever the
            # number of pending rows (over 1,700 here; building them all first held them all).
            assert watching.peaks["bodies"] <= 2 * BATCH + 5, watching.peaks
            assert watching.peaks["memories"] <= PAGE + 2, watching.peaks
            assert watching.peaks["facts"] <= PAGE + 2, watching.peaks

            # And nothing left to push.
            assert sum(1 for _ in laptop.client().pending_items("acme")) == 0

            # A later sync with one memory changed: the count compares every memory the server has
            # (it must build each to know), and the push builds only the changed one again.
            first = laptop.core.store.get("acme", "m:00000000")
            assert first is not None
            laptop.core.store.update(first.evolve(text=redacted("The queue setting stays off")))
            built: list[str] = []  # by this thread (the server in its own thread builds what it stores)
            real, me = records.memory_body, threading.get_ident()
            monkeypatch.setattr(records, "memory_body",
                                lambda m, e: (built.append(m.ref) if threading.get_ident() == me else None) or real(m, e))  # fmt: skip
            again = WorkspaceReport("acme")
            client.push("acme", again)
            assert again.pushed == 1 and built.count("m:00000000") == 2 and len(built) == MEMORIES + 1
        finally:
            watching.close()
            laptop.close()
