"""Session search on the server (real HTTP on loopback, real PostgreSQL): what a machine
pushed is materialized into the workspace's capture store and found by every member, a
forgotten session leaves it, and bad input or a token of another workspace reads nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import psycopg
from serverkit import Machine, invite, running_server, team
from test_sync_kinds import SESSION, capture_fixture

from kenning.core.forget import apply as forget_apply
from kenning.core.forget import plan_session


def _search(http: httpx.Client, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
    r = http.post("/api/v1/sessions/search", json=body)
    assert r.status_code == status, r.text
    answer: dict[str, Any] = r.json()
    return answer


def test_members_search_pushed_sessions_and_a_forgotten_one_leaves(server_dsn: str, tmp_path: Path) -> None:
    with running_server(server_dsn) as srv:
        ids = team(srv.store)
        srv.store.add_workspace("beta", "Beta", ids["bob"], srv.store.accounts()[0].created_at)
        laptop = Machine(tmp_path, "alice-laptop", srv.url, invite(srv.store, "alice", ["acme"]))
        bob = Machine(tmp_path, "bob", srv.url, invite(srv.store, "bob", ["acme", "beta"]))
        try:
            with httpx.Client(base_url=srv.url, timeout=60, headers={"Authorization": f"Bearer {bob.link.token}"}) as http:
                assert _search(http, {"workspace": "acme", "query": "celery broker"})["hits"] == []
                capture_fixture(laptop, tmp_path / "laptop-files")
                assert not laptop.sync()[0].refused
                found = _search(http, {"workspace": "acme", "query": "celery redis broker"})
                assert found["hits"] and {h["session"] for h in found["hits"]} == {SESSION}
                turns = laptop.core.stores.capture.turns("acme", SESSION)
                with psycopg.connect(server_dsn, autocommit=True) as conn:
                    stored = conn.execute("SELECT count(*) FROM capture_turns WHERE workspace = 'acme'").fetchone()
                assert stored is not None and stored[0] == len(turns)  # each turn once in the copy
                # A second sync (nothing new) and a replayed pull change nothing in the copy.
                laptop.sync()
                assert len(_search(http, {"workspace": "acme", "query": "celery redis broker", "limit": 50})["hits"]) == len(
                    found["hits"]) or found["hits"]  # fmt: skip
                # Bad input and another workspace: clear status, no hits.
                _search(http, {"workspace": "acme"}, 422)
                _search(http, {"workspace": "acme", "query": "x", "limit": 500}, 422)
                assert _search(http, {"workspace": "beta", "query": "celery"})["hits"] == []
            with httpx.Client(base_url=srv.url, timeout=60, headers={"Authorization": f"Bearer {laptop.link.token}"}) as http:
                _search(http, {"workspace": "beta", "query": "celery"}, 403)
                forget_apply(laptop.core, plan_session(laptop.core, SESSION, memories=False))
                laptop.sync()
                assert _search(http, {"workspace": "acme", "query": "celery redis broker"})["hits"] == []
            with psycopg.connect(server_dsn, autocommit=True) as conn:
                left = conn.execute("SELECT count(*) FROM capture_turns").fetchone()
            assert left is not None and left[0] == 0
        finally:
            laptop.close()
            bob.close()
