"""Row-level security on PostgreSQL: a connection reads and writes one workspace's rows.

The contract suites themselves run as a role bound to one workspace beside another
workspace's look-alike rows (the ``postgres-bound`` backend, tests/store/intruder.py); here,
the schema's promises one by one, in plain SQL as well as through the store.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import intruder
import psycopg
import pytest

import postgres_server
from kenning.model import Kind, Memory, Origin
from kenning.store.postgres import rls
from kenning.store.postgres.memories import PostgresMemoryStore
from kenning.store.postgres.schema import open_database, tables
from kenning.store.protocol import MemoryFilter

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def database() -> Iterator[str]:
    """A copy of the template that holds the intruder's rows beside an empty ``ws``."""
    name = postgres_server.fresh_database(template=intruder.template())
    try:
        yield name
    finally:
        postgres_server.drop_database(name)


def connect(database: str, role: str) -> psycopg.Connection[Any]:
    return psycopg.connect(postgres_server.dsn(database, role), autocommit=True)


def fill_ws(database: str) -> None:
    """A few rows of the bound role's own workspace, written as the owner."""
    db = open_database(postgres_server.dsn(database, postgres_server.OWNER), max_size=1)
    try:
        store = PostgresMemoryStore(db)
        for i in range(3):
            store.insert(Memory(ref=f"m:{i + 1:08x}", workspace="ws", scope="proj", text=f"kafka mine {i}",
                                kind=Kind.FACT, confidence=0.7, origin=Origin.AGENT, created_at=T0, confirmed_at=T0))  # fmt: skip
        store.set_policy("ws", "proj", "capture", "false", T0)
    finally:
        db.close()


def test_every_table_keys_by_workspace_and_is_under_the_policy(database: str) -> None:
    with connect(database, postgres_server.OWNER) as conn:
        names = tables(conn)
        assert "memories" in names and "memory_postings" in names
        for table in names:
            key = conn.execute(
                "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid"
                " AND a.attnum = i.indkey[0] WHERE i.indrelid = %s::regclass AND i.indisprimary",
                (table,),
            ).fetchone()
            if table == "kenning_role_workspaces":
                continue  # the bindings themselves: one row per login role, read by its own role
            assert key == ("workspace",), f"{table}: the workspace leads the primary key"
            secured, owner = conn.execute(
                "SELECT relrowsecurity, pg_get_userbyid(relowner) FROM pg_class WHERE oid = %s::regclass", (table,)
            ).fetchone()
            assert secured, f"{table}: row-level security is on"
            assert owner == postgres_server.OWNER != postgres_server.APP
            policy = conn.execute(
                "SELECT qual, with_check FROM pg_policies WHERE tablename = %s AND policyname = 'workspace_only'",
                (table,),
            ).fetchone()
            assert policy == ("(workspace = kenning_workspace())", "(workspace = kenning_workspace())"), table
            granted = conn.execute(
                "SELECT string_agg(privilege_type, ',' ORDER BY privilege_type) FROM information_schema.role_table_grants"
                " WHERE table_name = %s AND grantee = %s",
                (table, postgres_server.APP),
            ).fetchone()
            assert granted == ("DELETE,INSERT,SELECT,UPDATE",), table


def test_a_role_bound_to_one_workspace_reads_and_writes_nothing_of_another(database: str) -> None:
    fill_ws(database)
    with connect(database, postgres_server.OWNER) as owner:
        everything = {t: owner.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables(owner)}
        own = {t: owner.execute(f"SELECT count(*) FROM {t} WHERE workspace = 'ws'").fetchone()[0]
               for t in tables(owner) if t != "kenning_role_workspaces"}  # fmt: skip
    assert everything["memories"] == intruder.REFS + 3 and own["memories"] == 3
    with connect(database, intruder.ROLE) as conn:
        for attempt in (None, intruder.INTRUDER, ""):
            if attempt is not None:  # setting another workspace changes nothing for a bound role
                conn.execute("SELECT set_config('kenning.workspace', %s, false)", (attempt,))
            for table, count in own.items():
                assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == count, (table, attempt)
            # What it may not write: a row of another workspace, or one of theirs changed.
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("INSERT INTO meta (workspace, key, value) VALUES (%s, 'k', 'v')", (intruder.INTRUDER,))
            assert conn.execute("UPDATE memories SET text = 'x' WHERE workspace = %s", (intruder.INTRUDER,)).rowcount == 0
            assert conn.execute("DELETE FROM memory_postings WHERE workspace <> 'ws'").rowcount == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE memories SET workspace = %s WHERE workspace = 'ws'", (intruder.INTRUDER,))
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM kenning_role_workspaces")  # the bindings are the owner's to change
    with connect(database, postgres_server.OWNER) as owner:
        assert owner.execute("SELECT count(*) FROM memories").fetchone()[0] == everything["memories"]


