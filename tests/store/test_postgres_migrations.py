"""Numbered migrations on PostgreSQL: each in one transaction with its ledger row, applied
once however many servers start together, and refused by a role that may not migrate."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

import postgres_server
from kenning.errors import Refused
from kenning.store.postgres.db import MigrationSet, applied, migrate, pending
from kenning.store.postgres.schema import all_sets, migrate_schema, open_database


@pytest.fixture
def empty() -> Iterator[str]:
    name = postgres_server.fresh_database(migrated=False)
    try:
        yield name
    finally:
        postgres_server.drop_database(name)


def owner(database: str) -> psycopg.Connection[Any]:
    return psycopg.connect(postgres_server.dsn(database, postgres_server.OWNER), autocommit=True)


def test_the_schema_migrates_once_and_records_every_step(empty: str) -> None:
    done = migrate_schema(postgres_server.dsn(empty, postgres_server.OWNER))
    expected = [f"{s.name}/{name}" for s in all_sets() for name, _ in s.steps]
    assert done == expected
    assert migrate_schema(postgres_server.dsn(empty, postgres_server.OWNER)) == []
    with owner(empty) as conn:
        assert applied(conn, "memory") == [name for name, _ in all_sets()[1].steps]
        assert pending(conn, all_sets()) == []


def test_a_failing_step_rolls_back_with_its_ledger_row_and_stays_pending(empty: str) -> None:
    steps = MigrationSet("trial")
    steps.add("t001_table", "CREATE TABLE trial_a (x INTEGER)")

    def broken(conn: psycopg.Connection[Any]) -> None:
        conn.execute("CREATE TABLE trial_b (x INTEGER)")
        conn.execute("INSERT INTO trial_a VALUES (1)")
        raise RuntimeError("half way")

    steps.add("t002_broken", broken)
    with owner(empty) as conn:
        with pytest.raises(RuntimeError, match="half way"):
            migrate(conn, [steps])
        assert applied(conn, "trial") == ["t001_table"]
        assert conn.execute("SELECT to_regclass('trial_b')").fetchone() == (None,)
        assert conn.execute("SELECT count(*) FROM trial_a").fetchone() == (0,)
        assert pending(conn, [steps]) == ["trial/t002_broken"]
        # The lock was let go: the next migrator is not kept waiting.
        assert conn.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
        ).fetchone() == (0,)


def test_servers_starting_together_apply_each_step_once(empty: str) -> None:
    with owner(empty) as conn:
        conn.execute("CREATE TABLE runs (step TEXT)")
    steps = MigrationSet("together")
    for i in range(5):

        def step(conn: psycopg.Connection[Any], i: int = i) -> None:
            conn.execute("SELECT pg_sleep(0.05)")
            conn.execute("INSERT INTO runs VALUES (%s)", (f"s{i}",))

        steps.add(f"s{i}", step)
    results: list[list[str]] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with owner(empty) as conn:
                results.append(migrate(conn, [steps]))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert sorted(sum(results, [])) == [f"together/s{i}" for i in range(5)]
    with owner(empty) as conn:
        assert sorted(r[0] for r in conn.execute("SELECT step FROM runs").fetchall()) == [f"s{i}" for i in range(5)]


def before_memory() -> dict[str, str]:
    """A schema from before the memory set: the hooks set (its triggers are on memories) stops too."""
    return {s.name: s.steps[0][0] for s in all_sets() if s.name in ("memory", "hooks")}


def test_stop_before_leaves_a_set_at_an_earlier_schema(empty: str) -> None:
    dsn = postgres_server.dsn(empty, postgres_server.OWNER)
    done = migrate_schema(dsn, stop_before=before_memory())
    assert all(not d.startswith(("memory/", "hooks/")) for d in done)
    with owner(empty) as conn:
        assert conn.execute("SELECT to_regclass('memories')").fetchone() == (None,)


def test_the_application_role_refuses_a_schema_that_is_behind(empty: str) -> None:
    role = postgres_server.login_role("kenning_server")
    dsn = postgres_server.dsn(empty, postgres_server.OWNER)
    migrate_schema(dsn, stop_before=before_memory())
    with pytest.raises(Refused, match="behind") as refused:
        open_database(postgres_server.dsn(empty, role), run_migrations=False)
    assert "owner" in (refused.value.fix or "")
    migrate_schema(dsn)
    db = open_database(postgres_server.dsn(empty, role), run_migrations=False, max_size=1)
    db.close()


def test_migrating_without_privileges_fails_and_changes_nothing(empty: str) -> None:
    role = postgres_server.login_role("kenning_server")
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        migrate_schema(postgres_server.dsn(empty, role))
    with owner(empty) as conn:
        assert conn.execute("SELECT to_regclass('memories')").fetchone() == (None,)
