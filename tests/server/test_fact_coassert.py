"""Two members state the same fact: each keeps their own record, the graph (on each machine and in
the server's copy) holds one current row, and the fact stays current while any member still
asserts it. Real HTTP on loopback and a real PostgreSQL; alice's two machines and bob's."""

from __future__ import annotations

from pathlib import Path

import httpx
import psycopg
from serverkit import Machine, invite, running_server, team

from kenning.graph import facts
from kenning.store.server.protocol import fact_slot
from kenning.store.server.schema import FACT_SLOT_SQL

PROJECT = "github.com/acme/shop"


def _current(machine: Machine) -> list[str]:
    """Who holds each current row of ``shop uses redis`` here (by the row's evidence)."""
    return sorted(str(f.evidence) for f in machine.core.stores.graph.all_facts("acme")
                  if (f.subject, f.predicate, f.object) == ("shop", "uses", "redis") and f.current)  # fmt: skip


def _served(url: str, token: str) -> list[str]:
    with httpx.Client(base_url=url, timeout=60, headers={"Authorization": f"Bearer {token}"}) as http:
        r = http.post("/api/v1/graph/query", json={"workspace": "acme", "entity": "shop", "predicate": "uses"})
    assert r.status_code == 200, r.text
    return sorted(str(f["evidence"]).strip("«»") for f in r.json()["facts"] if f["object_id"] == "redis" and f["current"])


