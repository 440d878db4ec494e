"""A single-valued slot holds one object wherever a fact lands: added on a machine (kg_add),
added through the team server's ``POST /api/v1/graph/facts``, or pulled by sync. Real HTTP on
loopback and a real PostgreSQL; two machines of alice's and bob through the REST API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import psycopg
from serverkit import Machine, alice_two_machines_and_bob, running_server

from kenning.graph import facts

PROJECT = "github.com/acme/shop"


def _add(http: httpx.Client, predicate: str, obj: str, **extra: str) -> dict[str, Any]:
    r = http.post("/api/v1/graph/facts", json={"workspace": "acme", "subject": "shop", "predicate": predicate,
                                               "object": obj, "project": PROJECT, **extra})  # fmt: skip
    assert r.status_code == 200, r.text
    answer: dict[str, Any] = r.json()
    return answer


def _served(http: httpx.Client, predicate: str) -> dict[str, str | None]:
    """The server's copy: each object of shop's ``predicate`` and when it ended (None: current)."""
    r = http.post("/api/v1/graph/query", json={"workspace": "acme", "entity": "shop", "predicate": predicate})
    assert r.status_code == 200, r.text
    return {f["object_id"]: f["valid_to"] for f in r.json()["facts"]}


def _local(machine: Machine, predicate: str) -> dict[str, str | None]:
    rows = machine.core.stores.graph.all_facts("acme")
    return {f.object: f.valid_to for f in rows if f.subject == "shop" and f.predicate == predicate}


def _records(dsn: str, predicate: str) -> dict[tuple[str, str], str | None]:
    """The server's fact records of shop's ``predicate``: (owner's name, object) -> valid_to."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute("SELECT a.name, b.body FROM records r JOIN record_bodies b USING (workspace, kind, key)"
                            " JOIN accounts a ON a.id = r.owner WHERE r.kind = 'fact' AND NOT r.deleted").fetchall()  # fmt: skip
    return {(name, body["object"]): body["valid_to"] for name, body in rows
            if body["subject"] == "shop" and body["predicate"] == predicate}  # fmt: skip


def test_server_add_ends_the_slots_current_object_and_machines_follow(server_dsn: str, tmp_path: Path) -> None:
    with running_server(server_dsn) as srv:
        laptop, desk, bob = alice_two_machines_and_bob(srv, tmp_path)
        try:
            facts.add(laptop.core.stores.graph, laptop.core.clock, "acme", "shop", "deploys_to", "fly.io", project=PROJECT)
            facts.add(laptop.core.stores.graph, laptop.core.clock, "acme", "shop", "uses", "Sentry", project=PROJECT)
            assert not laptop.sync()[0].refused
            desk.sync()
            assert _local(desk, "deploys_to") == {"fly.io": None}

            with httpx.Client(base_url=srv.url, timeout=60, headers={"Authorization": f"Bearer {bob.link.token}"}) as http:
                # bob's own facts: the second object of a single-valued slot ends his first, in his record.
                first = _add(http, "hosted_on", "AWS")
                assert first["outcome"] == "stored" and first["closed"] == []
                second = _add(http, "hosted_on", "GCP")
                assert [f["object_id"] for f in second["closed"]] == ["aws"]
                ended = second["closed"][0]["valid_to"]
                assert ended == second["fact"]["valid_from"]
                assert _served(http, "hosted_on") == {"aws": ended, "gcp": None}
                assert _records(server_dsn, "hosted_on") == {("bob", "aws"): ended, ("bob", "gcp"): None}

                # alice's fact on the same slot: the server's copy ends it (everyone's view follows
                # the rule); her record stays hers until her machine ends it.
                moved = _add(http, "deploys_to", "render")
                assert [f["object_id"] for f in moved["closed"]] == ["fly.io"]
                at = moved["fact"]["valid_from"]
                assert _served(http, "deploys_to") == {"fly.io": at, "render": None}
                assert _records(server_dsn, "deploys_to") == {("alice", "fly.io"): None, ("bob", "render"): None}

                # A many-valued predicate closes nothing.
                assert _add(http, "uses", "Redis")["closed"] == []
                assert _served(http, "uses") == {"sentry": None, "redis": None}

            # alice's machines pull bob's facts and apply the same rule; the laptop's next push ends
            # her record (as her own kg_add would have), and nothing else changes.
            laptop.sync()
            assert _local(laptop, "deploys_to") == {"fly.io": at, "render": None}
            assert _local(laptop, "hosted_on") == {"aws": ended, "gcp": None}
            assert _local(laptop, "uses") == {"sentry": None, "redis": None}
            laptop.sync()
            desk.sync()
            assert _records(server_dsn, "deploys_to") == {("alice", "fly.io"): at, ("bob", "render"): None}
            for machine in (laptop, desk):
                assert _local(machine, "deploys_to") == {"fly.io": at, "render": None}
                assert _local(machine, "hosted_on") == {"aws": ended, "gcp": None}
            fly = [f for f in laptop.core.stores.graph.all_facts("acme") if f.object == "fly.io"][0]
            render = [f for f in laptop.core.stores.graph.all_facts("acme") if f.object == "render"][0]
            assert fly.ended_by == render.id

            # A fresh machine pulling the whole history ends up the same, and pushes nothing back.
            bob.sync()
            assert _local(bob, "deploys_to") == {"fly.io": at, "render": None}
            assert _local(bob, "hosted_on") == {"aws": ended, "gcp": None}
            assert bob.sync()[0].pushed == 0
            with httpx.Client(base_url=srv.url, timeout=60, headers={"Authorization": f"Bearer {bob.link.token}"}) as http:
                assert _served(http, "deploys_to") == {"fly.io": at, "render": None}
        finally:
            for m in (laptop, desk, bob):
                m.close()
