"""Writes on the team server behave as on a machine, as their author's own records (real
server on loopback, real PostgreSQL, machines syncing with the real SyncClient):

- a REST decision writes its decision doc, on the server's copy and on the author's
  machines at their next pull; a teammate's same-title doc stays theirs (seed 001);
- a proposal on a teammate's memory reaches that author's Needs review, never their row;
- remember's replaces / index / used, as the local tool takes them, within the rows one owns;
- a hidden memory: its author gets it by ref (marked), a teammate the 404 of a missing ref,
  and recall and list give it to no one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import psycopg
from serverkit import Machine, api_device, bearer, invite, running_server, team

from kenning.core.decisions import add_outcome
from kenning.core.remember import RememberRequest
from kenning.model import Kind, Status

SHOP = "github.com/acme/shop"


def _tables(dsn: str) -> dict[str, int]:
    with psycopg.connect(dsn) as conn:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]  # type: ignore[index]
                for t in ("records", "record_bodies", "memories", "memory_events", "memory_uses", "decision_docs",
                          "batches")}  # fmt: skip


def _remember(http: httpx.Client, token: str, text: str, **body: Any) -> dict[str, Any]:
    r = http.post("/api/v1/memories", json={"workspace": "acme", "project": SHOP, "text": text, **body}, headers=bearer(token))
    assert r.status_code == 200, r.text
    answer: dict[str, Any] = r.json()
    return answer


def _server_docs(dsn: str) -> dict[tuple[str, str], tuple[str, str, str]]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute("SELECT title, author, decision, reason, outcome FROM decision_docs WHERE workspace = 'acme'").fetchall()
    return {(r[0], r[1]): (r[2], r[3], r[4]) for r in rows}


def test_a_rest_decision_writes_its_doc_for_the_copy_and_the_authors_machines(server_dsn: str, tmp_path: Path) -> None:
    with running_server(server_dsn) as srv:
        team(srv.store)
        alice, bob = api_device(srv.store, "alice"), api_device(srv.store, "bob")
        laptop = Machine(tmp_path, "alice-laptop", srv.url, invite(srv.store, "alice", ["acme"]))
        desk = Machine(tmp_path, "bob-desk", srv.url, invite(srv.store, "bob", ["acme"]))
        http = httpx.Client(base_url=srv.url, timeout=30)
        try:
            # bob's doc titled "Database" first (from his machine, as a push).
            desk.core.record_decision(desk.core.place(project=SHOP), RememberRequest(
                "We chose SQLite for the shop's tests", kind=Kind.DECISION, reason="no server in CI", source="api",
                title="Database"))  # fmt: skip
            desk.sync()
            first = _remember(http, alice, "We chose Postgres over MySQL for the shop", kind="decision",
                              reason="row-level security", rejected="MySQL", title="Database", source="api")  # fmt: skip
            assert first["outcome"] == "stored" and first["decision_doc"]["title"] == "Database"
            assert "Postgres over MySQL" in first["decision_doc"]["text"] and first["decision_doc"]["author"] == "alice/api"
            docs = _server_docs(server_dsn)
            assert "Postgres" in docs[("Database", "alice/api")][0] and "SQLite" in docs[("Database", "bob/api")][0]

            # The author's machine pulls it as its own doc, beside the teammate's.
            laptop.sync()
            mine = laptop.core.store.decision_doc("acme", SHOP, "Database", "api")
            assert mine is not None and "Postgres over MySQL" in mine.decision and mine.memory_ref == first["ref"]
            assert str(mine.reason) == "row-level security" and str(mine.rejected) == "MySQL"
            theirs = laptop.core.store.decision_doc("acme", SHOP, "Database", "bob/api")
            assert theirs is not None and "SQLite" in theirs.decision
            # An outcome learned on the machine travels up; the same title again keeps it.
            add_outcome(laptop.core.store, mine, "Shipped in the schema PR", laptop.core.now())
            laptop.sync()
            again = _remember(http, alice, "We chose Postgres 16 over MySQL for the shop's orders", kind="decision",
                              reason="row-level security and JSONB", title="Database", source="api")  # fmt: skip
            assert again["outcome"] == "stored" and again["ref"] != first["ref"]
            decision, reason, outcome = _server_docs(server_dsn)[("Database", "alice/api")]
            assert "Postgres 16" in decision and reason == "row-level security and JSONB" and "schema PR" in outcome
            laptop.sync()
            mine = laptop.core.store.decision_doc("acme", SHOP, "Database", "api")
            assert mine is not None and "Postgres 16" in mine.decision and mine.outcome == ("Shipped in the schema PR",)
            assert mine.memory_ref == again["ref"]
            # bob's doc is left alone, on his machine and on the server.
            desk.sync()
            bobs = desk.core.store.decision_doc("acme", SHOP, "Database", "api")
            assert bobs is not None and "SQLite" in bobs.decision
            assert "Postgres 16" in desk.core.store.decision_doc("acme", SHOP, "Database", "alice/api").decision  # type: ignore[union-attr]
            assert "SQLite" in _server_docs(server_dsn)[("Database", "bob/api")][0]
            # A decision needs its reason (refused, nothing written), as on a machine.
            before = _tables(server_dsn)
            r = http.post("/api/v1/memories", json={"workspace": "acme", "project": SHOP, "kind": "decision",
                                                    "text": "We picked Redis for the cache"}, headers=bearer(bob))  # fmt: skip
            assert r.status_code == 400 and "reason" in r.json()["message"]
            assert _tables(server_dsn) == before
        finally:
            http.close()
            laptop.close()
            desk.close()


def test_a_proposal_reaches_the_authors_needs_review_and_edits_no_row(server_dsn: str, tmp_path: Path) -> None:
    with running_server(server_dsn) as srv:
        ids = team(srv.store)
        bob = api_device(srv.store, "bob")
        laptop = Machine(tmp_path, "alice-laptop", srv.url, invite(srv.store, "alice", ["acme"]))
        desk = Machine(tmp_path, "bob-desk", srv.url, invite(srv.store, "bob", ["acme"]))
        http = httpx.Client(base_url=srv.url, timeout=30)
        try:
            old = laptop.remember("The shop's cron jobs run on the old worker box", kind=Kind.FACT).memory
            hidden = laptop.remember("The shop's admin password rotates every month", kind=Kind.FACT).memory
            assert old and hidden
            laptop.core.hide(hidden.ref)
            laptop.sync()
            desk.sync()
            before = _tables(server_dsn)
            r = http.post("/api/v1/proposals", json={"workspace": "acme", "project": SHOP, "type": "retire", "refs": [old.ref],
                                                     "why": "the worker box was shut down", "source": "codex"},
                          headers=bearer(bob))  # fmt: skip
            assert r.status_code == 200, r.text
            made = r.json()
            assert made["kind"] == "retire" and made["refs"] == [old.ref] and made["authors"] == ["alice"]
            # The memory is untouched on the server.
            with psycopg.connect(server_dsn) as conn:
                row = conn.execute("SELECT owner, body->>'status' FROM record_bodies WHERE kind = 'memory' AND key = %s",
                                   (old.ref,)).fetchone()  # fmt: skip
            assert row == (ids["alice"], "active")
            assert _tables(server_dsn)["records"] == before["records"] + 1
            # alice's machine gets it in Needs review; bob's does not.
            laptop.sync()
            desk.sync()
            waiting = laptop.core.store.reviews("acme", [SHOP])
            assert [(w.kind, w.refs, w.proposed_by) for w in waiting] == [("retire", (old.ref,), "bob/codex")]
            assert waiting[0].payload["why"] == "the worker box was shut down"
            assert desk.core.store.reviews("acme", [SHOP]) == []
            assert laptop.core.store.get("acme", old.ref).status is Status.ACTIVE  # type: ignore[union-attr]
            # alice accepts on her machine: her own row changes, and travels as hers.
            laptop.core.resolve_review(laptop.core.place(project=SHOP), waiting[0].id, "accept")
            laptop.sync()
            desk.sync()
            assert desk.core.store.get("acme", old.ref).status is Status.RETIRED  # type: ignore[union-attr]

            # Bad proposals: clear 4xx, nothing stored.
            before = _tables(server_dsn)
            cases: list[tuple[dict[str, Any], int, str]] = [
                ({"type": "retire", "refs": [hidden.ref]}, 400, "not a memory of this project"),
                ({"type": "retire", "refs": ["m:00000000"]}, 400, "not a memory of this project"),
                ({"type": "retire", "refs": [old.ref]}, 400, "already retired"),
                ({"type": "merge", "refs": [old.ref], "text": "One sentence"}, 400, "two refs"),
                ({"type": "lesson", "refs": [old.ref], "text": "One sentence"}, 400, "trigger"),
                ({"type": "rename", "refs": [old.ref]}, 422, "type"),
                ({"type": "retire", "refs": []}, 422, "refs"),
                ({"type": "retire", "refs": ["not-a-ref"]}, 400, "ref"),
            ]  # fmt: skip
            for extra, status, needle in cases:
                r = http.post("/api/v1/proposals", json={"workspace": "acme", "project": SHOP, **extra}, headers=bearer(bob))
                assert r.status_code == status, (extra, r.text)
                assert needle in r.json()["message"] or needle in str(r.json().get("details", "")), (extra, r.text)
            # The hidden one is refused in the words of a ref that does not exist.
            assert _tables(server_dsn) == before
        finally:
            http.close()
            laptop.close()
            desk.close()


def test_remember_replaces_index_and_used_within_ones_own_rows(server_dsn: str, tmp_path: Path) -> None:
    with running_server(server_dsn) as srv:
        team(srv.store)
        alice, bob = api_device(srv.store, "alice"), api_device(srv.store, "bob")
        laptop = Machine(tmp_path, "alice-laptop", srv.url, invite(srv.store, "alice", ["acme"]))
        http = httpx.Client(base_url=srv.url, timeout=30)
        try:
            old = _remember(http, alice, "The shop's invoices are emailed by the legacy mailer", kind="fact")
            theirs = _remember(http, bob, "The shop's refunds are approved by the finance team", kind="fact")
            # A teammate's memory cannot be replaced: refused before anything is written.
            before = _tables(server_dsn)
            r = http.post("/api/v1/memories", json={"workspace": "acme", "project": SHOP, "kind": "fact",
                                                    "text": "Refunds are approved by the support lead",
                                                    "replaces": [theirs["ref"]]}, headers=bearer(alice))  # fmt: skip
            assert r.status_code == 400 and "teammate" in r.json()["message"] and "propose" in r.json()["fix"]
            assert _tables(server_dsn) == before
            # One's own: superseded, with history both ways; pinned into the index; uses counted.
            new = _remember(http, alice, "Invoices are sent through the Postmark queue now", kind="fact",
                            replaces=[old["ref"], "m:00000000"], index=True, used=[theirs["ref"], "m:11111111"])  # fmt: skip
            assert new["outcome"] == "stored" and new["retired"] == [old["ref"]] and new["unplaced"] == ["m:00000000"]
            assert new["unknown_used"] == ["m:11111111"] and new["memory"]["pinned"] is True
            got = http.get(f"/api/v1/memories/{old['ref']}", params={"workspace": "acme"}, headers=bearer(bob)).json()
            assert got["status"] == "superseded" and [p["ref"] for p in got["history"]["replaced_by"]] == [new["ref"]]
            got = http.get(f"/api/v1/memories/{new['ref']}", params={"workspace": "acme"}, headers=bearer(bob)).json()
            assert [p["ref"] for p in got["history"]["replaced"]] == [old["ref"]]
            with psycopg.connect(server_dsn) as conn:
                uses = conn.execute("SELECT ref FROM memory_uses WHERE workspace = 'acme'").fetchall()
            assert uses == [(theirs["ref"],)]
            laptop.sync()
            pulled = laptop.core.store.get("acme", old["ref"])
            assert pulled is not None and pulled.status is Status.SUPERSEDED and pulled.status_note == new["ref"]
            assert laptop.core.store.get("acme", new["ref"]).index_pinned  # type: ignore[union-attr]
            # The index holds 25: past that nothing is written until one of one's own is unpinned.
            bobs = _remember(http, bob, "The shop's search runs on Meilisearch", kind="fact", index=True)
            for n in range(23):
                _remember(http, alice, f"The shop's feature flag number {n} guards checkout step {n}", kind="fact", index=True)
            before = _tables(server_dsn)
            full = _remember(http, alice, "The shop's banners come from the CMS", kind="fact", index=True)
            assert full["outcome"] == "index_full" and len(full["index"]) == 25 and "unindex" in full["note"]
            r = http.post("/api/v1/memories", json={"workspace": "acme", "project": SHOP, "kind": "fact", "index": True,
                                                    "text": "The shop's banners come from the CMS",
                                                    "unindex": bobs["ref"]}, headers=bearer(alice))  # fmt: skip
            assert r.status_code == 400 and "teammate" in r.json()["message"]
            assert _tables(server_dsn) == before
            room = _remember(http, alice, "The shop's banners come from the CMS", kind="fact", index=True, unindex=new["ref"])
            assert room["outcome"] == "stored" and room["memory"]["pinned"]
            assert not http.get(f"/api/v1/memories/{new['ref']}", params={"workspace": "acme"}, headers=bearer(bob)).json()["pinned"]
            # Room is made only for a memory that is written: a restatement strengthens and unpins nothing.
            echo = _remember(http, alice, "The shop banners come from the CMS", kind="fact", index=True, unindex=room["ref"])
            assert echo["outcome"] == "strengthened" and echo["other"] == room["ref"]
            assert http.get(f"/api/v1/memories/{room['ref']}", params={"workspace": "acme"}, headers=bearer(bob)).json()["pinned"]
            # Bad input: clear 422s, nothing written.
            before = _tables(server_dsn)
            for extra, needle in (({"replaces": "m:00000000"}, "replaces"), ({"used": [5]}, "used"),
                                  ({"index": "yes please"}, "index"), ({"replaces": ["x" * 41]}, "replaces")):  # fmt: skip
                r = http.post("/api/v1/memories", json={"workspace": "acme", "project": SHOP, "kind": "fact",
                                                        "text": "A fine sentence about the shop", **extra}, headers=bearer(alice))  # fmt: skip
                assert r.status_code == 422 and needle in str(r.json()), (extra, r.text)
            assert _tables(server_dsn) == before
        finally:
            http.close()
            laptop.close()


def test_a_hidden_memory_by_ref_is_its_authors_alone(server_dsn: str, tmp_path: Path) -> None:
    with running_server(server_dsn) as srv:
        team(srv.store)
        alice, bob = api_device(srv.store, "alice"), api_device(srv.store, "bob")
        laptop = Machine(tmp_path, "alice-laptop", srv.url, invite(srv.store, "alice", ["acme"]))
        http = httpx.Client(base_url=srv.url, timeout=30)
        try:
            kept = laptop.remember("The staging box keeps nightly database dumps for a week", kind=Kind.FACT).memory
            assert kept
            laptop.core.hide(kept.ref)
            laptop.sync()
            r = http.get(f"/api/v1/memories/{kept.ref}", params={"workspace": "acme"}, headers=bearer(alice))
            assert r.status_code == 200, r.text
            got = r.json()
            assert got["ref"] == kept.ref and got["hidden"] is True and "hidden" in got["line"] and "dumps" in got["text"]
            assert [e["event"] for e in got["history"]["events"]][:1] == ["created"]
            # A teammate: the same 404 as a ref that never existed.
            theirs = http.get(f"/api/v1/memories/{kept.ref}", params={"workspace": "acme"}, headers=bearer(bob))
            missing = http.get("/api/v1/memories/m:00000000", params={"workspace": "acme"}, headers=bearer(bob))
            assert theirs.status_code == missing.status_code == 404
            assert theirs.json()["message"].replace(kept.ref, "m:00000000") == missing.json()["message"]
            assert theirs.json().keys() == missing.json().keys()
            # Recall and list give it to no one, its author included.
            for token in (alice, bob):
                r = http.post("/api/v1/recall", json={"workspace": "acme", "project": SHOP, "query": "nightly database dumps"},
                              headers=bearer(token))  # fmt: skip
                assert r.status_code == 200 and r.json()["results"] == []
                listed = http.get("/api/v1/memories", params={"workspace": "acme", "project": SHOP}, headers=bearer(token)).json()
                assert kept.ref not in {m["ref"] for m in listed["memories"]}
            # Given back: everyone's again, unmarked.
            laptop.core.give(kept.ref)
            laptop.sync()
            back = http.get(f"/api/v1/memories/{kept.ref}", params={"workspace": "acme"}, headers=bearer(bob))
            assert back.status_code == 200 and "hidden" not in back.json()
        finally:
            http.close()
            laptop.close()
