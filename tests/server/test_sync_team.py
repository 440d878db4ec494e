"""Two machines of one user and a teammate sync through a real server (real HTTP on loopback,
real PostgreSQL), and each sees what seed 001 says."""

from __future__ import annotations

from pathlib import Path

from serverkit import Machine, alice_two_machines_and_bob, invite, running_server, team

from kenning.model import Kind, Origin, Status


def test_memories_hide_decisions_contradiction_and_slots(server_dsn: str, tmp_path: Path) -> None:
    with running_server(server_dsn) as srv:
        laptop, desk, bob = alice_two_machines_and_bob(srv, tmp_path)
        try:
            fact = laptop.remember("The shop deploys from the release branch every Tuesday", kind=Kind.FACT).memory
            secret_plan = laptop.remember("The staging box keeps nightly database dumps for a week", kind=Kind.FACT).memory
            assert fact and secret_plan
            laptop.sync()
            desk.sync()
            bob.sync()
            assert fact.ref in desk.memories() and fact.ref in bob.memories()

            # A hide reaches alice's other computer; bob sees the memory removed, with no sign.
            laptop.core.hide(secret_plan.ref)
            laptop.sync()
            desk.sync()
            bob.sync()
            assert desk.core.store.get("acme", secret_plan.ref).hidden  # type: ignore[union-attr]
            assert bob.core.store.get("acme", secret_plan.ref) is None
            assert all(t.key != secret_plan.ref for t in bob.core.store.tombstones("acme"))
            # ... and giving it back brings it back to bob.
            laptop.core.give(secret_plan.ref)
            laptop.sync()
            bob.sync()
            assert bob.core.store.get("acme", secret_plan.ref) is not None

            # The same decision title: bob's doc is left alone, alice keeps her own.
            place = laptop.core.place(project="github.com/acme/shop")
            from kenning.core.remember import RememberRequest

            laptop.core.record_decision(place, RememberRequest(
                "We chose Postgres over MySQL for the shop", kind=Kind.DECISION, reason="row-level security",
                origin=Origin.PERSON, source="cli", title="Database"))  # fmt: skip
            bob.core.record_decision(bob.core.place(project="github.com/acme/shop"), RememberRequest(
                "We chose SQLite over Postgres for the shop's tests", kind=Kind.DECISION, reason="no server in CI",
                origin=Origin.PERSON, source="cli", title="Database"))  # fmt: skip
            laptop.sync()
            bob.sync()
            laptop.sync()
            bob_docs = {(d.title, d.author): d for d in bob.core.store.decision_docs("acme", ["github.com/acme/shop"])}
            alice_docs = {(d.title, d.author): d for d in laptop.core.store.decision_docs("acme", ["github.com/acme/shop"])}
            assert "SQLite" in bob_docs[("Database", "cli")].decision
            assert "Postgres over MySQL" in bob_docs[("Database", "alice/cli")].decision
            assert "Postgres over MySQL" in alice_docs[("Database", "cli")].decision
            assert "SQLite" in alice_docs[("Database", "bob/cli")].decision

            # A contradiction of a firmer memory goes to Needs review, not over it: bob's agent
            # wrote it offline, before his machine had alice's memory.
            firm = laptop.remember("We run the shop's migrations by hand before each deploy", kind=Kind.FACT).memory
            weak = bob.remember("We do not run the shop's migrations by hand before each deploy", kind=Kind.FACT,
                                origin=Origin.AGENT, source="codex").memory  # fmt: skip
            assert firm and weak
            laptop.sync()
            reports = bob.sync()
            assert reports[0].held_for_review == 1
            held = bob.core.store.get("acme", weak.ref)
            assert held is not None and held.status is Status.RETIRED and firm.ref in held.status_note
            laptop.sync()
            assert laptop.core.store.get("acme", firm.ref).status is Status.ACTIVE  # type: ignore[union-attr]
            reviews = laptop.core.store.reviews("acme", ["github.com/acme/shop"])
            assert any(firm.ref in r.refs for r in reviews)
        finally:
            for m in (laptop, desk, bob):
                m.close()


def test_offline_slots_supersede_in_the_servers_order_and_repeats_strengthen(server_dsn: str, tmp_path: Path) -> None:
    with running_server(server_dsn) as srv:
        team(srv.store)
        laptop = Machine(tmp_path, "alice-laptop", srv.url, invite(srv.store, "alice", ["acme"]))
        desk = Machine(tmp_path, "alice-desk", srv.url, invite(srv.store, "alice", ["acme"]))
        try:
            dark = laptop.remember("Use the dark theme in the admin screens", kind=Kind.PREFERENCE, subject="ui.theme").memory
            light = desk.remember("Use the light theme in the admin screens", kind=Kind.PREFERENCE, subject="ui.theme").memory
            a = laptop.remember("Install the shop's packages with pnpm, never npm", kind=Kind.FACT, source="claude-code",
                                origin=Origin.AGENT).memory  # fmt: skip
            b = desk.remember("Install the shop's packages with pnpm, never npm", kind=Kind.FACT, source="codex",
                              origin=Origin.AGENT).memory  # fmt: skip
            assert dark and light and a and b
            laptop.sync()
            desk.sync()
            laptop.sync()
            for machine in (laptop, desk):
                got = machine.memories()
                assert got[dark.ref].status is Status.SUPERSEDED and got[dark.ref].status_note == light.ref  # type: ignore[attr-defined]
                assert got[light.ref].status is Status.ACTIVE  # type: ignore[attr-defined]
                assert got[b.ref].status is Status.SUPERSEDED and got[b.ref].status_note == a.ref  # type: ignore[attr-defined]
                assert got[a.ref].confirmations == 1 and got[a.ref].confidence > a.confidence  # type: ignore[attr-defined]
        finally:
            laptop.close()
            desk.close()
