"""Seed 001's shared workspace, what leaves a memory's author's hands: two machines of one user
(alice's laptop and desk) and a teammate (bob) sync through a real server (real HTTP on
loopback, real PostgreSQL).

- A hide reaches alice's other computer at its next sync, and so does giving it back.
- A teammate sees a hidden memory as removed, with no sign: not in his store, his recall, his
  history or his tombstones, and the server answers his request for it exactly as for a ref
  that never existed.
- The words of a hidden decision copied into its decision doc stay as written for alice;
  once the doc leaves her hands (her agent, a teammate) they read ``[held memory]``, and
  bob's machine is never sent them.
- Retiring travels to every machine; forgetting leaves a tombstone on alice's machines only.
"""

from __future__ import annotations

from pathlib import Path

import httpx
from serverkit import Machine, alice_two_machines_and_bob, invite, running_server, team
from test_bad_input_every_write import _database

from kenning.core.decisions import render
from kenning.core.forget import apply as forget_apply
from kenning.core.forget import plan_memories
from kenning.core.remember import RememberRequest
from kenning.domain.lifecycle import HELD_WORDS
from kenning.model import DecisionDoc, Kind, Origin, Status
from kenning.server.auth import token_hash
from kenning.store.server.protocol import Grant

PROJECT = "github.com/acme/shop"
WHY = "every query of the invoices table needs the tenant guard"
DECIDED = "We chose row-level security over per-tenant schemas for the invoices"


def _doc(machine: Machine, title: str, author: str) -> DecisionDoc:
    docs = {(str(d.title), d.author): d for d in machine.core.store.decision_docs("acme", [PROJECT])}
    assert (title, author) in docs, (machine.home.name, sorted(docs))
    return docs[(title, author)]


def test_a_hidden_decision_is_withdrawn_from_the_teammate_and_kept_for_its_author(server_dsn: str, tmp_path: Path) -> None:
    with running_server(server_dsn) as srv:
        laptop, desk, bob = alice_two_machines_and_bob(srv, tmp_path)
        http = httpx.Client(base_url=srv.url, timeout=30, headers={"Authorization": f"Bearer {bob.link.token}"})
        try:
            decided = laptop.core.record_decision(laptop.core.place(project=PROJECT), RememberRequest(
                DECIDED, kind=Kind.DECISION, reason=WHY, origin=Origin.PERSON, source="cli", title="Tenancy"))  # fmt: skip
            ref = decided.remembered.memory.ref  # type: ignore[union-attr]
            for m in (laptop, desk, bob):
                m.sync()
            assert "row-level security" in _doc(bob, "Tenancy", "alice/cli").decision
            assert bob.core.store.get("acme", ref) is not None

            laptop.core.hide(ref)
            for m in (laptop, desk, bob):
                m.sync()

            # alice's desk: hidden there too; her doc keeps her words for her, her agent reads them held.
            assert desk.core.store.get("acme", ref).hidden  # type: ignore[union-attr]
            mine = _doc(desk, "Tenancy", "cli")
            assert DECIDED in render(desk.core.store, mine, for_agent=False)
            shown = render(desk.core.store, mine, for_agent=True)
            assert HELD_WORDS in shown and DECIDED not in shown and WHY not in shown

            # bob: the memory is gone with no trace of it ...
            assert bob.core.store.get("acme", ref) is None
            assert not bob.core.store.events("acme", ref)
            assert all(t.key != ref for t in bob.core.store.tombstones("acme"))
            hits = bob.core.recall(bob.core.place(project=PROJECT), "row-level security tenants invoices", record=False)
            assert all(h.memory.ref != ref for h in hits.hits)
            # ... his copy of alice's doc reads held, for him and for his agent ...
            theirs = _doc(bob, "Tenancy", "alice/cli")
            for for_agent in (False, True):
                text = render(bob.core.store, theirs, for_agent=for_agent)
                assert HELD_WORDS in text and "row-level security" not in text and WHY not in text, text
            # ... the server's copy (what the API and the server's pages read) holds none of them ...
            with srv.store.workspace(Grant(token_hash(bob.link.token), "acme")) as tx:
                [served] = [d for d in tx.stores().memories.decision_docs("acme", [PROJECT]) if d.title == "Tenancy"]
            assert HELD_WORDS in served.decision and "row-level security" not in served.decision
            assert WHY not in served.reason and not served.memory_ref
            # ... the server never sends him the words ...
            pulled = http.post("/api/v1/sync/pull", json={"workspace": "acme", "after": 0})
            assert pulled.status_code == 200 and "row-level security" not in pulled.text and WHY not in pulled.text
            # ... and asking for the memory by its ref answers as for a ref that never existed.
            asked = http.get(f"/api/v1/memories/{ref}", params={"workspace": "acme"})
            never = http.get("/api/v1/memories/m:00000000", params={"workspace": "acme"})
            assert asked.status_code == never.status_code == 404
            assert asked.json()["message"].replace(ref, "REF") == never.json()["message"].replace("m:00000000", "REF")

            # Giving it back reaches the desk and bob, words and all.
            laptop.core.give(ref)
            for m in (laptop, desk, bob):
                m.sync()
            assert not desk.core.store.get("acme", ref).hidden  # type: ignore[union-attr]
            assert bob.core.store.get("acme", ref) is not None
            assert "row-level security" in render(bob.core.store, _doc(bob, "Tenancy", "alice/cli"), for_agent=False)
        finally:
            http.close()
            for m in (laptop, desk, bob):
                m.close()


def test_retiring_and_forgetting_travel_to_every_machine(server_dsn: str, tmp_path: Path) -> None:
    with running_server(server_dsn) as srv:
        team(srv.store)
        invites = [invite(srv.store, who, ["acme"]) for who in ("alice", "alice", "bob")]
        laptop = Machine(tmp_path, "alice-laptop", srv.url, invites[0])
        desk = Machine(tmp_path, "alice-desk", srv.url, invites[1])
        bob = Machine(tmp_path, "bob", srv.url, invites[2])
        try:
            # The server keeps only hashes: no device token or invite is anywhere in its database.
            everything = str(_database(server_dsn))
            assert not [s for s in (*invites, *(m.link.token for m in (laptop, desk, bob))) if s in everything]
            retired = laptop.remember("The orders export runs from cron on the old box", kind=Kind.FACT).memory
            gone = laptop.remember("The staging password rotates every ninety days", kind=Kind.FACT).memory
            assert retired and gone
            for m in (laptop, desk, bob):
                m.sync()
            laptop.core.retire(retired.ref, "moved to Celery")
            forget_apply(laptop.core, plan_memories(laptop.core, [gone.ref]))
            for m in (laptop, desk, bob):
                m.sync()
            for m in (desk, bob):
                held = m.core.store.get("acme", retired.ref)
                assert held is not None and held.status is Status.RETIRED, (m.home, held)
                hits = m.core.recall(m.core.place(project=PROJECT), "orders export cron", record=False)
                assert all(h.memory.ref != retired.ref for h in hits.hits)
                assert m.core.store.get("acme", gone.ref) is None
            assert any(t.key == gone.ref for t in desk.core.store.tombstones("acme"))
            assert all(t.key != gone.ref for t in bob.core.store.tombstones("acme"))
            # A forgotten memory cannot come back from a machine that still had it: bob's next
            # syncs push nothing of it, and the server keeps only its tombstone.
            assert bob.sync()[0].pushed == 0 and desk.sync()[0].pushed == 0
            assert laptop.core.store.get("acme", gone.ref) is None
        finally:
            for m in (laptop, desk, bob):
                m.close()
