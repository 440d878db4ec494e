"""Isolation: random requests with tokens of different accounts and workspaces — valid, expired,
revoked, scoped elsewhere, of a non-member, of a viewer — read and change nothing they should
not, through the API (real HTTP) and through SQL with the application's checks removed, where
row-level security alone decides.

The oracle is a plain model of who may do what (docs/server.md): a token works in a workspace
when it is neither revoked nor expired, lists the workspace, and its account is a member;
a viewer reads only; a record's owner alone changes it; another owner's hidden record reads
as removed.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from isolation_team import WORKSPACES, Token, isolation_team
from serverkit import running_server

from kenning.server.auth import new_token, token_hash
from kenning.store.server.postgres import PostgresServerStore
from kenning.store.server.protocol import Grant, Role
from kenning.sync import wire

API_REQUESTS = 1000
SQL_REQUESTS = 1000
# Records of a kind whose body the server keeps as given (a memory's would be parsed first).
KIND = "review"


def _body(key: str, owner: str, hidden: bool, n: int) -> dict[str, Any]:
    return {"ref": key, "text": f"note {n} of {owner}", "hidden": hidden}


def _setup(store: PostgresServerStore) -> tuple[dict[str, str], list[Token], dict[tuple[str, str], tuple[str, bool]]]:
    now = datetime.now(UTC)
    ids, tokens = isolation_team(store)
    # Seed: each writer a few records in each of its workspaces, some hidden.
    model: dict[tuple[str, str], tuple[str, bool]] = {}
    seeders = [("alice", "acme"), ("bob", "acme"), ("dave", "beta"), ("carol", "beta"), ("erin", "gamma")]
    by_name = {t.name: t for t in tokens}
    for n, (who, ws) in enumerate(seeders * 3):
        key = f"m:{ws}-{who}-{n}"
        hidden = n % 3 == 0
        with store.workspace(Grant(token_hash(by_name[who].secret), ws)) as tx:
            tx.lock()
            body = _body(key, who, hidden, n)
            tx.put(KIND, key, ids[who], body, wire.digest(body), private=hidden, at=now)
        model[(ws, key)] = (ids[who], hidden)
    return ids, tokens, model


MEMORY_WORDS = ("deploy", "invoice", "staging", "billing")
WHEN = ("on Tuesday mornings", "after the lunch break", "at midnight sharp", "before standup starts",
        "every second sprint", "on release day", "during the code freeze", "at quarter end")  # fmt: skip


def _seed_memories(store: PostgresServerStore, tokens: list[Token]) -> dict[str, dict[str, tuple[str, bool]]]:
    """Memory records pushed by each writer (some hidden), materialized for recall, get and
    list: workspace -> ref -> (owner, hidden)."""
    from kenning.ids import new_ref
    from kenning.model import Kind, Memory, Origin
    from kenning.redacted import redacted
    from kenning.sync import records
    from kenning.sync.apply import Item, apply_batch

    now = datetime.now(UTC)
    by_name = {t.name: t for t in tokens}
    out: dict[str, dict[str, tuple[str, bool]]] = {ws: {} for ws in WORKSPACES}
    for n, (who, ws) in enumerate([("alice", "acme"), ("bob", "acme"), ("dave", "beta"), ("erin", "gamma")] * 2):
        ref = new_ref()
        hidden = n >= 4 and n % 2 == 0
        word = MEMORY_WORDS[n % len(MEMORY_WORDS)]
        memory = Memory(ref=ref, workspace=ws, scope="personal", text=redacted(f"The {word} step of {ws} runs {WHEN[n]}"),
                        kind=Kind.FACT, confidence=0.8, origin=Origin.PERSON, created_at=now, confirmed_at=now,
                        hidden=hidden)  # fmt: skip
        body = records.memory_body(memory, [])
        token = by_name[who]
        with store.workspace(Grant(token_hash(token.secret), ws)) as tx:
            tx.lock()
            [done] = apply_batch(tx, ws, token.account, [Item("memory", ref, "put", wire.digest(body), body)], now)
            assert done.status == "stored", done
        out[ws][ref] = (token.account, hidden)
    return out


def _check_memory_read(r: httpx.Response, ws: str, kind: str, ref: str, memories: dict[str, dict[str, tuple[str, bool]]],
                       viewer: str, where: tuple[object, ...]) -> None:  # fmt: skip
    """A memory read answers from its own workspace only, and never with a hidden memory but
    to its author asking for it by ref (marked hidden); to anyone else it is a missing ref."""
    mine = {k for k, (_owner, hidden) in memories[ws].items() if not hidden}
    if kind == "get":
        owner, hidden = memories[ws].get(ref, ("", False))
        own_hidden = ref in memories[ws] and hidden and owner == viewer
        assert r.status_code == (200 if ref in mine or own_hidden else 404), (*where, ref, r.text)
        if r.status_code == 200:
            assert r.json()["ref"] == ref and r.json().get("hidden", False) == own_hidden, (*where, ref, r.text)
        else:
            assert r.json()["message"] == f"no memory {ref} in workspace {ws!r}", (*where, ref, r.text)
        return
    assert r.status_code == 200, (*where, r.text)
    got = [m["ref"] for m in r.json()["results" if kind == "recall" else "memories"]]
    assert set(got) <= mine, (*where, sorted(set(got) - mine))
    if kind == "list":
        assert set(got) == mine, (*where, got)


def _role(store: PostgresServerStore, token: Token, ws: str) -> Role | None:
    if not token.good or ws not in token.scope:
        return None
    return store.role(ws, token.account)


def _check_visible(changes: list[dict[str, Any]], ws: str, token: Token, model: dict[tuple[str, str], tuple[str, bool]],
                   gone: set[tuple[str, str]]) -> None:  # fmt: skip
    expected = {key for (w, key) in model if w == ws}
    seen = {c["key"] for c in changes}
    assert seen <= expected, f"{token.name} read keys of another workspace: {sorted(seen - expected)}"
    for c in changes:
        owner, hidden = model[(ws, c["key"])]
        if (ws, c["key"]) in gone:
            assert c["body"] is None and c["deleted"] == (owner == token.account)
        elif hidden and owner != token.account:
            assert c["body"] is None and not c["deleted"], f"{token.name} read another's hidden {c['key']}"
        else:
            assert c["body"] is not None and c["body"]["ref"] == c["key"]


def test_random_requests_through_the_api_read_and_change_nothing_they_should_not(server_dsn: str, tmp_path: Path) -> None:
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    with running_server(server_dsn) as srv:
        _ids, tokens, model = _setup(srv.store)
        memories = _seed_memories(srv.store, tokens)
        http = httpx.Client(base_url=srv.url, timeout=30)
        counts: dict[int, int] = {}
        gone: set[tuple[str, str]] = set()  # forgotten: tombstones
        for i in range(API_REQUESTS):
            token = rng.choice(tokens)
            ws = rng.choice(WORKSPACES)
            role = _role(srv.store, token, ws)
            headers = {"Authorization": f"Bearer {token.secret}"}
            if rng.random() < 0.1:  # the account's own devices: list them, or revoke another account's
                other = rng.choice([t for t in tokens if t.account != token.account])
                if rng.random() < 0.5:
                    r = http.get("/api/v1/devices", headers=headers)
                else:
                    r = http.post(f"/api/v1/devices/{other.device}/revoke", headers=headers)
                counts[r.status_code] = counts.get(r.status_code, 0) + 1
                if not token.good:
                    assert r.status_code == 401, (seed, token.name, r.text)
                elif r.request.method == "GET":
                    assert r.status_code == 200, (seed, token.name, r.text)
                    assert {d["id"] for d in r.json()} == {t.device for t in tokens if t.account == token.account}
                else:
                    assert r.status_code == 404, (seed, token.name, other.name, r.text)
                    assert srv.store.device(other.device).revoked_at is None or not other.good  # type: ignore[union-attr]
                continue
            if rng.random() < 0.25:  # the query side: recall, get or list a memory
                kind = rng.choice(("recall", "get", "list"))
                ref = rng.choice([k for refs in memories.values() for k in refs])
                if kind == "recall":
                    r = http.post("/api/v1/recall", json={"workspace": ws, "query": f"{rng.choice(MEMORY_WORDS)} step",
                                                          "project": "personal"}, headers=headers)  # fmt: skip
                elif kind == "get":
                    r = http.get(f"/api/v1/memories/{ref}", params={"workspace": ws}, headers=headers)
                else:
                    r = http.get("/api/v1/memories", params={"workspace": ws, "project": "personal"}, headers=headers)
                counts[r.status_code] = counts.get(r.status_code, 0) + 1
                if role is None:
                    assert r.status_code in (401, 403), (seed, token.name, ws, kind, r.text)
                    assert "results" not in r.json() and "memories" not in r.json() and "text" not in r.json()
                else:
                    _check_memory_read(r, ws, kind, ref, memories, token.account, (seed, token.name, ws, kind))
                continue
            if rng.random() < 0.5:
                r = http.post("/api/v1/sync/pull", json={"workspace": ws, "after": rng.choice([0, 0, 3])}, headers=headers)
                counts[r.status_code] = counts.get(r.status_code, 0) + 1
                if role is None:
                    assert r.status_code in (401, 403), (seed, token.name, ws, r.text)
                    assert "changes" not in r.json()
                else:
                    assert r.status_code == 200, (seed, token.name, ws, r.text)
                    changes = r.json()["changes"]
                    _check_visible([c for c in changes if c["kind"] == KIND], ws, token, model, gone)
                    for c in changes:
                        if c["kind"] == "memory":
                            owner, hidden = memories[ws][c["key"]]
                            assert c["body"] is None if hidden and owner != token.account else c["body"]["ref"] == c["key"]
                continue
            # A write: a new record of one's own, or a change to someone's existing record.
            existing = [k for (w, k) in model if w == ws]
            key = rng.choice(existing) if existing and rng.random() < 0.6 else f"m:{ws}-new-{i}"
            body = _body(key, token.name, False, i)
            op = "delete" if rng.random() < 0.1 else "put"
            item = {"kind": KIND, "key": key, "op": op,
                    "digest": wire.digest(body if op == "put" else None), **({"body": body} if op == "put" else {})}  # fmt: skip
            r = http.post("/api/v1/sync/push", json={"workspace": ws, "batch": f"batch-{seed}-{i}", "items": [item]},
                          headers=headers)  # fmt: skip
            counts[r.status_code] = counts.get(r.status_code, 0) + 1
            if role is None or not role.writes:
                assert r.status_code in (401, 403), (seed, token.name, ws, r.text)
                continue
            assert r.status_code == 200, (seed, token.name, ws, r.text)
            result = r.json()["results"][0]
            owner = model.get((ws, key), (token.account, False))[0]
            if owner != token.account:
                assert result["code"] == "not_author", (seed, token.name, ws, key)
            elif (ws, key) in gone:
                assert result["status"] == "unchanged" if op == "delete" else result["code"] == "forgotten", result
            else:
                assert result["status"] in ("stored", "unchanged"), result
                # A pushed record of this kind is stored public (only a hidden memory is private).
                model[(ws, key)] = (token.account, False)
                if op == "delete":
                    gone.add((ws, key))
        http.close()
        assert counts.get(200, 0) > 100 and counts.get(403, 0) > 100 and counts.get(401, 0) > 50, counts
        _check_end_state(srv.store, tokens, model, gone)


def _check_end_state(store: PostgresServerStore, tokens: list[Token], model: dict[tuple[str, str], tuple[str, bool]],
                     gone: set[tuple[str, str]]) -> None:  # fmt: skip
    """What the server holds at the end (read as the schema's owner) is what the model says:
    the records it admitted, each of its author, deleted only by its author, and every body
    written by a token of the record's owner (a refused write that was applied anyway shows)."""
    account_of = {t.name: t.account for t in tokens}
    with store.pool.connection() as conn:
        rows = conn.execute("SELECT r.workspace, r.key, r.owner, r.deleted, b.body FROM records r LEFT JOIN record_bodies b"
                            " USING (workspace, kind, key) WHERE r.kind = %s", (KIND,)).fetchall()  # fmt: skip
    assert {(r["workspace"], r["key"]) for r in rows} == set(model)
    for r in rows:
        where = (r["workspace"], r["key"])
        assert r["owner"] == model[where][0] and r["deleted"] == (where in gone), (where, r)
        if not r["deleted"]:
            writer = r["body"]["text"].rsplit(" of ", 1)[1]
            assert account_of[writer] == r["owner"], (where, writer, r["owner"])


def test_row_level_security_alone_keeps_workspaces_and_hidden_bodies_apart(server_dsn: str) -> None:
    """The application's checks removed: each probe opens the data plane with a token and a
    workspace straight away (no authenticate, no grant) and runs raw SQL."""
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    store = PostgresServerStore.open(server_dsn, max_size=2)
    try:
        ids, tokens, model = _setup(store)
        memories = _seed_memories(store, tokens)
        unknown = Token("unknown", new_token(), "acc_nobody", WORKSPACES, True)
        for _ in range(SQL_REQUESTS):
            token = rng.choice([*tokens, unknown])
            ws = rng.choice(WORKSPACES)
            asked = rng.choice(WORKSPACES)  # what a buggy query might filter on, or nothing
            role = _role(store, token, ws) if token is not unknown else None
            probe = rng.randrange(9)
            with store.workspace(Grant(token_hash(token.secret), ws)) as tx:
                conn = tx.conn
                if probe == 0:
                    rows = conn.execute("SELECT workspace, key FROM records").fetchall()
                    assert {r["workspace"] for r in rows} <= ({ws} if role else set()), (seed, token.name, ws)
                    if role:
                        assert {r["key"] for r in rows} == {k for (w, k) in model if w == ws} | set(memories[ws])
                elif probe == 1:
                    rows = conn.execute("SELECT workspace, key, owner, private FROM record_bodies WHERE workspace = %s",
                                        (asked,)).fetchall()  # fmt: skip
                    for r in rows:
                        assert role and r["workspace"] == ws, (seed, token.name, ws, r)
                        assert not r["private"] or r["owner"] == token.account, (seed, token.name, r)
                elif probe == 2:
                    changed = conn.execute("UPDATE record_bodies SET body = body WHERE workspace = %s", (asked,)).rowcount
                    mine = sum(1 for (w, _k), (o, _h) in model.items() if w == ws == asked and o == token.account)
                    mine += sum(1 for o, _h in memories[ws].values() if ws == asked and o == token.account)
                    assert changed == (mine if role and role.writes else 0), (seed, token.name, ws, asked, changed)
                elif probe == 3:
                    with pytest.raises(psycopg.errors.InsufficientPrivilege):
                        conn.execute("SELECT token_hash FROM devices").fetchall()
                elif probe == 4:
                    with pytest.raises(psycopg.Error):
                        conn.execute(
                            "INSERT INTO records (workspace, kind, key, owner, seq, digest, updated_at)"
                            " VALUES (%s, 'review', 'm:intruder', %s, 999999, 'x', now())",
                            (asked if asked != ws or not (role and role.writes) else "gamma" if ws != "gamma" else "acme",
                             token.account),
                        )  # fmt: skip
                elif probe == 8:  # a memory's record, as the by-ref read of an author's hidden memory takes it
                    ref = rng.choice([k for refs in memories.values() for k in refs])
                    rec = tx.record("memory", ref)
                    owner, hidden = memories[ws].get(ref, ("", False))
                    if not role or ref not in memories[ws]:
                        assert rec is None, (seed, token.name, ws, ref)
                    else:
                        assert rec is not None and (rec.body is not None) == (not hidden or owner == token.account), (
                            seed, token.name, ws, ref)  # fmt: skip
                elif probe in (6, 7):  # the materialized memory store: its own workspace only, no hidden memory
                    table = "memories" if probe == 6 else "memory_postings"
                    rows = conn.execute(f"SELECT DISTINCT workspace FROM {table} WHERE workspace = %s OR true",
                                        (asked,)).fetchall()  # fmt: skip
                    assert {r["workspace"] for r in rows} <= ({ws} if role else set()), (seed, token.name, ws, table)
                    if probe == 6:
                        refs = {r["ref"] for r in conn.execute("SELECT ref FROM memories").fetchall()}
                        assert refs == ({k for k, (_o, h) in memories[ws].items() if not h} if role else set())
                        changed = conn.execute("UPDATE memories SET text = text WHERE workspace = %s", (asked,)).rowcount
                        assert changed == 0 or (role and asked == ws), (seed, token.name, ws, asked, changed)
                else:
                    rows = conn.execute("SELECT workspace, batch_id FROM batches UNION ALL"
                                        " SELECT workspace, last::text FROM workspace_seq").fetchall()  # fmt: skip
                    assert {r["workspace"] for r in rows} <= ({ws} if role else set()), (seed, token.name, ws)
        assert ids
    finally:
        store.close()
