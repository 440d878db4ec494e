"""The temporal graph: half-open windows, no supersede by default, no duplicates, as_of."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kenning.clock import FixedClock, to_iso
from kenning.core.service import Core
from kenning.errors import Invalid
from kenning.graph import facts
from kenning.store.sqlite.stores import open_sqlite

WS = "local"


def test_multi_valued_predicate_keeps_both_objects(core: Core, clock: FixedClock) -> None:
    db = core.stores.graph
    facts.add(db, clock, WS, "shop", "uses", "Postgres")
    clock.advance(days=1)
    facts.add(db, clock, WS, "shop", "uses", "Redis")
    current = {f.object for f in facts.query(db, WS, "shop", predicate="uses") if f.current}
    assert current == {"postgres", "redis"}  # adding Redis did not close Postgres


def test_replace_and_single_valued_close_the_old_object_half_open(core: Core, clock: FixedClock) -> None:
    db = core.stores.graph
    t0 = clock.now()
    facts.add(db, clock, WS, "shop", "uses", "MySQL")
    clock.advance(days=10)
    t1 = clock.now()
    result = facts.add(db, clock, WS, "shop", "uses", "PostgreSQL", replace=True)
    assert len(result.closed) == 1
    old = facts.query(db, WS, "shop", predicate="uses", as_of=t1 - timedelta(microseconds=1))
    new = facts.query(db, WS, "shop", predicate="uses", as_of=t1)
    assert [f.object for f in old] == ["mysql"]
    assert [f.object for f in new] == ["postgres"]  # at the changeover only the new one holds
    assert facts.query(db, WS, "shop", predicate="uses", as_of=t0 - timedelta(seconds=1)) == []
    facts.add(db, clock, WS, "shop", "status", "alpha")
    clock.advance(hours=1)
    facts.add(db, clock, WS, "shop", "status", "beta")  # single-valued: no replace flag needed
    assert [f.object for f in facts.query(db, WS, "shop", predicate="status") if f.current] == ["beta"]


def test_current_fact_is_never_inserted_twice(core: Core, clock: FixedClock) -> None:
    db = core.stores.graph
    first = facts.add(db, clock, WS, "shop", "uses", "Postgres")
    clock.advance(days=3)
    again = facts.add(db, clock, WS, "Shop", "uses", "postgresql")  # same entity, other spelling
    assert first.added and not again.added
    assert again.fact.id == first.fact.id
    assert len(facts.timeline(db, WS, "shop")) == 1


def test_entity_ids_keep_cpp_and_csharp_apart(core: Core, clock: FixedClock) -> None:
    db = core.stores.graph
    facts.add(db, clock, WS, "engine", "written_in", "C++")
    facts.add(db, clock, WS, "engine", "written_in", "C#")
    objects = {f.object for f in facts.query(db, WS, "engine")}
    assert objects == {"c++", "c#"}
    assert {f.object_name for f in facts.query(db, WS, "c#", direction="in")} == {"C#"}


def test_late_older_fact_does_not_close_a_newer_one(core: Core, clock: FixedClock) -> None:
    db = core.stores.graph
    facts.add(db, clock, WS, "shop", "status", "beta")
    earlier = clock.now() - timedelta(days=5)
    late = facts.add(db, clock, WS, "shop", "status", "alpha", valid_from=earlier)
    assert late.fact.valid_to == to_iso(clock.now())  # stored as already ended when beta began
    assert [f.object for f in facts.query(db, WS, "shop", predicate="status") if f.current] == ["beta"]


def test_a_closed_fact_resynced_from_an_old_session_stays_closed(core: Core, clock: FixedClock) -> None:
    db = core.stores.graph
    t0 = clock.now()
    facts.add(db, clock, WS, "shop", "uses", "MySQL")
    clock.advance(days=10)
    facts.add(db, clock, WS, "shop", "uses", "Postgres", replace=True)
    again = facts.add(db, clock, WS, "shop", "uses", "MySQL", valid_from=t0 + timedelta(days=1))
    assert not again.added
    assert [f.object for f in facts.query(db, WS, "shop", predicate="uses") if f.current] == ["postgres"]


def test_bad_input_is_refused_with_a_fix(core: Core, clock: FixedClock) -> None:
    db = core.stores.graph
    with pytest.raises(Invalid) as err:
        facts.add(db, clock, WS, "shop", "!!!", "x")
    assert err.value.fix
    with pytest.raises(Invalid):
        facts.query(db, WS, "shop", direction="sideways")
    with pytest.raises(Invalid):
        facts.add(db, clock, WS, "shop", "uses", "x", confidence=2.0)
    assert facts.timeline(db, WS, "shop") == []  # nothing half-written


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(1, 500)), min_size=1, max_size=12))
def test_single_valued_windows_never_overlap(tmp_path_factory: pytest.TempPathFactory,
                                             changes: list[tuple[str, int]]) -> None:
    stores = open_sqlite(tmp_path_factory.mktemp("g") / "k.db")
    db = stores.graph
    clock = FixedClock(datetime(2026, 1, 1, tzinfo=UTC))
    for value, minutes in changes:
        clock.advance(minutes=minutes)
        facts.add(db, clock, WS, "svc", "status", value)
    rows = facts.timeline(db, WS, "svc")
    assert sum(1 for f in rows if f.current) == 1
    # At any moment at most one status holds, and at the end it is the last one set.
    for f in rows:
        moment = datetime.fromisoformat(f.valid_from.replace("Z", "+00:00"))
        assert len(facts.query(db, WS, "svc", predicate="status", as_of=moment)) <= 1
    final = facts.query(db, WS, "svc", predicate="status", as_of=clock.now())
    assert [f.object for f in final] == [changes[-1][0]]
    stores.close()
