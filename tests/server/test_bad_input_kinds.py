"""Bad input on the record kinds beside memories (graph facts, diary entries, values, captured
sessions): a clear status and message, and the server's stores unchanged — per item inside a
good batch, or for the whole request (real HTTP, real PostgreSQL; the fixture and helpers are
tests/server/test_bad_input.py's)."""

from __future__ import annotations

from typing import Any

import httpx
import psycopg
from test_bad_input import _refused, _state, api, push  # noqa: F401  (api is the fixture)

from kenning.sync import kinds, wire

SESSION = "claude:0b5e55ed-0000-4000-8000-000000000001"


def _item(kind: str, key: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"kind": kind, "key": key, "op": "put", "digest": wire.digest(body), "body": body}


def _turn(i: int, text: str = "We moved the export to Celery") -> dict[str, Any]:
    return {"uid": f"u{i}", "role": "user" if i % 2 == 0 else "assistant", "text": text,
            "at": f"2026-11-30T10:{i % 60:02d}:00Z", "tool_calls": [], "files": [], "subagent": ""}  # fmt: skip


def _part(session: str, index: int, turns: list[dict[str, Any]]) -> dict[str, Any]:
    body = {"session": session, "index": index, "tool": "claude", "project": "github.com/acme/shop",
            "project_name": "shop", "turns": turns}  # fmt: skip
    return _item(wire.SESSION_PART, kinds.part_key(session, index), body)


def _head(session: str, turns: int = 2) -> dict[str, Any]:
    body = {"id": session, "tool": "claude", "project": "github.com/acme/shop", "project_name": "shop", "cwd": "/src/shop",
            "branch": "main", "title": "export", "first_at": "2026-11-30T10:00:00Z", "last_at": "2026-11-30T10:01:00Z",
            "turns": turns, "parts": 1}  # fmt: skip
    return _item(wire.SESSION, session, body)


def _fact(account: str, **over: Any) -> dict[str, Any]:
    body = {"project": "github.com/acme/shop", "subject": "shop", "subject_name": "shop", "subject_type": "project",
            "predicate": "uses", "object": "celery", "object_kind": "entity", "object_name": "Celery",
            "object_type": "tool", "area": "", "valid_from": "2026-11-30T10:00:00Z", "valid_to": None,
            "confidence": 0.9, "origin": "extracted", "session": SESSION, "memory_ref": "", "person": "",
            "evidence": "moved the export to Celery", "created_at": "2026-11-30T10:00:00Z", **over}  # fmt: skip
    return _item(wire.FACT, kinds.owned_key(account, kinds.fact_identity(body)), body)


def _ids(dsn: str) -> dict[str, str]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return {name: acc for acc, name in conn.execute("SELECT id, name FROM accounts").fetchall()}


def _records(dsn: str) -> tuple[set[tuple[str, str]], str]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        keys = {(r[0], r[1]) for r in conn.execute("SELECT kind, key FROM records").fetchall()}
        bodies = " ".join(str(r[0]) for r in conn.execute("SELECT body FROM record_bodies").fetchall())
    return keys, bodies


