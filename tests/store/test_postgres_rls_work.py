"""Row-level security for the rule, work and hook state stores on PostgreSQL: the intruder's
look-alike rows (tests/store/intruder.py) are there, under the suites' projects, branches and
sessions, and the policies alone keep a role bound to ``ws`` from reading or changing them,
even through a call that names the intruder's workspace."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import intruder
import psycopg
import pytest

import postgres_server
from kenning.store.postgres.schema import open_database, tables
from kenning.store.postgres.stores import PostgresStores

SHOP = "github.com/acme/shop"
EARLY = intruder.T0 - timedelta(days=30)
TABLES = ("memory_rules", "work_goals", "work_items", "work_progress", "work_handoffs", "work_tasks", "hook_stamp",
          "hook_sessions", "hook_shown", "hook_asks", "memory_deliveries")  # fmt: skip


@pytest.fixture
def database() -> Iterator[str]:
    name = postgres_server.fresh_database(template=intruder.template())
    try:
        yield name
    finally:
        postgres_server.drop_database(name)


def seen(stores: PostgresStores) -> dict[str, int]:
    """What a call naming the intruder's workspace reads of each store."""
    ws = intruder.INTRUDER
    return {
        "rules": len(stores.rules.rules(ws)),
        "sentences": len(stores.rules.sentence_rules(ws, SHOP)),
        "goal": len(stores.work.goal_by(ws, SHOP, "main")[0]),
        "branches": len(stores.work.work_branches(ws, SHOP)),
        "items": len(stores.work.items(ws, SHOP, None, open_only=False)),
        "progress": len(stores.work.progress(ws, SHOP, "main")),
        "handoffs": len(stores.work.handoffs(ws, SHOP, EARLY)),
        "tasks": len(stores.work.tasks(ws, None, ("open", "started", "done"))),
        "unclaimed": int(stores.work.unclaimed_task(ws, "/src/shop", EARLY) is not None),
        "sessions": len(stores.hooks.all_sessions(ws)),
        "shown": len(stores.hooks.shown_rows(ws, "claude:s1")),
        "asks": int(stores.hooks.last_ask(ws, SHOP, "tidy") is not None),
        "deliveries": len(stores.hooks.deliveries(ws, EARLY)),
        "stamp": stores.hooks.lesson_stamp(ws),
    }


def test_every_table_of_these_stores_is_under_the_policy_and_holds_intruder_rows(database: str) -> None:
    with psycopg.connect(postgres_server.dsn(database, postgres_server.OWNER), autocommit=True) as owner:
        assert set(TABLES) <= set(tables(owner))
        for table in TABLES:
            secured, rows = owner.execute(
                f"SELECT (SELECT relrowsecurity FROM pg_class WHERE oid = '{table}'::regclass),"
                f" (SELECT count(*) FROM {table} WHERE workspace = %s)", (intruder.INTRUDER,)).fetchone()  # fmt: skip
            assert secured and rows > 0, (table, secured, rows)


def test_the_bound_role_reads_and_changes_nothing_of_the_intruder(database: str) -> None:
    owner_db = open_database(postgres_server.dsn(database, postgres_server.OWNER), max_size=1)
    try:
        theirs = seen(PostgresStores(owner_db))
    finally:
        owner_db.close()
    assert all(theirs.values()), theirs  # the owner sees every look-alike row

    db = open_database(postgres_server.dsn(database, intruder.ROLE), run_migrations=False, max_size=1)
    try:
        stores = PostgresStores(db)
        assert not any(seen(stores).values()), seen(stores)
        # Writes naming the intruder change nothing of theirs (the policy hides the rows) ...
        ws = intruder.INTRUDER
        assert stores.work.retire_branch_work(ws, SHOP, "main", "merged", intruder.T0) == (False, 0)
        stores.hooks.forget_session(ws, "claude:s1")
        for rule in range(1, 30):
            stores.rules.delete_rule(ws, rule)
        # ... and a row of theirs cannot be written at all.
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            stores.hooks.set_ask(ws, SHOP, "tidy", intruder.T0, "claude:s1")
    finally:
        db.close()
    owner_db = open_database(postgres_server.dsn(database, postgres_server.OWNER), max_size=1)
    try:
        assert seen(PostgresStores(owner_db)) == theirs
    finally:
        owner_db.close()
