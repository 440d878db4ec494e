"""Captured sessions, graph facts, diary entries and values travel like memories: two machines
of one user and a teammate sync through a real server (real HTTP on loopback, real
PostgreSQL), and each sees what the seeds say — the author's other machine gets the same
records, a teammate gets them beside (never over) their own, a forgotten session leaves every
machine, and a never-shared workspace never leaves the first one."""

from __future__ import annotations

from pathlib import Path

import psycopg
from serverkit import Machine, alice_two_machines_and_bob, invite, running_server, team

from kenning.core.capture_job import sync_all
from kenning.core.forget import apply as forget_apply
from kenning.core.forget import plan_session
from kenning.core.notes import decision_record, diary_write, set_value
from kenning.graph import facts
from kenning.model import Origin
from kenning.store.protocol import ChunkFilter

# A real Claude Code transcript fixture (also used by tests/graph): one session in a shop repo.
TRANSCRIPT = Path(__file__).resolve().parent.parent / "graph" / "data" / "claude_export.jsonl"
SESSION = "claude:5b1f0c9e-2d7a-4c1e-9a43-7e2b8f1d0c11"
PROJECT = "github.com/acme/shop"


def capture_fixture(machine: Machine, root: Path) -> None:
    """Write the fixture transcript where Claude Code keeps it and run the real capture."""
    cwd = root / "src" / "shop"
    cwd.mkdir(parents=True, exist_ok=True)
    home = root / "user-home"
    folder = home / ".claude" / "projects" / str(cwd).replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    text = TRANSCRIPT.read_text().replace("{{CWD}}", str(cwd))
    (folder / f"{SESSION.split(':', 1)[1]}.jsonl").write_text(text)
    summary = sync_all(machine.core, home, env={}, import_memory_files=False)
    assert not summary.errors and summary.turns_added > 0, summary


def turns_of(machine: Machine) -> list[tuple[str, str, str]]:
    capture = machine.core.stores.capture
    return [(t.uid, t.role, str(t.text)) for t in capture.turns("acme", SESSION)]


def facts_of(machine: Machine) -> set[tuple[str, str, str, str | None]]:
    return {(f.subject, f.predicate, f.object, f.valid_to) for f in machine.core.stores.graph.all_facts("acme")}


