"""Bad input to every route that writes (sync push, remember, graph facts, values, diary): each
kind of bad request gets a clear status, an error code and a message, and the server's whole
database is exactly as it was — every table, the materialized memory, graph, notes and capture
stores included, not only the sync records (real HTTP on loopback, real PostgreSQL).

The kinds of bad request: malformed JSON, a body that is not an object, a wrong type, a body
over the size limit, a token of another workspace, an expired, revoked or unknown token, a
viewer's token, and a replayed batch (stored once) or a batch id reused for other content.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import psycopg
import pytest
from serverkit import running_server, team

from kenning.server.app import MAX_BODY
from kenning.server.auth import new_token, token_hash
from kenning.store.server.protocol import Role
from kenning.sync import wire

SHOP = "github.com/acme/shop"


def _push(batch: str, key: str) -> dict[str, Any]:
    body = {"kind": "contradiction", "scope": SHOP, "payload": {"text": f"note {key}"}}
    item = {"kind": "review", "key": key, "op": "put", "digest": wire.digest(body), "body": body}
    return {"workspace": "acme", "batch": batch, "items": [item]}


# Each write route with a good body, and a field whose value a wrong type replaces.
ROUTES: dict[str, tuple[dict[str, Any], str]] = {
    "/api/v1/sync/push": (_push("batch-route-good", "r-route"), "items"),
    "/api/v1/memories": ({"workspace": "acme", "text": "The orders export runs nightly at two", "kind": "fact",
                          "project": SHOP}, "text"),  # fmt: skip
    "/api/v1/graph/facts": ({"workspace": "acme", "subject": "shop", "predicate": "uses", "object": "Redis",
                             "project": SHOP}, "subject"),  # fmt: skip
    "/api/v1/values/set": ({"workspace": "acme", "project": SHOP, "key": "deploy.target", "value": "fly.io"}, "value"),
    "/api/v1/diary/write": ({"workspace": "acme", "project": SHOP, "text": "Moved the export", "agent": "claude"}, "text"),
}


def _database(dsn: str) -> dict[str, list[str]]:
    """Every table of the database, each row as text, read as the schema's owner (row-level
    security does not filter the owner). A device's "last seen" is left out: a good token's
    request may refresh it, which is no change to what the server stores."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        tables = [r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()]
        out: dict[str, list[str]] = {}
        for table in tables:
            rows = conn.execute(f'SELECT * FROM "{table}"')  # noqa: S608 - names from the catalog
            names = [d.name for d in rows.description or ()]
            out[table] = sorted(str({n: v for n, v in zip(names, row, strict=True) if n != "last_seen_at"})
                                for row in rows.fetchall())  # fmt: skip
    return out


@pytest.fixture()
def server(server_dsn: str) -> Iterator[tuple[httpx.Client, dict[str, str], str]]:
    with running_server(server_dsn) as srv:
        ids = team(srv.store)
        now = datetime.now(UTC)
        srv.store.add_workspace("beta", "Beta", ids["bob"], now)
        vera = srv.store.add_account("vera", now)
        srv.store.set_member("acme", vera.id, Role.VIEWER)
        specs = {"alice": (ids["alice"], ["acme"], None), "bob": (ids["bob"], ["acme", "beta"], None),
                 "vera": (vera.id, ["acme"], None), "expired": (ids["alice"], ["acme"], now - timedelta(minutes=1)),
                 "revoked": (ids["alice"], ["acme"], None)}  # fmt: skip
        tokens = {}
        for name, (account, scope, expires) in specs.items():
            tokens[name] = new_token()
            device = srv.store.add_device(account, name, scope, token_hash(tokens[name]), now, expires_at=expires)
            if name == "revoked":
                srv.store.revoke_device(device.id, now)
        with httpx.Client(base_url=srv.url, timeout=60) as http:
            # Something in every store first, so a half-applied write would show beside it.
            for path, (body, _field) in ROUTES.items():
                r = http.post(path, json=body, headers=_auth(tokens["alice"]))
                assert r.status_code == 200, (path, r.text)
            yield http, tokens, server_dsn


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def _refused(http: httpx.Client, dsn: str, path: str, status: int, code: str, says: str, token: str, **kwargs: Any) -> None:
    before = _database(dsn)
    headers = {**_auth(token), **kwargs.pop("headers", {})}
    r = http.post(path, headers=headers, **kwargs)
    assert r.status_code == status, (path, r.status_code, r.text)
    answer = r.json()
    assert answer["error"] == code and answer["message"] and says in answer["message"] + json.dumps(answer.get("details")), (
        path, answer)  # fmt: skip
    assert _database(dsn) == before, f"{path}: a refused request ({code}) changed the database"