def test_bad_records_of_the_new_kinds_are_refused_one_by_one(api: tuple[httpx.Client, dict[str, str], str]) -> None:  # noqa: F811
    http, _tokens, dsn = api
    ids = _ids(dsn)
    alice, bob = ids["alice"], ids["bob"]
    leaky = _part(SESSION, 1, [_turn(2, "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY now")])
    huge = _part(SESSION, 2, [_turn(i, "z" * 9_000) for i in range(60)])  # > MAX_PART_BYTES
    crowded = _part(SESSION, 3, [_turn(i) for i in range(wire.PART_TURNS + 1)])
    value = {"project": "github.com/acme/shop", "key": "deploy target!", "value": "fly", "updated_at": "2026-11-30T10:00:00Z"}
    diary = {"project": "github.com/acme/shop", "agent": "claude", "at": "yesterday", "text": "did things"}
    good_value = {**value, "key": "deploy.target"}
    cases = {
        "good-head": _head(SESSION),
        "good-part": _part(SESSION, 0, [_turn(0), _turn(1)]),
        "leaky": leaky,
        "huge": huge,
        "crowded": crowded,
        "wrong-type": _fact(alice, confidence="high", valid_from="2026-11-29T10:00:00Z"),
        "bad-origin": _fact(alice, origin="guessed"),
        "bobs-key": _fact(bob),
        "good-fact": _fact(alice),
        "bad-value": _item(wire.VALUE, kinds.owned_key(alice, "v1"), value),
        "good-value": _item(wire.VALUE, kinds.owned_key(alice, "v2"), good_value),
        "bad-diary": _item(wire.DIARY, kinds.owned_key(alice, "d1"), diary),
        "key-mismatch": {**_head(SESSION), "key": "claude:another"},
        "part-key": {**_part(SESSION, 4, [_turn(0)]), "key": kinds.part_key(SESSION, 5)},
    }
    r = http.post("/api/v1/sync/push", json=push(*cases.values(), batch="batch-kinds-1"))
    assert r.status_code == 200, r.text
    got = dict(zip(cases, r.json()["results"], strict=True))
    for name in ("good-head", "good-part", "good-fact", "good-value"):
        assert got[name]["status"] == "stored", (name, got[name])
    assert got["leaky"]["code"] == "secret_found" and "redact" in got["leaky"]["message"]
    says = {"huge": "over the limit", "crowded": "1 to 100 turns", "wrong-type": "'confidence'",
            "bad-origin": "'origin'", "bobs-key": "your account id", "bad-value": "not a value name",
            "bad-diary": "not an ISO 8601 time", "key-mismatch": "not the record's key", "part-key": "key"}  # fmt: skip
    for name, text in says.items():
        assert got[name]["status"] == "refused" and got[name]["code"] == "invalid", (name, got[name])
        assert text in got[name]["message"], (name, got[name]["message"])
    keys, bodies = _records(dsn)
    stored = {(i["kind"], i["key"]) for n, i in cases.items() if n.startswith("good")}
    assert keys - {("review", "r1")} == stored
    assert "wJalrXUtnFEMI" not in bodies

    # bob may not add a part to alice's session, nor change her fact.
    bob_http = httpx.Client(base_url=str(http.base_url), timeout=60, headers={"Authorization": f"Bearer {_tokens['bob']}"})
    with bob_http:
        before = _state(dsn)
        r = bob_http.post("/api/v1/sync/push", json=push(_part(SESSION, 1, [_turn(5)]), batch="batch-bob-1"))
        assert r.status_code == 200 and r.json()["results"][0]["code"] == "not_author", r.text
        after = _state(dsn)
        assert after[1:3] == before[1:3]  # records and bodies unchanged (the batch id is kept: a replay is answered)


def test_whole_requests_with_new_kinds_are_refused_and_change_nothing(api: tuple[httpx.Client, dict[str, str], str]) -> None:  # noqa: F811
    http, tokens, dsn = api
    part = _part(SESSION, 0, [_turn(0), _turn(1)])
    _refused(http, dsn, 422, "invalid", "items.0.kind", json=push({**part, "kind": "sessions"}))
    _refused(http, dsn, 422, "invalid", "valid dictionary", json=push({**part, "body": [1, 2]}))
    _refused(http, dsn, 400, "invalid", "does not match the body", json=push({**part, "digest": wire.digest({})}))
    _refused(http, dsn, 403, "forbidden", "not scoped to workspace 'beta'", json=push(part, workspace="beta"))
    big = [_part(f"claude:s{i}", 0, [_turn(j, "w" * 9_000) for j in range(45)]) for i in range(6)]
    _refused(http, dsn, 413, "too_large", "bytes", json=push(*big))
    # A replayed session batch is answered again and stores once.
    first = http.post("/api/v1/sync/push", json=push(_head(SESSION), part, batch="batch-session-1"))
    assert first.status_code == 200 and all(x["status"] == "stored" for x in first.json()["results"]), first.text
    before = _state(dsn)
    again = http.post("/api/v1/sync/push", json=push(_head(SESSION), part, batch="batch-session-1"))
    assert again.status_code == 200 and again.json()["replayed"] is True
    assert again.json()["results"] == first.json()["results"]
    assert _state(dsn) == before
    # bob (a member) pulls it; a token not scoped to a workspace pulls nothing there.
    pulled = http.post("/api/v1/sync/pull", json={"workspace": "acme"}, headers={"Authorization": f"Bearer {tokens['bob']}"})
    assert pulled.status_code == 200 and SESSION in {c["key"] for c in pulled.json()["changes"]}
    pulled_beta = http.post("/api/v1/sync/pull", json={"workspace": "beta"})
    assert pulled_beta.status_code == 403 and "changes" not in pulled_beta.json()
