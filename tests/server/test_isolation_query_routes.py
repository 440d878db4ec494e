"""Isolation of the query side through the API (real HTTP on loopback, real PostgreSQL): 1,000
random reads of every read route (recall, get and list memories, health, session search, graph
query and timeline, values, diary) with tokens of different accounts and workspaces — good,
expired, revoked, scoped elsewhere, of a non-member, of a viewer — read nothing of another
workspace and nothing hidden.

The oracle leans on the data: every row the API wrote names its own workspace in its text
(``The beta deploy of dave …``, ``beta export moved by dave``, entity ``beta-shop``), so an
answer that holds another workspace's name read across the line; and the memories each writer
hid say ``hidden later``, which no answer may hold.
"""

from __future__ import annotations

import random

import httpx
from isolation_team import WORKSPACES, Token
from serverkit import running_server
from test_isolation_every_table import _fill, _hidden_then, _role, _setup

REQUESTS = 1000
SHOP = "github.com/team/shop"  # names no workspace: answers are searched for workspace names


def _refs(http: httpx.Client, tokens: list[Token]) -> dict[str, set[str]]:
    """Each workspace's visible memory refs, as its owner lists them."""
    out: dict[str, set[str]] = {}
    owners = {"acme": "alice", "beta": "dave", "gamma": "erin"}
    by_name = {t.name: t for t in tokens}
    for ws, who in owners.items():
        r = http.get("/api/v1/memories", params={"workspace": ws, "project": SHOP},
                     headers={"Authorization": f"Bearer {by_name[who].secret}"})  # fmt: skip
        assert r.status_code == 200, r.text
        out[ws] = {m["ref"] for m in r.json()["memories"]}
        assert out[ws], ws
    return out


def test_random_reads_of_every_query_route_stay_in_their_workspace(server_dsn: str) -> None:
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    with running_server(server_dsn) as srv:
        tokens = _setup(srv.store)
        _fill(srv.url, tokens, [("alice", "acme"), ("bob", "acme"), ("dave", "beta"), ("carol", "beta"), ("erin", "gamma")])
        _hidden_then(srv.url, tokens)
        with httpx.Client(base_url=srv.url, timeout=60) as http:
            refs = _refs(http, tokens)
            counts: dict[int, int] = {}
            answered: dict[str, int] = {}
            for i in range(REQUESTS):
                token = rng.choice(tokens)
                ws = rng.choice(WORKSPACES)
                other = rng.choice(WORKSPACES)
                role = _role(srv.store, token, ws)
                h = {"Authorization": f"Bearer {token.secret}"}
                route = rng.choice(("recall", "get", "list", "health", "sessions", "graph", "timeline", "values", "diary"))
                if route == "recall":
                    r = http.post("/api/v1/recall", json={"workspace": ws, "query": "deploy runs on Tuesdays billing job",
                                                          "project": SHOP}, headers=h)  # fmt: skip
                elif route == "get":
                    r = http.get(f"/api/v1/memories/{rng.choice(sorted(refs[other]))}", params={"workspace": ws}, headers=h)
                elif route == "list":
                    r = http.get("/api/v1/memories", params={"workspace": ws, "project": SHOP}, headers=h)
                elif route == "health":
                    r = http.get("/api/v1/health", params={"workspace": ws}, headers=h)
                elif route == "sessions":
                    r = http.post("/api/v1/sessions/search", json={"workspace": ws, "query": "export moved"}, headers=h)
                elif route == "graph":
                    r = http.post("/api/v1/graph/query", json={"workspace": ws, "entity": f"{other}-shop"}, headers=h)
                elif route == "timeline":
                    r = http.post("/api/v1/graph/timeline", json={"workspace": ws, "entity": f"{other}-shop"}, headers=h)
                elif route == "values":
                    r = http.post("/api/v1/values", json={"workspace": ws, "project": SHOP}, headers=h)
                else:
                    r = http.post("/api/v1/diary", json={"workspace": ws, "project": SHOP}, headers=h)
                counts[r.status_code] = counts.get(r.status_code, 0) + 1
                where = (seed, i, token.name, ws, route, other)
                if role is None:
                    assert r.status_code in (401, 403), (*where, r.text)
                    assert set(r.json()) <= {"error", "message", "fix"}, (*where, r.text)
                    continue
                text = r.text
                assert "hidden later" not in text, where
                if route == "get":
                    assert r.status_code == (200 if other == ws else 404), (*where, text)
                    continue
                assert r.status_code == 200, (*where, text)
                answered[route] = answered.get(route, 0) + 1
                if route in ("graph", "timeline"):
                    rows = r.json()["facts"]
                    assert not rows if other != ws else rows, (*where, text)
                    continue
                for name in WORKSPACES:
                    if name != ws:
                        assert name not in text, (*where, name, text[:300])
                if route in ("recall", "list", "sessions", "values", "diary"):
                    assert ws in text, (*where, "the workspace's own rows are found", text[:300])
        assert counts.get(200, 0) > 150 and counts.get(403, 0) > 150 and counts.get(401, 0) > 100, counts
        assert min(answered.values()) > 10 and len(answered) == 8, answered
