"""One request's transaction on the team server: what the memory store reads inside it stays
true until the transaction writes (the index statistics are read once, then forgotten at the
first write), and a pushed memory's near-duplicate and contradiction candidates come from the
materialized copy, writes earlier in the same batch included."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from serverkit import team

from kenning.ids import new_ref
from kenning.model import Kind, Memory, Origin
from kenning.server.auth import new_token, token_hash
from kenning.store.protocol import MemoryFilter
from kenning.store.server.postgres import PostgresServerStore
from kenning.store.server.protocol import Grant
from kenning.sync import records, wire
from kenning.sync.apply import Item, apply_batch

SHOP = "github.com/acme/shop"


def _item(text: str, now: datetime, *, kind: Kind = Kind.FACT, origin: Origin = Origin.AGENT,
          confidence: float = 0.7) -> Item:  # fmt: skip
    memory = Memory(ref=new_ref(), workspace="acme", scope=SHOP, text=text, kind=kind, confidence=confidence,  # type: ignore[arg-type]
                    origin=origin, origin_tool="claude-code", created_at=now, confirmed_at=now)  # fmt: skip
    body = records.memory_body(memory, [])
    return Item(wire.MEMORY, memory.ref, "put", wire.digest(body), body)


@pytest.fixture()
def laptop(server_dsn: str) -> Iterator[tuple[PostgresServerStore, str, Grant]]:
    """The team's store (small pools), alice's account id, and her laptop token's grant in acme."""
    store = PostgresServerStore.open(server_dsn, max_size=2, writers=2)
    try:
        ids = team(store)
        token = new_token()
        store.add_device(ids["alice"], "laptop", ["acme"], token_hash(token), datetime.now(UTC))
        yield store, ids["alice"], Grant(token_hash(token), "acme")
    finally:
        store.close()


def test_statistics_read_in_a_request_are_forgotten_when_it_writes(laptop: tuple[PostgresServerStore, str, Grant]) -> None:
    store, alice, grant = laptop
    now = datetime.now(UTC)
    with store.workspace(grant) as tx:
        memories = tx.stores().memories
        flt = MemoryFilter("acme", [SHOP])
        assert memories.search(flt, ["deploy", "tuesday"], limit=5) == []
        assert memories.index_stats("acme", ["deploy"]).df == {}
        tx.lock()
        [done] = apply_batch(tx, "acme", alice, [_item("The shop deploys on Tuesday", now)], now)
        assert done.status == wire.STORED
        # Read again in the same transaction: the write is seen, not the statistics of before it.
        assert memories.index_stats("acme", ["deploy"]).df == {"deploy": 1}
        [hit] = memories.search(flt, ["deploy", "tuesday"], limit=5)
        assert hit.memory.ref == done.key


def test_a_batch_sees_its_own_earlier_memories_as_candidates(laptop: tuple[PostgresServerStore, str, Grant]) -> None:
    """The second of two near-identical memories in one push strengthens the first; a claim
    against a person's firmer memory, pushed in the same batch, waits in review."""
    store, alice, grant = laptop
    now = datetime.now(UTC)
    first = _item("The staging database is restored from the nightly snapshot", now)
    again = _item("The staging database is restored from the nightly snapshot", now)
    firm = _item("Releases go out on Thursday afternoons", now, origin=Origin.PERSON, confidence=0.95)
    against = _item("Releases never go out on Thursday afternoons", now)
    with store.workspace(grant) as tx:
        tx.lock()
        results = apply_batch(tx, "acme", alice, [first, again, firm, against], now)
    assert [r.status for r in results] == [wire.STORED, wire.STRENGTHENED, wire.STORED, wire.REVIEW_HELD]
    assert results[1].other == first.key
    assert results[3].other == firm.key


def test_writers_queued_behind_a_workspace_lock_leave_the_reads_their_connections(
    laptop: tuple[PostgresServerStore, str, Grant],
) -> None:
    """A push holds the workspace's lock; more writers queue behind it, more than the whole
    pool holds; a read still gets a connection and answers while they wait."""
    import threading

    store, _alice, grant = laptop
    locked, release = threading.Event(), threading.Event()

    def holder() -> None:
        with store.workspace(grant, write=True) as tx:
            tx.lock()
            locked.set()
            release.wait(60)

    def writer() -> None:
        with store.workspace(grant, write=True) as tx:
            tx.lock()

    threads = [threading.Thread(target=holder)] + [threading.Thread(target=writer) for _ in range(4)]
    threads[0].start()
    assert locked.wait(30)
    for t in threads[1:]:
        t.start()
    read: list[int] = []

    def reader() -> None:
        for _ in range(3):  # more reads than the read pool has connections, one after another
            with store.workspace(grant) as tx:
                read.append(tx.head())

    r = threading.Thread(target=reader)
    r.start()
    r.join(30)
    answered = not r.is_alive()
    release.set()
    for t in [*threads, r]:
        t.join(60)
    assert answered, "a read waited for the writers queued behind the lock"
    assert len(read) == 3


def test_a_write_that_finds_no_connection_in_time_is_answered_busy_and_changes_nothing(
    server_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every writer's connection in use past the wait: 503 'busy' with Retry-After (the sync
    client retries on it), not a 500, and nothing written; reads still answer."""
    import httpx
    from serverkit import running_server

    from kenning.store.server import postgres

    monkeypatch.setattr(postgres, "WAIT_SECONDS", 0.5)
    with running_server(server_dsn) as srv:
        ids = team(srv.store)
        now = datetime.now(UTC)
        token = new_token()
        srv.store.add_device(ids["alice"], "laptop", ["acme"], token_hash(token), now)
        held = [srv.store.writers.getconn() for _ in range(srv.store.writers.max_size)]
        try:
            with httpx.Client(base_url=srv.url, headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
                item = _item("The shop deploys on Tuesday", now)
                push = {"workspace": "acme", "batch": "b_busy_0001",
                        "items": [{"kind": item.kind, "key": item.key, "op": "put", "digest": item.digest,
                                   "body": item.body}]}  # fmt: skip
                r = http.post("/api/v1/sync/push", json=push)
                assert r.status_code == 503, r.text
                assert r.json()["error"] == "busy" and "again" in r.json()["fix"]
                assert int(r.headers["retry-after"]) > 0
                pulled = http.post("/api/v1/sync/pull", json={"workspace": "acme", "after": 0, "limit": 10})
                assert pulled.status_code == 200 and pulled.json()["changes"] == []
        finally:
            for conn in held:
                srv.store.writers.putconn(conn)
        with store_tx(srv.store, token) as tx:
            assert tx.head() == 0


def store_tx(store: PostgresServerStore, token: str) -> Any:
    return store.workspace(Grant(token_hash(token), "acme"))
