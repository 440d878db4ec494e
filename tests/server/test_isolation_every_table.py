"""Isolation of every table, by row-level security alone: 1,200 random probes open the data
plane with a token and a workspace straight away (no authenticate, no grant: the application's
checks removed) and try, in raw SQL, what a route with a bug might do — read, change or delete
rows of another workspace in any table the server has (records, the materialized memories,
graph, notes, capture...), read after pointing the transaction's workspace setting elsewhere,
take over another author's record or unhide its body, or touch the accounts, members and
devices. Tokens are good, expired, revoked, scoped elsewhere, of a non-member and of a viewer.
Each probe runs in a transaction that is rolled back, and at the end every table is as it
was. The workspaces are filled through the real API first, so every store holds rows of each.
"""

from __future__ import annotations

import random
from typing import Any

import httpx
import psycopg
import pytest
from isolation_team import WORKSPACES, Token, isolation_team
from psycopg import sql
from serverkit import running_server
from test_bad_input_every_write import _database

from kenning.server.auth import token_hash
from kenning.store.server import schema
from kenning.store.server.postgres import PostgresServerStore
from kenning.store.server.protocol import Grant, Role
from kenning.sync import kinds, wire

PROBES = 1200
SHOP = "github.com/team/shop"  # names no workspace: answers are searched for workspace names
CONTROL = ("accounts", "members", "devices", "invites", "device_codes", "web_links")
# Stores the API fills in each workspace below: a probe finding none there would prove nothing.
FILLED = ("records", "record_bodies", "batches", "memories", "memory_postings", "memory_events", "graph_facts",
          "notes_values", "notes_diary", "capture_sessions", "capture_turns", "capture_chunks")  # fmt: skip


class Rollback(Exception):
    """Ends a probe's transaction without keeping anything."""


def _session(ws: str, who: str) -> list[dict[str, Any]]:
    sid = f"claude:{ws}-{who}-0000-4000-8000-000000000001"
    turns = [{"uid": f"{who}-u{i}", "role": "user" if i % 2 == 0 else "assistant", "text": f"{ws} export moved by {who}",
              "at": f"2026-11-30T10:0{i}:00Z", "tool_calls": [], "files": [], "subagent": ""} for i in range(2)]  # fmt: skip
    part = {"session": sid, "index": 0, "tool": "claude", "project": SHOP, "project_name": "shop", "turns": turns}
    head = {"id": sid, "tool": "claude", "project": SHOP, "project_name": "shop", "cwd": "/src/shop", "branch": "main",
            "title": "export", "first_at": turns[0]["at"], "last_at": turns[-1]["at"], "turns": 2, "parts": 1}  # fmt: skip
    return [{"kind": kind, "key": key, "op": "put", "digest": wire.digest(body), "body": body}
            for kind, key, body in ((wire.SESSION, sid, head), (wire.SESSION_PART, kinds.part_key(sid, 0), part))]  # fmt: skip


def _fill(url: str, tokens: list[Token], seeders: list[tuple[str, str]]) -> None:
    by_name = {t.name: t for t in tokens}
    with httpx.Client(base_url=url, timeout=60) as http:
        for n, (who, ws) in enumerate(seeders):
            h = {"Authorization": f"Bearer {by_name[who].secret}"}
            writes = [
                ("/api/v1/memories", {"workspace": ws, "text": f"The {ws} deploy of {who} runs on Tuesdays", "kind": "fact",
                                      "project": SHOP}),  # fmt: skip
                ("/api/v1/memories", {"workspace": ws, "text": f"The {ws} billing job of {who} is hidden later",
                                      "kind": "fact", "project": SHOP}),  # fmt: skip
                ("/api/v1/graph/facts", {"workspace": ws, "subject": f"{ws}-shop", "predicate": "uses", "object": who,
                                         "project": SHOP}),  # fmt: skip
                ("/api/v1/values/set", {"workspace": ws, "project": SHOP, "key": f"deploy.{who}", "value": ws}),
                ("/api/v1/diary/write", {"workspace": ws, "project": SHOP, "text": f"{who} in {ws}", "agent": "claude"}),
                ("/api/v1/sync/push", {"workspace": ws, "batch": f"batch-fill-{n:04d}", "items": _session(ws, who)}),
            ]  # fmt: skip
            for path, body in writes:
                r = http.post(path, json=body, headers=h)
                assert r.status_code == 200, (path, r.text)


def _setup(store: PostgresServerStore) -> list[Token]:
    return isolation_team(store)[1]


def _role(store: PostgresServerStore, token: Token, ws: str) -> Role | None:
    return store.role(ws, token.account) if token.good and ws in token.scope else None


def _tables(dsn: str) -> list[str]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute("SELECT table_name FROM information_schema.columns WHERE table_schema = 'public'"
                            " AND column_name = 'workspace' ORDER BY table_name").fetchall()  # fmt: skip
    return [r[0] for r in rows if r[0] not in ("workspaces", "members", "invites")]


