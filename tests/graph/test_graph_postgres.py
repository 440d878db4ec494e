"""The graph and notes through the Core on PostgreSQL: what ``kenning graph`` add / query /
timeline / end, decision records, the diary and values do over a Core built on
:class:`PostgresStores` (as the team server builds it) gives what it gives over SQLite, fact
for fact, field for field, in the same order.

Three cores run one script: the local SQLite store, PostgreSQL as the schema's owner, and
PostgreSQL as an application login that acts in the core's workspace only (row-level
security), beside another workspace holding the same facts and notes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import postgres_server
from kenning.clock import FixedClock, to_iso
from kenning.config import Settings
from kenning.core import notes
from kenning.core.service import Core
from kenning.errors import NotFound
from kenning.graph import facts

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
APP_LOGIN = "kenning_graph_app"
OTHER = "someone-else"


def _script(core: Core, workspace: str | None = None) -> dict[str, Any]:
    """Everything a user does with the graph and notes, and everything they are shown."""
    ws = workspace or core.workspace
    place = core.place(project="github.com/acme/shop")
    graph, clock = core.stores.graph, core.clock
    assert isinstance(clock, FixedClock)
    t0 = clock.now()
    out: dict[str, Any] = {"added": []}

    def add(*args: str, **kwargs: Any) -> None:
        result = facts.add(graph, clock, ws, *args, project=place.project, **kwargs)
        out["added"].append([result.added, facts.as_dict(result.fact), [f"f:{i}" for i in result.closed]])

    add("shop", "uses", "MySQL")
    add("billing", "depends_on", "Shop")
    clock.advance(days=10)
    add("shop", "uses", "PostgreSQL", replace=True)
    add("Shop", "uses", "postgresql")  # already current: not added again
    add("shop", "status", "alpha")
    clock.advance(hours=1)
    add("shop", "status", "beta")  # single-valued: closes alpha
    add("shop", "deploys_to", "fly.io, two regions", object_kind="text")
    add("shop", "uses", "redis", valid_from=to_iso(t0 + timedelta(days=2)))
    first = notes.decision_record(core, place, "Use Postgres for the job queue", area="queue",
                                  reason="we already run it")  # fmt: skip
    clock.advance(days=7)
    second = notes.decision_record(core, place, "Use Redis streams for the job queue", area="Queue",
                                   reason="Postgres polling was too slow")  # fmt: skip
    out["decisions"] = [[facts.as_dict(r.fact) if r.fact else None, [facts.as_dict(c) for c in r.closed]]
                        for r in (first, second)]  # fmt: skip
    ended = facts.end(graph, clock, ws, facts.parse_fact_ref(out["added"][6][1]["id"]))
    out["ended"] = facts.as_dict(ended)
    with pytest.raises(NotFound) as missing:
        facts.end(graph, clock, ws, 10_000)
    out["end missing"] = str(missing.value)
    for entity in ("shop", "postgres", place.project, "billing"):
        out[f"query {entity}"] = [facts.as_dict(f) for f in facts.query(graph, ws, entity)]
        out[f"timeline {entity}"] = [facts.line(f) for f in facts.timeline(graph, ws, entity)]
    for days in (-1, 1, 5, 10, 18):
        moment = t0 + timedelta(days=days)
        out[f"as_of {days}"] = [facts.as_dict(f) for f in facts.query(graph, ws, "shop", as_of=moment)]
    out["decided now"] = [f.object for f in facts.query(graph, ws, place.project, predicate="decided")
                          if f.current]  # fmt: skip
    out["outgoing"] = [facts.line(f, dates=False) for f in facts.query(graph, ws, "shop", direction="out")]
    out["incoming"] = [facts.line(f, dates=False) for f in facts.query(graph, ws, "shop", direction="in")]
    out["current"] = [facts.line(f) for f in graph.current_facts(ws, place.project)]
    out["resolved"] = facts.resolve(graph, ws, "shop")
    out["graph decisions"] = notes.graph_decisions(core, place)  # already in the graph: none new
    # notes: diary and values
    notes.diary_write(core, place, "started the export", agent="codex")
    clock.advance(minutes=5)
    notes.diary_write(core, place, "fixed the «export» bug", agent="claude-code")
    notes.diary_write(core, place, "same moment, second entry", agent="codex")
    out["diary"] = [{k: v for k, v in e.items() if k != "id"} for e in notes.diary_read(core, place)]
    out["diary codex"] = [e["text"] for e in notes.diary_read(core, place, agent="codex", limit=1)]
    out["diary since"] = len(notes.diary_read(core, place, since=to_iso(clock.now())))
    notes.set_value(core, place, "deploy.target", "fly.io")
    clock.advance(minutes=1)
    notes.set_value(core, place, "deploy.target", "render")
    notes.set_value(core, place, "a.first", "x")
    out["value"] = notes.get_value(core, place, "deploy.target")
    out["values"] = notes.list_values(core, place)
    return _refs_by_order(out)


def _refs_by_order(out: dict[str, Any]) -> dict[str, Any]:
    # Memory refs are random, and fact ids count every workspace's facts on PostgreSQL (one
    # sequence): name each by the order it first appears in.
    names: dict[str, str] = {}

    def name(match: re.Match[str]) -> str:
        return names.setdefault(match[0], f"{match[1]}#{sum(n.startswith(match[1]) for n in names.values())}")

    result: dict[str, Any] = json.loads(re.sub(r"\b(m|f):[0-9a-f]+\b", name, json.dumps(out, sort_keys=True)))
    return result


def _sqlite_core(settings: Settings, clock: FixedClock) -> Iterator[Core]:
    core = Core.open(settings, clock)
    try:
        yield core
    finally:
        core.close()


def _postgres_core(settings: Settings, clock: FixedClock, *, as_app: bool) -> Iterator[Core]:
    from kenning.store.postgres.schema import open_database
    from kenning.store.postgres.stores import PostgresStores

    name = postgres_server.fresh_database()
    if as_app:  # another workspace's look-alike rows first, written by the owner
        owner = open_database(postgres_server.dsn(name, postgres_server.OWNER), max_size=1)
        try:
            other = Core(PostgresStores(owner), FixedClock(clock.now()), Settings(home=settings.home, workspace=OTHER))
            _script(other)
        finally:
            owner.close()
        user = postgres_server.login_role(APP_LOGIN)
        db = open_database(postgres_server.dsn(name, user), workspace=settings.workspace, run_migrations=False)
    else:
        db = open_database(postgres_server.dsn(name, postgres_server.OWNER), max_size=4)
    core = Core(PostgresStores(db), clock, settings)
    try:
        yield core
    finally:
        core.close()
        postgres_server.drop_database(name)


def _postgres_owner(settings: Settings, clock: FixedClock) -> Iterator[Core]:
    return _postgres_core(settings, clock, as_app=False)


def _postgres_app(settings: Settings, clock: FixedClock) -> Iterator[Core]:
    return _postgres_core(settings, clock, as_app=True)


@pytest.fixture(scope="module")
def on_sqlite(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The script's transcript on the local SQLite store."""
    for core in _sqlite_core(Settings(home=tmp_path_factory.mktemp("graph-sqlite")), FixedClock(T0)):
        return _script(core)
    raise AssertionError("the SQLite core did not open")