def test_an_unbound_application_role_sees_the_workspace_its_transaction_names_else_nothing(database: str) -> None:
    fill_ws(database)
    role = postgres_server.login_role("kenning_server")  # the team server's login: bound to no workspace
    with connect(database, role) as conn:
        assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 0  # nothing set: nothing seen
        with conn.transaction():
            conn.execute("SELECT set_config('kenning.workspace', 'ws', true)")
            assert conn.execute("SELECT count(DISTINCT workspace), count(*) FROM memories").fetchone() == (1, 3)
        assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 0  # it ended with the transaction
    # Through the store: one database bound to a workspace, and one that binds each call.
    for bound in ("ws", None):
        db = open_database(postgres_server.dsn(database, role), workspace=bound, run_migrations=False, max_size=1)
        try:
            store = PostgresMemoryStore(db)
            mine = store.search(MemoryFilter("ws", ["proj"]), ["kafka"], limit=50)
            assert sorted(h.memory.ref for h in mine) == ["m:00000001", "m:00000002", "m:00000003"]
            if bound:  # a call naming the intruder still acts in the bound workspace
                assert store.search(MemoryFilter(intruder.INTRUDER, ["proj"]), ["kafka"], limit=50) == []
                assert store.get(intruder.INTRUDER, "m:00000010") is None and store.doc_freq("ws", ["kafka"])[0] == 3
            else:  # each call acts in the workspace it names
                assert len(store.search(MemoryFilter(intruder.INTRUDER, ["proj"]), ["kafka"], limit=50)) > 0
                assert store.policies("ws", "proj") == {"capture": "false"}
        finally:
            db.close()


def test_the_intruder_would_be_seen_without_the_policies(database: str) -> None:
    """The check above can fail: with row-level security off, the bound role reads the
    intruder's rows under the very refs the contract suites use."""
    with connect(database, postgres_server.OWNER) as owner:
        for table in tables(owner):
            owner.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
    db = open_database(postgres_server.dsn(database, intruder.ROLE), run_migrations=False, max_size=1)
    try:
        leaked = PostgresMemoryStore(db).get(intruder.INTRUDER, "m:00000001")
        assert leaked is not None and leaked.workspace == intruder.INTRUDER
    finally:
        db.close()


def test_binding_a_role_is_the_owners_and_takes_effect_at_once(database: str) -> None:
    fill_ws(database)
    role = postgres_server.login_role("kenning_rebound")
    with connect(database, postgres_server.OWNER) as owner:
        rls.bind_role(owner, role, intruder.INTRUDER)
    with connect(database, role) as conn:
        assert conn.execute("SELECT count(DISTINCT workspace), min(workspace) FROM memories").fetchone() == (1, intruder.INTRUDER)
        with connect(database, postgres_server.OWNER) as owner:
            rls.bind_role(owner, role, "ws")
        assert conn.execute("SELECT count(*), min(workspace) FROM memories").fetchone() == (3, "ws")
        with connect(database, postgres_server.OWNER) as owner:
            rls.unbind_role(owner, role)
        assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 0


def test_the_intruders_graph_and_notes_are_out_of_reach_and_would_be_seen_without_the_policies(database: str) -> None:
    from kenning.redacted import redacted
    from kenning.store.postgres.stores import PostgresStores

    db = open_database(postgres_server.dsn(database, intruder.ROLE), run_migrations=False, max_size=1)
    stores = PostgresStores(db)

    def reads() -> tuple[Any, ...]:
        graph, notes, other = stores.graph, stores.notes, intruder.INTRUDER
        return (graph.all_facts(other), graph.entities(other), graph.progress_of(other, "extract"),
                notes.all_diary(other), notes.all_values(other))  # fmt: skip

    try:
        assert reads() == ([], [], {}, [], [])  # naming the other workspace reads nothing of it
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            stores.notes.set_value(intruder.INTRUDER, "p", "deploy.target", redacted("mine now"), "2026-03-02T09:00:00Z")
        with connect(database, postgres_server.OWNER) as owner:
            for table in tables(owner):
                owner.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
        leaked = reads()  # the same calls, the policies off: the intruder's rows are there to leak
        assert all(leaked) and {f.workspace for f in leaked[0]} == {intruder.INTRUDER}
    finally:
        db.close()