def server_rows(dsn: str, kind: str) -> list[tuple[str, str, bool]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return [(r[0], r[1], r[2]) for r in conn.execute(
            "SELECT workspace, key, deleted FROM records WHERE kind = %s ORDER BY seq", (kind,)).fetchall()]  # fmt: skip


def test_sessions_facts_diary_and_values_reach_each_machine_as_the_seeds_say(server_dsn: str, tmp_path: Path) -> None:
    with running_server(server_dsn) as srv:
        laptop, desk, bob = alice_two_machines_and_bob(srv, tmp_path)
        try:
            capture_fixture(laptop, tmp_path / "laptop-files")
            captured = turns_of(laptop)
            assert len(captured) >= 10, len(captured)
            place = laptop.core.place(project=PROJECT)
            clock = laptop.core.clock
            asserted = facts.add(laptop.core.stores.graph, clock, "acme", "shop", "deploys_to", "fly.io", project=PROJECT)
            diary_write(laptop.core, place, "Moved the orders export to a Celery job", agent="claude")
            set_value(laptop.core, place, "deploy.target", "fly.io/shop-prod")
            # A never-shared workspace on the same machine: it never leaves it.
            laptop.core.stores.notes.set_value("solo", PROJECT, "secret.plan", laptop.core.stores.notes.value(
                "acme", PROJECT, "deploy.target").value, "2026-03-01T00:00:00Z")  # type: ignore[union-attr]  # fmt: skip
            extracted = facts_of(laptop)
            assert len(extracted) > 1  # capture added the facts the session names

            first = laptop.sync()[0]
            assert not first.refused, first.refused
            desk.sync()
            bob.sync()

            # alice's desk: the same session (every turn, searchable), facts, diary and value.
            assert turns_of(desk) == captured
            hits = desk.core.stores.capture.search("acme", ["celery"], ChunkFilter(), 5, (1.0, 0.3))
            assert hits and hits[0].chunk.session == SESSION
            assert facts_of(desk) == extracted
            assert [(e.agent, e.text) for e in desk.core.stores.notes.all_diary("acme")] == [
                ("claude", "Moved the orders export to a Celery job")]  # fmt: skip
            assert desk.core.stores.notes.value("acme", PROJECT, "deploy.target").value == "fly.io/shop-prod"  # type: ignore[union-attr]

            # bob sees alice's records beside his own, labelled as hers.
            assert turns_of(bob) == captured
            assert facts_of(bob) == extracted
            assert [(e.agent, e.text) for e in bob.core.stores.notes.all_diary("acme")] == [
                ("alice/claude", "Moved the orders export to a Celery job")]  # fmt: skip
            set_value(bob.core, bob.core.place(project=PROJECT), "deploy.target", "k8s/shop")
            assert bob.sync()[0].pushed == 1  # only his own value: alice's records are not pushed back
            laptop.sync()
            values = {v.key: v.value for v in laptop.core.stores.notes.all_values("acme")}
            assert values == {"deploy.target": "fly.io/shop-prod", "bob/deploy.target": "k8s/shop"}

            # Nothing echoes: a machine that only pulled has nothing to push.
            again = desk.sync()[0]
            assert (again.pushed, again.refused) == (0, []), again
            assert laptop.sync()[0].pushed == 0

            # Ending a fact on the desk reaches the laptop and bob (alice's desk may: it is hers).
            on_desk = next(f for f in desk.core.stores.graph.all_facts("acme") if f.object == asserted.fact.object)
            facts.end(desk.core.stores.graph, desk.core.clock, "acme", on_desk.id)
            assert desk.sync()[0].pushed == 1
            laptop.sync()
            bob.sync()
            for machine in (laptop, bob):
                ended = [f for f in machine.core.stores.graph.all_facts("acme") if f.object == asserted.fact.object]
                assert len(ended) == 1 and ended[0].valid_to is not None

            # A decision's graph fact follows its memory: hidden, bob sees it removed; alice's desk keeps it.
            decided = decision_record(laptop.core, place, "We deploy the shop with Kamal", area="deploy", reason="no k8s",
                                      origin=Origin.PERSON, source="cli")  # fmt: skip
            assert decided.fact is not None and decided.result.remembered.memory is not None
            ref = decided.result.remembered.memory.ref
            laptop.sync()
            bob.sync()
            assert any(f.memory_ref == ref for f in bob.core.stores.graph.all_facts("acme"))
            laptop.core.hide(ref)
            laptop.sync()
            bob.sync()
            desk.sync()
            assert not any(f.memory_ref == ref for f in bob.core.stores.graph.all_facts("acme"))
            assert any(f.memory_ref == ref for f in desk.core.stores.graph.all_facts("acme"))
            laptop.core.give(ref)
            laptop.sync()
            bob.sync()
            assert any(f.memory_ref == ref for f in bob.core.stores.graph.all_facts("acme"))

            # The solo workspace never reached the server.
            assert {w for w, _k, _d in server_rows(server_dsn, "value")} == {"acme"}

            # Forgetting the session on the laptop removes it everywhere; its extracted facts go too.
            forget_apply(laptop.core, plan_session(laptop.core, SESSION, memories=False))
            laptop.sync()
            desk.sync()
            bob.sync()
            for machine in (desk, bob):
                assert machine.core.stores.capture.session("acme", SESSION) is None
                assert not [f for f in machine.core.stores.graph.all_facts("acme") if f.session == SESSION]
            assert any(t.kind == "session" and t.key == SESSION for t in desk.core.stores.memories.tombstones("acme"))
            assert not any(t.key == SESSION for t in bob.core.stores.memories.tombstones("acme"))
            assert all(deleted for _w, _k, deleted in server_rows(server_dsn, "session"))
            assert all(deleted for _w, _k, deleted in server_rows(server_dsn, "session_part"))
            # ... and it cannot come back from a machine that still had a copy.
            assert desk.sync()[0].pushed == 0
        finally:
            for m in (laptop, desk, bob):
                m.close()


def test_a_fact_two_teammates_state_is_kept_once_everywhere(server_dsn: str, tmp_path: Path) -> None:
    """Two people's captures often name the same fact (the shop deploys to fly.io): the server's
    copy and each machine keep one current copy of it, and nothing fails or echoes."""
    with running_server(server_dsn) as srv:
        team(srv.store)
        alice = Machine(tmp_path, "alice-laptop", srv.url, invite(srv.store, "alice", ["acme"]))
        bob = Machine(tmp_path, "bob", srv.url, invite(srv.store, "bob", ["acme"]))
        try:
            for machine in (alice, bob):
                facts.add(machine.core.stores.graph, machine.core.clock, "acme", "shop", "deploys_to", "fly.io",
                          project=PROJECT)  # fmt: skip
            for machine in (alice, bob, alice, bob):
                done = machine.sync()[0]
                assert not done.refused, done.refused
            assert [w for w, _k, _d in server_rows(server_dsn, "fact")] == ["acme", "acme"]  # one record each
            with psycopg.connect(server_dsn, autocommit=True) as conn:
                current = conn.execute("SELECT count(*) FROM graph_facts WHERE workspace = 'acme' AND subject = 'shop'"
                                       " AND predicate = 'deploys_to' AND valid_to IS NULL").fetchone()  # fmt: skip
            assert current is not None and current[0] == 1
            for machine in (alice, bob):
                assert [(f.object, f.valid_to) for f in machine.core.stores.graph.all_facts("acme")] == [("fly.io", None)]
                assert machine.sync()[0].pushed == 0  # nothing echoes
        finally:
            alice.close()
            bob.close()