def test_the_script_shows_what_the_graph_promises(on_sqlite: dict[str, Any]) -> None:
    # The transcript the PostgreSQL cores must match says what it should (a check that the
    # comparison below compares something).
    assert [a[0] for a in on_sqlite["added"]] == [True, True, True, False, True, True, True, True]
    assert on_sqlite["added"][2][2] and on_sqlite["added"][5][2]  # replace and single-valued closed one each
    assert on_sqlite["decided now"] == ["Use Redis streams for the job queue"]
    assert on_sqlite["as_of -1"] == [] and len(on_sqlite["as_of 1"]) == 2 and on_sqlite["ended"]["current"] is False
    assert on_sqlite["resolved"] == "shop" and on_sqlite["graph decisions"] == 0
    assert len(on_sqlite["timeline shop"]) == 7 and len(on_sqlite["incoming"]) == 1
    assert [e["agent"] for e in on_sqlite["diary"]] == ["codex", "claude-code", "codex"]  # ties: last written first
    assert on_sqlite["value"]["value"] == "render" and [v["key"] for v in on_sqlite["values"]] == ["a.first",
                                                                                                     "deploy.target"]


@pytest.mark.parametrize("open_core", [_postgres_owner, _postgres_app], ids=["owner", "app-login"])
def test_a_postgres_core_gives_what_sqlite_gives(
    open_core: Callable[[Settings, FixedClock], Iterator[Core]], on_sqlite: dict[str, Any], tmp_path: Path
) -> None:
    postgres_server.require()
    for core in open_core(Settings(home=tmp_path / "home"), FixedClock(T0)):
        got = _script(core)
        for key in on_sqlite:  # one key at a time: a difference names its step
            assert got[key] == on_sqlite[key], key
        assert got == on_sqlite