def _records(dsn: str) -> dict[str, tuple[bool, str | None]]:
    """Each account's fact record of redis: (deleted, valid_to)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute("SELECT a.name, r.deleted, b.body->>'valid_to' FROM records r JOIN accounts a ON a.id = r.owner"
                            " LEFT JOIN record_bodies b USING (workspace, kind, key)"
                            " WHERE r.kind = 'fact' AND (b.body IS NULL OR b.body->>'object' = 'redis')").fetchall()  # fmt: skip
    return {name: (deleted, valid_to) for name, deleted, valid_to in rows}


def _state(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return int(conn.execute("SELECT count(*) FROM records WHERE kind = 'fact'").fetchone()[0])  # type: ignore[index]


def test_a_fact_stays_current_while_any_member_asserts_it(server_dsn: str, tmp_path: Path) -> None:
    with running_server(server_dsn) as srv:
        team(srv.store)
        bob = Machine(tmp_path, "bob", srv.url, invite(srv.store, "bob", ["acme"]))
        laptop = Machine(tmp_path, "alice-laptop", srv.url, invite(srv.store, "alice", ["acme"]))
        desk = Machine(tmp_path, "alice-desk", srv.url, invite(srv.store, "alice", ["acme"]))
        try:
            # bob states it first, alice the same fact after him, each on their machine.
            facts.add(bob.core.stores.graph, bob.core.clock, "acme", "shop", "uses", "Redis", project=PROJECT,
                      evidence="bob")  # fmt: skip
            assert not bob.sync()[0].refused
            facts.add(laptop.core.stores.graph, laptop.core.clock, "acme", "shop", "uses", "Redis", project=PROJECT,
                      evidence="alice")  # fmt: skip
            assert not laptop.sync()[0].refused
            assert _records(srv_dsn := server_dsn) == {"bob": (False, None), "alice": (False, None)}
            assert _served(srv.url, bob.link.token) == ["bob"]  # one current row: the first writer's

            # alice's desk pulls bob's record first, then her own: one row (bob's), and her record
            # is still hers: syncing again pushes nothing (no delete of a record it holds no row of).
            desk.sync()
            assert _current(desk) == ["bob"]
            again = desk.sync()[0]
            assert again.pushed == 0 and not again.refused
            assert _records(srv_dsn) == {"bob": (False, None), "alice": (False, None)}
            laptop.sync()
            assert _current(laptop) == ["alice"]  # her own row, bob's record maps onto it

            # bob ends his: alice still asserts it, so it stays current everywhere (her record's row
            # now), and bob's record ends as he said.
            [mine] = [f for f in bob.core.stores.graph.all_facts("acme") if f.object == "redis"]
            facts.end(bob.core.stores.graph, bob.core.clock, "acme", mine.id)
            bob.sync()
            ended = _records(srv_dsn)["bob"]
            assert ended[0] is False and ended[1] is not None
            assert _served(srv.url, bob.link.token) == ["alice"]
            for machine in (desk, laptop):
                machine.sync()
                assert _current(machine) == ["alice"], machine.home
            bob.sync()
            assert _current(bob) == ["alice"]  # bob's own row ended; alice's record brings the fact back

            # alice ends hers too: no member asserts it any more, it is current nowhere.
            [hers] = [f for f in laptop.core.stores.graph.all_facts("acme") if f.object == "redis" and f.current]
            facts.end(laptop.core.stores.graph, laptop.core.clock, "acme", hers.id)
            laptop.sync()
            for machine in (desk, bob, laptop):
                machine.sync()
                assert _current(machine) == [], machine.home
            assert _served(srv.url, bob.link.token) == []
            assert all(valid_to is not None for _, valid_to in _records(srv_dsn).values())
            # Nothing was pushed twice or deleted along the way: two records, both the authors'.
            assert _state(srv_dsn) == 2
        finally:
            for m in (bob, laptop, desk):
                m.close()


def test_a_fact_whose_first_writer_hides_its_memory_stays_current_for_the_other(server_dsn: str, tmp_path: Path) -> None:
    """bob's fact came from a memory he then hides: his record goes private (a teammate sees it
    removed), and alice's record of the same fact takes its place everywhere, with her words."""
    with running_server(server_dsn) as srv:
        team(srv.store)
        bob = Machine(tmp_path, "bob", srv.url, invite(srv.store, "bob", ["acme"]))
        laptop = Machine(tmp_path, "alice-laptop", srv.url, invite(srv.store, "alice", ["acme"]))
        desk = Machine(tmp_path, "alice-desk", srv.url, invite(srv.store, "alice", ["acme"]))
        try:
            memory = bob.remember("The shop uses Redis for its job queue")
            assert memory.memory is not None
            facts.add(bob.core.stores.graph, bob.core.clock, "acme", "shop", "uses", "Redis", project=PROJECT,
                      evidence="bob", memory_ref=memory.memory.ref)  # fmt: skip
            bob.sync()
            facts.add(laptop.core.stores.graph, laptop.core.clock, "acme", "shop", "uses", "Redis", project=PROJECT,
                      evidence="alice")  # fmt: skip
            facts.add(laptop.core.stores.graph, laptop.core.clock, "acme", "shop", "decided", "Crème brûlée — “ünïcode”",
                      object_kind="text", area="désserts", project=PROJECT)  # fmt: skip
            laptop.sync()
            desk.sync()
            assert _current(desk) == ["bob"] and _served(srv.url, bob.link.token) == ["bob"]
            # The server keys a fact record by what it states the same way in Python (a push) and
            # in SQL (the migration that keyed the records pushed before it).
            with psycopg.connect(server_dsn, autocommit=True) as conn:
                slots = conn.execute(f"SELECT subject, {FACT_SLOT_SQL}, body FROM record_bodies WHERE kind = 'fact'").fetchall()
            assert len(slots) == 3 and all(a == b == fact_slot(body) for a, b, body in slots), slots

            bob.core.hide(memory.memory.ref)
            bob.sync()
            assert _served(srv.url, bob.link.token) == ["alice"]
            desk.sync()
            assert _current(desk) == ["alice"]
            assert "bob" not in {str(f.evidence) for f in desk.core.stores.graph.all_facts("acme")}  # nothing of his left
            assert _records(server_dsn)["alice"] == (False, None)

            # /sync/records answers as pull does: bob's hidden fact reads as removed to alice, and
            # a workspace she is not in, or a malformed ask, is refused with nothing read.
            with psycopg.connect(server_dsn, autocommit=True) as conn:
                keys = dict(conn.execute("SELECT a.name, r.key FROM records r JOIN accounts a ON a.id = r.owner"
                                         " JOIN record_bodies b USING (workspace, kind, key)"
                                         " WHERE r.kind = 'fact' AND b.body->>'object' = 'redis'").fetchall())  # fmt: skip
            with httpx.Client(base_url=srv.url, timeout=60, headers={"Authorization": f"Bearer {desk.link.token}"}) as http:
                ask = [{"kind": "fact", "key": keys["bob"]}, {"kind": "fact", "key": keys["alice"]},
                       {"kind": "fact", "key": "nobody\x1fnothing"}]  # fmt: skip
                r = http.post("/api/v1/sync/records", json={"workspace": "acme", "keys": ask})
                assert r.status_code == 200, r.text
                answered = {c["key"]: c for c in r.json()["changes"]}
                assert set(answered) == {keys["bob"], keys["alice"]}
                assert answered[keys["bob"]]["body"] is None and answered[keys["bob"]]["deleted"] is False
                assert answered[keys["alice"]]["body"]["evidence"] == "alice"
                assert http.post("/api/v1/sync/records", json={"workspace": "beta", "keys": ask}).status_code == 403
                assert http.post("/api/v1/sync/records", json={"workspace": "acme", "keys": [{"kind": "x", "key": "y"}]}
                                 ).status_code == 422  # fmt: skip
                assert http.post("/api/v1/sync/records", json={"workspace": "acme", "keys": ask * 200}).status_code == 422
        finally:
            for m in (bob, laptop, desk):
                m.close()
