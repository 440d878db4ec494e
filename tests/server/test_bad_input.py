"""Bad input to the sync API gets a clear status and a message that says what was wrong and
how to fix it, and the server's stores are exactly as they were (real HTTP, real PostgreSQL).

Each case runs against a server holding one good batch; the state compared before and after
is every data-plane table read as the schema's owner (row-level security does not filter
the owner), so a half-applied batch, a bumped counter or a saved batch id would show.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import psycopg
import pytest
from serverkit import running_server, team

from kenning.server.app import MAX_BODY
from kenning.server.auth import new_token, token_hash
from kenning.store.server.protocol import Role
from kenning.sync import wire

REF = "m:0badc0de"


def _memory(ref: str, text: str) -> dict[str, Any]:
    return {"ref": ref, "text": text, "kind": "fact", "scope": "github.com/acme/shop", "confidence": 0.8,
            "created_at": "2026-11-30T10:00:00+00:00", "updated_at": "2026-11-30T10:00:00+00:00"}  # fmt: skip


def _review(key: str, text: str = "x") -> dict[str, Any]:
    body = {"kind": "contradiction", "scope": "github.com/acme/shop", "payload": {"text": text}}
    return {"kind": "review", "key": key, "op": "put", "digest": wire.digest(body), "body": body}


def _state(dsn: str) -> list[Any]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return [sorted(map(str, conn.execute(f"SELECT * FROM {table}").fetchall()))  # noqa: S608 - fixed names
                for table in ("workspace_seq", "records", "record_bodies", "batches")]  # fmt: skip


@pytest.fixture()
def api(server_dsn: str) -> Iterator[tuple[httpx.Client, dict[str, str], str]]:
    with running_server(server_dsn) as srv:
        ids = team(srv.store)
        srv.store.add_workspace("beta", "Beta", ids["bob"], srv.store.accounts()[0].created_at)
        tokens = {}
        for name, scope in (("alice", ["acme"]), ("bob", ["acme", "beta"])):
            tokens[name] = new_token()
            srv.store.add_device(ids[name], name, scope, token_hash(tokens[name]), srv.store.accounts()[0].created_at)
        viewer = srv.store.add_account("vera", srv.store.accounts()[0].created_at)
        srv.store.set_member("acme", viewer.id, Role.VIEWER)
        tokens["vera"] = new_token()
        srv.store.add_device(viewer.id, "vera", ["acme"], token_hash(tokens["vera"]), viewer.created_at)
        with httpx.Client(base_url=srv.url, timeout=60, headers={"Authorization": f"Bearer {tokens['alice']}"}) as http:
            first = http.post("/api/v1/sync/push", json={"workspace": "acme", "batch": "batch-good-1",
                                                         "items": [_review("r1")]})  # fmt: skip
            assert first.status_code == 200 and first.json()["results"][0]["status"] == "stored", first.text
            yield http, tokens, server_dsn


def _refused(http: httpx.Client, dsn: str, status: int, code: str, says: str, *, json: Any = None,
             content: bytes | Iterator[bytes] | None = None, headers: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    before = _state(dsn)
    kwargs: dict[str, Any] = {"headers": headers or {}}
    if content is not None:
        kwargs["content"] = content
        kwargs["headers"] = {"Content-Type": "application/json", **kwargs["headers"]}
    else:
        kwargs["json"] = json
    r = http.post("/api/v1/sync/push", **kwargs)
    assert r.status_code == status, r.text
    answer: dict[str, Any] = r.json()
    assert answer["error"] == code and says in answer["message"], answer
    assert _state(dsn) == before, "a refused request changed the server's store"
    return answer


def push(*items: dict[str, Any], batch: str = "batch-bad-1", workspace: str = "acme") -> dict[str, Any]:
    return {"workspace": workspace, "batch": batch, "items": list(items)}


def test_oversized_batches_are_refused_before_anything_is_written(api: tuple[httpx.Client, dict[str, str], str]) -> None:
    http, _tokens, dsn = api
    many = [_review(f"r-many-{i}") for i in range(wire.MAX_BATCH_ITEMS + 1)]
    answer = _refused(http, dsn, 413, "too_large", f"the limit is {wire.MAX_BATCH_ITEMS}", json=push(*many))
    assert str(wire.MAX_BATCH_ITEMS) in answer["fix"]
    huge = _review("r-huge", "y" * (MAX_BODY + 10))
    answer = _refused(http, dsn, 413, "too_large", "bytes", json=push(huge))
    assert "batch" in answer["fix"]
    # Without a Content-Length (chunked), the body is cut off once it passes the limit.
    raw = httpx.Request("POST", "/", json=push(huge)).content

    def chunks() -> Iterator[bytes]:
        for i in range(0, len(raw), 65536):
            yield raw[i : i + 65536]

    _refused(http, dsn, 413, "too_large", f"over {MAX_BODY} bytes", content=chunks())
    small = httpx.Request("POST", "/", json=push(_review("r-chunked"), batch="batch-chunked-1")).content
    r = http.post("/api/v1/sync/push", content=iter([small[:10], small[10:]]),
                  headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200 and r.json()["results"][0]["status"] == "stored", r.text


def test_malformed_json_and_wrong_types_name_the_field(api: tuple[httpx.Client, dict[str, str], str]) -> None:
    http, _tokens, dsn = api
    answer = _refused(http, dsn, 400, "malformed_json", "not valid JSON", content=b'{"workspace": "acme", "items": [')
    assert "application/json" in answer["fix"]
    good = _review("r2")
    cases = [
        ({**push(good), "items": "r2"}, "items"),
        (push({**good, "op": "patch"}), "items.0.op"),
        (push({**good, "digest": "not-hex"}), "items.0.digest"),
        (push({**good, "kind": "password"}), "items.0.kind"),
        (push({**good, "base": -1}), "items.0.base"),
        (push({**good, "extra": 1}), "items.0.extra"),
        (push(good, workspace="acme; DROP TABLE records"), "workspace"),
        (push(good, batch="short"), "batch"),
        ({"workspace": "acme", "items": [good]}, "batch"),
    ]
    for body, field in cases:
        answer = _refused(http, dsn, 422, "invalid", field, json=body)
        assert any(d["field"] == field for d in answer["details"]), (field, answer)
        assert "openapi" in answer["fix"]


def test_inconsistent_items_refuse_the_whole_batch(api: tuple[httpx.Client, dict[str, str], str]) -> None:
    http, _tokens, dsn = api
    good = _review("r3")
    _refused(http, dsn, 400, "invalid", "does not match the body", json=push(good, {**_review("r4"), "digest": "0" * 64}))
    _refused(http, dsn, 400, "invalid", "appears twice", json=push(good, good))
    _refused(http, dsn, 400, "invalid", "has no body", json=push({**good, "op": "delete"}))


def test_a_replayed_batch_stores_once_and_a_reused_id_is_a_conflict(api: tuple[httpx.Client, dict[str, str], str]) -> None:
    http, _tokens, dsn = api
    before = _state(dsn)
    again = http.post("/api/v1/sync/push", json=push(_review("r1"), batch="batch-good-1"))
    assert again.status_code == 200 and again.json()["replayed"] is True
    assert again.json()["results"][0]["status"] == "stored"  # the answer it got the first time
    assert _state(dsn) == before
    answer = _refused(http, dsn, 409, "conflict", "already applied with other content",
                      json=push(_review("r5"), batch="batch-good-1"))  # fmt: skip
    assert "new id" in answer["fix"]


def test_tokens_for_another_workspace_a_viewer_and_no_token(api: tuple[httpx.Client, dict[str, str], str]) -> None:
    http, tokens, dsn = api
    _refused(http, dsn, 403, "forbidden", "not scoped to workspace 'beta'", json=push(_review("r6"), workspace="beta"))
    bob_in_gamma = {"Authorization": f"Bearer {tokens['bob']}"}
    _refused(http, dsn, 403, "forbidden", "not scoped to workspace 'gamma'", json=push(_review("r7"), workspace="gamma"),
             headers=bob_in_gamma)  # fmt: skip
    _refused(http, dsn, 403, "forbidden", "reads only", json=push(_review("r8")),
             headers={"Authorization": f"Bearer {tokens['vera']}"})  # fmt: skip
    answer = _refused(http, dsn, 401, "unauthorized", "Authorization: Bearer", json=push(_review("r9")),
                      headers={"Authorization": ""})  # fmt: skip
    assert answer
    _refused(http, dsn, 401, "unauthorized", "unknown to the server", json=push(_review("r9")),
             headers={"Authorization": f"Bearer {new_token()}"})  # fmt: skip
    pulled = http.post("/api/v1/sync/pull", json={"workspace": "beta"})
    assert pulled.status_code == 403 and "changes" not in pulled.json()


def test_bad_records_inside_a_good_batch_are_refused_one_by_one(api: tuple[httpx.Client, dict[str, str], str]) -> None:
    """A malformed memory or one carrying a secret is refused with a reason; its neighbours land."""
    http, _tokens, dsn = api
    broken = {"ref": REF, "text": 5}
    leaky = _memory("m:5ec4e7aa", "Deploy with the key AKIAIOSFODNN7EXAMPLE on the box")
    good = _review("r10")
    items = [{"kind": "memory", "key": REF, "op": "put", "digest": wire.digest(broken), "body": broken},
             {"kind": "memory", "key": "m:5ec4e7aa", "op": "put", "digest": wire.digest(leaky), "body": leaky}, good]  # fmt: skip
    r = http.post("/api/v1/sync/push", json=push(*items, batch="batch-mixed-1"))
    assert r.status_code == 200, r.text
    results = {x["key"]: x for x in r.json()["results"]}
    assert results[REF]["status"] == "refused" and results[REF]["code"] == "invalid" and results[REF]["message"]
    assert results["m:5ec4e7aa"]["code"] == "secret_found" and "redact" in results["m:5ec4e7aa"]["message"]
    assert results["r10"]["status"] == "stored"
    with psycopg.connect(dsn, autocommit=True) as conn:
        keys = {row[0] for row in conn.execute("SELECT key FROM records").fetchall()}
        bodies = " ".join(str(row[0]) for row in conn.execute("SELECT body FROM record_bodies").fetchall())
    assert keys == {"r1", "r10"} and "AKIA" not in bodies
