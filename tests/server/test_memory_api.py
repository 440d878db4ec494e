"""The server's query side: pushed memories are materialized into the workspace's PostgreSQL
memory store (same transaction, bound by row-level security) and answered by the REST memory
routes, with the CLI's recall pipeline — through a real server on loopback and a real
PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import psycopg
from serverkit import Machine, api_device, bearer, invite, running_server, team

from kenning.model import Kind, Origin
from kenning.server.auth import token_hash
from kenning.store.server.postgres import PostgresServerStore
from kenning.store.server.protocol import Grant, Role

SHOP = "github.com/acme/shop"


def _tables(dsn: str) -> dict[str, int]:
    with psycopg.connect(dsn) as conn:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]  # type: ignore[index]
                for t in ("records", "record_bodies", "memories", "memory_events", "memory_postings", "batches")}  # fmt: skip


def _recall(http: httpx.Client, token: str, query: str, **body: Any) -> httpx.Response:
    return http.post("/api/v1/recall", json={"workspace": "acme", "query": query, "project": SHOP, **body},
                     headers=bearer(token))  # fmt: skip


def test_pushed_memories_are_recalled_through_the_api_as_the_cli_recalls_them(server_dsn: str, tmp_path: Path) -> None:
    with running_server(server_dsn) as srv:
        team(srv.store)
        laptop = Machine(tmp_path, "alice-laptop", srv.url, invite(srv.store, "alice", ["acme"]))
        token = api_device(srv.store, "bob", ["acme"])
        http = httpx.Client(base_url=srv.url, timeout=30)
        try:
            deploy = laptop.remember("The shop deploys from the release branch every Tuesday", kind=Kind.FACT).memory
            dumps = laptop.remember("The staging box keeps nightly database dumps for a week", kind=Kind.FACT).memory
            tz = laptop.remember("Tests pin TZ to UTC because the invoice dates drifted", kind=Kind.DECISION,
                                 reason="invoice dates drifted across zones").memory  # fmt: skip
            assert deploy and dumps and tz
            laptop.sync()

            # The same answer as the machine's own recall (same pipeline, same ranking).
            for query in ("when do we deploy the shop", "database dumps on staging", "why is TZ pinned"):
                local = laptop.core.recall(laptop.core.place(project=SHOP), query, record=False)
                r = _recall(http, token, query)
                assert r.status_code == 200, r.text
                assert [x["ref"] for x in r.json()["results"]] == [h.memory.ref for h in local.hits], query
                assert all(x["workspace"] == "acme" for x in r.json()["results"])
            # Abstention: nothing covers it, nothing comes back.
            r = _recall(http, token, "kubernetes helm chart rollout strategy")
            assert r.status_code == 200 and r.json()["results"] == [] and r.json()["note"]

            # A hide: every reader finds it removed; a forget: gone, with a tombstone in the copy.
            laptop.core.hide(dumps.ref)
            laptop.core.retire(tz.ref, "we moved to zone-aware dates")
            laptop.sync()
            assert _recall(http, token, "database dumps on staging").json()["results"] == []
            r = http.get(f"/api/v1/memories/{dumps.ref}", params={"workspace": "acme"}, headers=bearer(token))
            assert r.status_code == 404 and r.json()["error"] == "notfound"
            r = http.get(f"/api/v1/memories/{tz.ref}", params={"workspace": "acme"}, headers=bearer(token))
            assert r.status_code == 200 and r.json()["status"] == "retired"
            listed = http.get("/api/v1/memories", params={"workspace": "acme", "project": SHOP}, headers=bearer(token)).json()
            assert [m["ref"] for m in listed["memories"]] == [deploy.ref] and listed["total"] == 1
            laptop.core.give(dumps.ref)
            laptop.sync()
            assert [x["ref"] for x in _recall(http, token, "database dumps on staging").json()["results"]] == [dumps.ref]
            with psycopg.connect(server_dsn) as conn:
                rows = conn.execute("SELECT ref, status FROM memories WHERE workspace = 'acme' ORDER BY ref").fetchall()
            assert sorted(rows) == sorted([(deploy.ref, "active"), (dumps.ref, "active"), (tz.ref, "retired")])
        finally:
            http.close()
            laptop.close()


def test_remember_through_the_api_follows_the_write_rules_and_reaches_the_machines(server_dsn: str, tmp_path: Path) -> None:
    with running_server(server_dsn) as srv:
        ids = team(srv.store)
        viewer = srv.store.add_account("vera", datetime.now(UTC))
        srv.store.set_member("acme", viewer.id, Role.VIEWER)
        alice = api_device(srv.store, "alice", ["acme"])
        bob = api_device(srv.store, "bob", ["acme"])
        vera = api_device(srv.store, "vera", ["acme"])
        laptop = Machine(tmp_path, "alice-laptop", srv.url, invite(srv.store, "alice", ["acme"]))
        http = httpx.Client(base_url=srv.url, timeout=30)
        try:
            body = {"workspace": "acme", "project": SHOP, "text": "The shop's invoices are rendered with WeasyPrint",
                    "kind": "fact", "source": "codex"}  # fmt: skip
            r = http.post("/api/v1/memories", json=body, headers=bearer(alice))
            assert r.status_code == 200, r.text
            first = r.json()
            assert first["outcome"] == "stored" and first["memory"]["scope"] == SHOP and first["seq"] > 0
            # A near-duplicate by its author strengthens; by a teammate it does not.
            again = http.post("/api/v1/memories", json={**body, "text": "The shop invoices are rendered with WeasyPrint",
                                                        "source": "claude-code"}, headers=bearer(alice)).json()  # fmt: skip
            assert again["outcome"] == "strengthened" and again["other"] == first["ref"]
            theirs = http.post("/api/v1/memories", json={**body, "text": "The shop invoices are rendered with WeasyPrint"},
                               headers=bearer(bob)).json()  # fmt: skip
            assert theirs["outcome"] == "stored" and theirs["ref"] != first["ref"]
            # Redaction again on the server: the secret never reaches storage.
            key = "AKIA" + "IOSFODNN7EXAMPLE"
            r = http.post("/api/v1/memories", json={**body, "text": f"The deploy user's key is {key} for the shop bucket"},
                          headers=bearer(alice))  # fmt: skip
            assert r.status_code == 200, r.text
            assert key not in r.text
            with psycopg.connect(server_dsn) as conn:
                assert conn.execute("SELECT count(*) FROM record_bodies WHERE body::text LIKE %s", (f"%{key}%",)).fetchone()[0] == 0  # type: ignore[index]
                assert conn.execute("SELECT count(*) FROM memories WHERE text LIKE %s", (f"%{key}%",)).fetchone()[0] == 0  # type: ignore[index]
            # The rules of remember: a state needs a slot (Refused, nothing written).
            before = _tables(server_dsn)
            r = http.post("/api/v1/memories", json={**body, "text": "Staging is down for the migration", "kind": "state"},
                          headers=bearer(alice))  # fmt: skip
            assert r.status_code == 400 and "subject" in r.json()["message"] and r.json()["fix"]
            # A viewer reads, never writes.
            r = http.post("/api/v1/memories", json=body, headers=bearer(vera))
            assert r.status_code == 403 and "viewer" in r.json()["message"]
            assert _tables(server_dsn) == before
            assert _recall(http, vera, "how are invoices rendered").status_code == 200

            # The machines pull what was written on the server, owned by its author.
            laptop.sync()
            mine = laptop.core.store.get("acme", first["ref"])
            assert mine is not None and mine.confirmations >= 1
            assert laptop.core.store.get("acme", theirs["ref"]) is not None
            with srv.store.workspace(Grant(token_hash(alice), "acme")) as tx:
                assert tx.record("memory", first["ref"]).owner == ids["alice"]  # type: ignore[union-attr]
                assert tx.record("memory", theirs["ref"]).owner == ids["bob"]  # type: ignore[union-attr]
        finally:
            http.close()
            laptop.close()


def test_recall_across_workspaces_labels_results_and_refuses_what_the_token_may_not_read(server_dsn: str) -> None:
    with running_server(server_dsn) as srv:
        ids = team(srv.store)
        now = datetime.now(UTC)
        srv.store.add_workspace("beta", "Beta", ids["alice"], now)
        srv.store.add_workspace("gamma", "Gamma", ids["bob"], now)
        alice = api_device(srv.store, "alice", ["acme", "beta"])
        http = httpx.Client(base_url=srv.url, timeout=30)
        try:
            for ws, text in (("acme", "The shop deploys from the release branch every Tuesday"),
                             ("beta", "The beta app deploys from main after every merge")):  # fmt: skip
                r = http.post("/api/v1/memories", json={"workspace": ws, "project": SHOP, "text": text, "kind": "fact"},
                              headers=bearer(alice))  # fmt: skip
                assert r.status_code == 200, r.text
            r = http.post("/api/v1/recall", json={"workspaces": ["acme", "beta"], "query": "how do we deploy",
                                                  "project": SHOP}, headers=bearer(alice))  # fmt: skip
            assert r.status_code == 200, r.text
            assert {x["workspace"] for x in r.json()["results"]} == {"acme", "beta"}
            assert r.json()["workspaces"] == ["acme", "beta"]
            # gamma: not in the token's scope and not a member: the whole request is refused, by name.
            r = http.post("/api/v1/recall", json={"workspaces": ["acme", "gamma"], "query": "how do we deploy"},
                          headers=bearer(alice))  # fmt: skip
            assert r.status_code == 403 and "gamma" in r.json()["message"] and "results" not in r.json()
            r = http.post("/api/v1/recall", json={"workspace": "acme", "workspaces": ["beta"], "query": "x"}, headers=bearer(alice))
            assert r.status_code == 400 and "either" in r.json()["message"]
        finally:
            http.close()


def test_bad_input_to_the_memory_routes_is_refused_clearly_and_changes_nothing(server_dsn: str) -> None:
    with running_server(server_dsn) as srv:
        team(srv.store)
        alice = api_device(srv.store, "alice", ["acme"])
        http = httpx.Client(base_url=srv.url, timeout=30)
        try:
            before = _tables(server_dsn)
            cases: list[tuple[str, str, Any, int, str]] = [
                ("POST", "/api/v1/recall", {"workspace": "acme", "query": 5}, 422, "query"),
                ("POST", "/api/v1/recall", {"workspace": "acme", "query": "x", "count": 500}, 422, "count"),
                ("POST", "/api/v1/recall", {"workspace": "acme", "query": "x", "surprise": 1}, 422, "surprise"),
                ("POST", "/api/v1/memories", {"workspace": "acme", "text": ["a"]}, 422, "text"),
                ("POST", "/api/v1/memories", {"workspace": "acme", "text": "x" * 2001}, 422, "text"),
                ("POST", "/api/v1/memories", {"workspace": "acme", "text": "Fine sentence here", "confidence": 7}, 422, "confidence"),
                ("POST", "/api/v1/memories", {"workspace": "../etc", "text": "Fine sentence here"}, 422, "workspace"),
                ("POST", "/api/v1/memories", {"workspace": "beta", "text": "Fine sentence here", "kind": "fact"}, 403, "beta"),
                ("GET", "/api/v1/memories/not-a-ref?workspace=acme", None, 400, "ref"),
                ("GET", "/api/v1/memories/m:00000000?workspace=acme", None, 404, "m:00000000"),
                ("GET", "/api/v1/memories?workspace=acme&offset=-1", None, 422, "offset"),
                ("GET", "/api/v1/health", None, 422, "workspace"),
            ]  # fmt: skip
            for method, path, body, status, needle in cases:
                r = http.request(method, path, json=body, headers=bearer(alice))
                assert r.status_code == status, (path, body, r.text)
                assert needle in r.json()["message"] or needle in str(r.json().get("details", "")), (path, r.text)
            r = http.post("/api/v1/memories", content=b"{not json", headers={**bearer(alice), "Content-Type": "application/json"})
            assert r.status_code == 400 and r.json()["error"] == "malformed_json"
            r = http.post("/api/v1/memories", content=b"{" + b" " * (4 * 1024 * 1024) + b"}",
                          headers={**bearer(alice), "Content-Type": "application/json"})  # fmt: skip
            assert r.status_code == 413 and r.json()["error"] == "too_large"
            r = http.post("/api/v1/recall", json={"workspace": "acme", "query": "x"}, headers=bearer("kdev_nope"))
            assert r.status_code == 401
            assert _tables(server_dsn) == before
            # The API's schema documents the routes.
            paths = http.get("/api/v1/openapi.json").json()["paths"]
            assert {"/api/v1/recall", "/api/v1/memories", "/api/v1/memories/{ref}", "/api/v1/health"} <= set(paths)
            ok = http.get("/api/v1/health", params={"workspace": "acme"}, headers=bearer(alice))
            assert ok.status_code == 200 and ok.json()["checked"] == 0
        finally:
            http.close()


def test_the_materialized_copy_is_bound_by_row_level_security_to_the_token(server_dsn: str) -> None:
    """SQL with the application's checks removed: the memory tables admit the token's own
    workspace only, and nothing for a token that is not good there."""
    store = PostgresServerStore.open(server_dsn, max_size=2)
    try:
        team(store)
        now = datetime.now(UTC)
        store.add_workspace("beta", "Beta", store.account("bob").id, now)  # type: ignore[union-attr]
        alice = api_device(store, "alice", ["acme"])
        bob = api_device(store, "bob", ["acme", "beta"])
        from kenning.ids import new_ref
        from kenning.model import Memory
        from kenning.sync import records, wire
        from kenning.sync.apply import Item, apply_batch

        for token, ws, account in ((alice, "acme", "alice"), (bob, "beta", "bob")):
            ref = new_ref()
            memory = Memory(ref=ref, workspace=ws, scope=SHOP, text=f"{ws} deploys on Tuesday",  # type: ignore[arg-type]
                            kind=Kind.FACT, confidence=0.8, origin=Origin.PERSON, created_at=now, confirmed_at=now)  # fmt: skip
            body = records.memory_body(memory, [])
            with store.workspace(Grant(token_hash(token), ws)) as tx:
                tx.lock()
                [res] = apply_batch(tx, ws, store.account(account).id, [Item("memory", ref, "put", wire.digest(body), body)], now)  # type: ignore[union-attr]
                assert res.status == "stored"
        for token, ws, expect in ((alice, "acme", {"acme"}), (alice, "beta", set()), (bob, "beta", {"beta"}),
                                  ("kdev_unknown", "acme", set())):  # fmt: skip
            with store.workspace(Grant(token_hash(token), ws)) as tx:
                got = {r["workspace"] for r in tx.conn.execute("SELECT workspace FROM memories").fetchall()}  # type: ignore[attr-defined]
                assert got == expect, (ws, got)
                postings = {r["workspace"] for r in tx.conn.execute("SELECT workspace FROM memory_postings").fetchall()}  # type: ignore[attr-defined]
                assert postings <= expect
    finally:
        store.close()

