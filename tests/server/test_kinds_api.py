"""The REST routes over synced sessions, facts, values and the diary (real HTTP on loopback,
real PostgreSQL): what machines pushed is searchable and queryable on the server, with each
author's records labelled; writes through the API travel to the machines like pushed ones;
bad input and tokens of other workspaces change nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from serverkit import Machine, invite, running_server, team
from test_sync_kinds import PROJECT, SESSION, capture_fixture

from kenning.core.notes import diary_write, set_value
from kenning.graph import facts
from kenning.server.auth import new_token, token_hash
from kenning.store.server.protocol import Role


def _post(http: httpx.Client, path: str, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
    r = http.post(path, json=body)
    assert r.status_code == status, (path, r.status_code, r.text)
    answer: dict[str, Any] = r.json()
    return answer


def test_routes_read_what_machines_pushed_and_writes_travel(server_dsn: str, tmp_path: Path) -> None:
    with running_server(server_dsn) as srv:
        ids = team(srv.store)
        laptop = Machine(tmp_path, "alice-laptop", srv.url, invite(srv.store, "alice", ["acme"]))
        bob = Machine(tmp_path, "bob", srv.url, invite(srv.store, "bob", ["acme"]))
        viewer = srv.store.add_account("vera", srv.store.accounts()[0].created_at)
        srv.store.set_member("acme", viewer.id, Role.VIEWER)
        vera_token = new_token()
        srv.store.add_device(viewer.id, "vera", ["acme"], token_hash(vera_token), viewer.created_at)
        try:
            capture_fixture(laptop, tmp_path / "laptop-files")
            place = laptop.core.place(project=PROJECT)
            facts.add(laptop.core.stores.graph, laptop.core.clock, "acme", "shop", "deploys_to", "fly.io", project=PROJECT)
            diary_write(laptop.core, place, "Moved the orders export to a Celery job", agent="claude")
            set_value(laptop.core, place, "deploy.target", "fly.io/shop-prod")
            assert not laptop.sync()[0].refused

            headers = {"Authorization": f"Bearer {bob.link.token}"}
            with httpx.Client(base_url=srv.url, timeout=60, headers=headers) as http:
                found = _post(http, "/api/v1/sessions/search", {"workspace": "acme", "query": "celery redis broker"})
                assert found["hits"] and found["hits"][0]["session"] == SESSION
                about = _post(http, "/api/v1/graph/query", {"workspace": "acme", "entity": "shop"})
                assert any(f["predicate"] == "deploys_to" for f in about["facts"]), about
                assert _post(http, "/api/v1/graph/timeline", {"workspace": "acme", "entity": "shop"})["facts"]
                values = _post(http, "/api/v1/values", {"workspace": "acme", "project": PROJECT})["values"]
                assert [(v["key"], "fly.io/shop-prod" in v["value"]) for v in values] == [("alice/deploy.target", True)]
                entries = _post(http, "/api/v1/diary", {"workspace": "acme", "project": PROJECT})["entries"]
                assert [e["agent"] for e in entries] == ["alice/claude"]

                # bob writes through the API: his records, pulled by alice's machine.
                added = _post(http, "/api/v1/graph/facts", {"workspace": "acme", "subject": "shop", "predicate": "uses",
                                                            "object": "Sentry", "project": PROJECT})  # fmt: skip
                assert added["outcome"] == "stored" and added["fact"]["object"] == "sentry" or added["fact"]
                assert _post(http, "/api/v1/values/set", {"workspace": "acme", "project": PROJECT, "key": "deploy.target",
                                                          "value": "k8s/shop"})["outcome"] == "stored"  # fmt: skip
                assert _post(http, "/api/v1/diary/write", {"workspace": "acme", "project": PROJECT,
                                                           "text": "Added Sentry to the shop", "agent": "codex"})["seq"]  # fmt: skip
                values = _post(http, "/api/v1/values", {"workspace": "acme", "project": PROJECT})["values"]
                assert sorted(v["key"] for v in values) == ["alice/deploy.target", "bob/deploy.target"]

                # Bad input and other tokens: a clear status, nothing written.
                _post(http, "/api/v1/values/set", {"workspace": "acme", "key": "no spaces", "value": "x"}, 422)
                _post(http, "/api/v1/graph/query", {"workspace": "acme"}, 422)
                _post(http, "/api/v1/diary", {"workspace": "beta"}, 403)
                leak = _post(http, "/api/v1/values/set", {"workspace": "acme", "project": PROJECT, "key": "aws",
                                                          "value": "AKIAIOSFODNN7EXAMPLE"})  # fmt: skip
                assert "AKIA" not in str(leak)
            with httpx.Client(base_url=srv.url, timeout=60, headers={"Authorization": f"Bearer {vera_token}"}) as http:
                assert _post(http, "/api/v1/diary", {"workspace": "acme", "project": PROJECT})["entries"]
                _post(http, "/api/v1/diary/write", {"workspace": "acme", "project": PROJECT, "text": "hi"}, 403)

            laptop.sync()
            mine = {v.key: v.value for v in laptop.core.stores.notes.all_values("acme")}
            assert mine["deploy.target"] == "fly.io/shop-prod" and mine["bob/deploy.target"] == "k8s/shop"
            assert any(e.agent == "bob/codex" for e in laptop.core.stores.notes.all_diary("acme"))
            assert any(f.object == "sentry" for f in laptop.core.stores.graph.all_facts("acme"))
            assert ids
        finally:
            laptop.close()
            bob.close()