def test_every_write_route_refuses_bad_input_and_changes_no_table(server: tuple[httpx.Client, dict[str, str], str]) -> None:
    http, tokens, dsn = server
    alice = tokens["alice"]
    for n, (path, (good, field)) in enumerate(ROUTES.items()):
        good = {**good, **({"batch": f"batch-bad-{n:04d}"} if "batch" in good else {})}
        as_json = {"Content-Type": "application/json"}
        _refused(http, dsn, path, 400, "malformed_json", "not valid JSON", alice, content=b'{"workspace": "acme", ',
                 headers=as_json)  # fmt: skip
        _refused(http, dsn, path, 422, "invalid", "body", alice, content=b'["acme"]', headers=as_json)
        _refused(http, dsn, path, 422, "invalid", field, alice, json={**good, field: 12345})
        _refused(http, dsn, path, 422, "invalid", "workspace", alice, json={**good, "workspace": 7})
        _refused(http, dsn, path, 413, "too_large", "limit", alice,
                 content=json.dumps({**good, "padding": "x" * (MAX_BODY + 1)}).encode(), headers=as_json)  # fmt: skip
        _refused(http, dsn, path, 403, "forbidden", "not scoped to workspace 'beta'", alice,
                 json={**good, "workspace": "beta"})  # fmt: skip
        _refused(http, dsn, path, 403, "forbidden", "reads only", tokens["vera"], json=good)
        _refused(http, dsn, path, 401, "unauthorized", "expired", tokens["expired"], json=good)
        _refused(http, dsn, path, 401, "unauthorized", "revoked", tokens["revoked"], json=good)
        _refused(http, dsn, path, 401, "unauthorized", "unknown to the server", new_token(), json=good)
        _refused(http, dsn, path, 401, "unauthorized", "Authorization: Bearer", "", json=good)


def test_a_replayed_batch_changes_nothing_and_a_reused_id_is_refused(server: tuple[httpx.Client, dict[str, str], str]) -> None:
    http, tokens, dsn = server
    first = _push("batch-replay-0001", "r-replay")
    stored = http.post("/api/v1/sync/push", json=first, headers=_auth(tokens["alice"]))
    assert stored.status_code == 200 and stored.json()["results"][0]["status"] == "stored"
    before = _database(dsn)
    for _ in range(3):  # the client retrying after a lost answer
        again = http.post("/api/v1/sync/push", json=first, headers=_auth(tokens["alice"]))
        assert again.status_code == 200 and again.json()["replayed"] is True
        assert again.json()["results"] == stored.json()["results"]
    assert _database(dsn) == before
    # The same batch id with other content, by the same account or another, is refused.
    _refused(http, dsn, "/api/v1/sync/push", 409, "conflict", "already applied with other content", tokens["alice"],
             json=_push("batch-replay-0001", "r-other"))  # fmt: skip
    # Another account's push under a batch id already taken in the workspace is refused too.
    _refused(http, dsn, "/api/v1/sync/push", 409, "conflict", "already applied with other content", tokens["bob"],
             json=_push("batch-replay-0001", "r-bob"))  # fmt: skip