def _hidden_then(url: str, tokens: list[Token]) -> None:
    """Each writer hides its second memory through a push: a private body, its author's alone."""
    with httpx.Client(base_url=url, timeout=60) as http:
        for t in tokens:
            if not t.good:
                continue
            for ws in t.scope:
                h = {"Authorization": f"Bearer {t.secret}"}
                pulled = http.post("/api/v1/sync/pull", json={"workspace": ws}, headers=h)
                if pulled.status_code != 200:
                    continue
                for c in pulled.json()["changes"]:
                    body = c["body"]
                    if c["kind"] == "memory" and c["owner"] == t.account and body and "hidden later" in body["text"]:
                        body = {**body, "hidden": True}
                        item = {"kind": "memory", "key": c["key"], "op": "put", "digest": wire.digest(body), "body": body,
                                "base": c["seq"]}  # fmt: skip
                        r = http.post("/api/v1/sync/push", headers=h, json={"workspace": ws, "items": [item],
                                      "batch": f"batch-hide-{c['key'].replace(':', '-')}"})  # fmt: skip
                        assert r.status_code == 200 and r.json()["results"][0]["status"] == "stored", r.text


def _changed(conn: Any, statement: sql.Composed, args: tuple[object, ...]) -> int:
    """Rows ``statement`` changed, in a savepoint; 0 when the role may not run it at all."""
    try:
        with conn.transaction():
            return int(conn.execute(statement, args).rowcount)
    except psycopg.errors.InsufficientPrivilege:
        return 0


def test_row_level_security_alone_binds_every_table_to_the_token_and_its_workspace(server_dsn: str) -> None:
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    with running_server(server_dsn) as srv:
        store = srv.store
        tokens = _setup(store)
        _fill(srv.url, tokens, [("alice", "acme"), ("bob", "acme"), ("dave", "beta"), ("carol", "beta"), ("erin", "gamma")])
        _hidden_then(srv.url, tokens)
        tables = _tables(server_dsn)
        before = _database(server_dsn)
        with psycopg.connect(server_dsn, autocommit=True) as conn:
            for table in FILLED:
                have = {r[0] for r in conn.execute(sql.SQL("SELECT DISTINCT workspace FROM {}").format(sql.Identifier(table)))}
                assert have == set(WORKSPACES), (table, have)
            hidden = conn.execute("SELECT count(*) FROM record_bodies WHERE private").fetchone()
        assert hidden and hidden[0] >= 4
        outcomes: dict[str, int] = {}
        for i in range(PROBES):
            token = rng.choice(tokens)
            ws = rng.choice(WORKSPACES)
            role = _role(store, token, ws)
            table = rng.choice(tables)
            probe = rng.choice(("other_rows", "change_other", "switch_setting", "take_over", "unhide", "control"))
            outcomes[probe] = outcomes.get(probe, 0) + 1
            where = (seed, i, token.name, ws, table, probe)
            try:
                with store.workspace(Grant(token_hash(token.secret), ws)) as tx:
                    conn = tx.conn
                    t = sql.Identifier(table)
                    if probe == "other_rows":  # read every workspace's rows: its own at most
                        rows = conn.execute(sql.SQL("SELECT workspace FROM {} WHERE workspace = %s OR true").format(t),
                                            (rng.choice(WORKSPACES),)).fetchall()  # fmt: skip
                        assert {r["workspace"] for r in rows} <= ({ws} if role else set()), where
                    elif probe == "change_other":  # update and delete rows of the other workspaces: none
                        for stmt in ("UPDATE {} SET workspace = workspace WHERE workspace <> %s",
                                     "DELETE FROM {} WHERE workspace <> %s"):  # fmt: skip
                            assert _changed(conn, sql.SQL(stmt).format(t), (ws,)) == 0, (*where, stmt)
                        if role is None:  # a token not good here changes nothing, here either
                            assert _changed(conn, sql.SQL("DELETE FROM {}").format(t), ()) == 0, where
                    elif probe == "switch_setting":  # point the transaction at another workspace
                        other = rng.choice(WORKSPACES)
                        conn.execute("SELECT set_config(%s, %s, true)", (schema.WORKSPACE_SETTING, other))
                        rows = conn.execute(sql.SQL("SELECT DISTINCT workspace FROM {}").format(t)).fetchall()
                        allowed = {other} if _role(store, token, other) else set()
                        assert {r["workspace"] for r in rows} <= allowed, (*where, other)
                    elif probe == "take_over":  # make another author's records one's own
                        n = conn.execute("UPDATE records SET owner = %s WHERE owner <> %s",
                                         (token.account, token.account)).rowcount  # fmt: skip
                        n += conn.execute("UPDATE record_bodies SET owner = %s WHERE owner <> %s",
                                          (token.account, token.account)).rowcount  # fmt: skip
                        assert n == 0, where
                    elif probe == "unhide":  # read or open another author's hidden body
                        rows = conn.execute("SELECT owner FROM record_bodies WHERE private").fetchall()
                        assert all(r["owner"] == token.account for r in rows), where
                        n = conn.execute("UPDATE record_bodies SET private = false WHERE private AND owner <> %s",
                                         (token.account,)).rowcount  # fmt: skip
                        assert n == 0, where
                    else:  # accounts, members, devices, invites: never from the data plane
                        name = rng.choice(CONTROL)
                        stmt = rng.choice(("SELECT * FROM {}", "UPDATE {} SET account = account" if name in
                                           ("members", "devices", "invites") else "DELETE FROM {}"))  # fmt: skip
                        with pytest.raises(psycopg.errors.InsufficientPrivilege):
                            conn.execute(sql.SQL(stmt).format(sql.Identifier(name)))
                    raise Rollback
            except Rollback:
                pass
        assert min(outcomes.values()) > 100, outcomes
        assert _database(server_dsn) == before
