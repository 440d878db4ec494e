"""Notes: decision_record closes by area through the graph; diary; small values."""

from __future__ import annotations

from datetime import timedelta

import pytest

from kenning.clock import FixedClock
from kenning.core import notes
from kenning.core.scopes import Place
from kenning.core.service import Core
from kenning.errors import Invalid, NotFound
from kenning.graph import facts
from kenning.model import Status


def _decided(core: Core, place: Place, as_of: object = None) -> list[str]:
    rows = facts.query(core.stores.graph, place.workspace, place.project, predicate="decided", as_of=as_of)
    return sorted(f.object for f in rows if as_of is not None or f.current)


def test_decision_in_the_same_area_closes_the_earlier_one(core: Core, place: Place, clock: FixedClock) -> None:
    t0 = clock.now()
    first = notes.decision_record(core, place, "Use Postgres for the job queue", area="queue",
                                  reason="we already run it")
    clock.advance(days=7)
    t1 = clock.now()
    second = notes.decision_record(core, place, "Use Redis streams for the job queue", area="Queue",
                                   reason="Postgres polling was too slow")
    assert first.fact is not None and second.fact is not None
    assert [c.id for c in second.closed] == [first.fact.id]
    assert _decided(core, place) == ["Use Redis streams for the job queue"]
    # as_of before, between and after the change
    assert _decided(core, place, as_of=t0 - timedelta(minutes=1)) == []
    assert _decided(core, place, as_of=t0 + timedelta(days=1)) == ["Use Postgres for the job queue"]
    assert _decided(core, place, as_of=t1 - timedelta(microseconds=1)) == ["Use Postgres for the job queue"]
    assert _decided(core, place, as_of=t1) == ["Use Redis streams for the job queue"]
    # both memories are kept
    assert first.result.remembered.memory is not None
    kept = core.get(first.result.remembered.memory.ref)
    assert kept.status == Status.ACTIVE
    assert second.result.doc is not None and second.result.doc.area == "Queue"


def test_without_an_area_both_decisions_stay_valid(core: Core, place: Place, clock: FixedClock) -> None:
    notes.decision_record(core, place, "Use Postgres for the job queue", reason="we already run it")
    clock.advance(days=1)
    notes.decision_record(core, place, "Ship the API behind a feature flag first", reason="rollback is one switch")
    assert _decided(core, place) == ["Ship the API behind a feature flag first", "Use Postgres for the job queue"]


def test_other_areas_are_left_alone(core: Core, place: Place, clock: FixedClock) -> None:
    notes.decision_record(core, place, "Use Postgres for the job queue", area="queue", reason="we run it")
    clock.advance(days=1)
    notes.decision_record(core, place, "Use OAuth device flow for the CLI login", area="auth",
                          reason="no browser on servers")
    assert len(_decided(core, place)) == 2


def test_diary_is_dated_newest_first_and_redacted(core: Core, place: Place, clock: FixedClock) -> None:
    notes.diary_write(core, place, "Started the TZ fix.", agent="claude-code")
    clock.advance(hours=2)
    notes.diary_write(core, place, "Token ghp_1234567890abcdefghijklmnopqrstuvwxyzAB leaked in logs; rotated.",
                      agent="claude-code")
    notes.diary_write(core, place, "Codex looked at CI.", agent="codex")
    entries = notes.diary_read(core, place, agent="claude-code")
    assert [e["text"][:10] for e in entries] == ["«Token [se", "«Started t"]  # an entry is data: quoted
    assert "ghp_" not in entries[0]["text"]
    assert len(notes.diary_read(core, place)) == 3
    assert notes.diary_read(core, place, since=(clock.now() + timedelta(days=1)).date().isoformat()) == []
    with pytest.raises(Invalid):
        notes.diary_write(core, place, "   ")


def test_values_per_project(core: Core, place: Place) -> None:
    other = core.place(project="github.com/acme/other")
    notes.set_value(core, place, "deploy.target", "fly.io")
    notes.set_value(core, place, "deploy.target", "render")
    assert notes.get_value(core, place, "deploy.target")["value"] == "render"
    with pytest.raises(NotFound) as err:
        notes.get_value(core, other, "deploy.target")
    assert "set one first" in err.value.fix
    with pytest.raises(Invalid):
        notes.set_value(core, place, "bad key!", "x")


def test_decisions_recorded_by_the_core_join_the_graph(core: Core, place: Place, clock: FixedClock) -> None:
    from kenning.core.remember import RememberRequest

    core.record_decision(place, RememberRequest(text="Use JWT for the API", reason="stateless", area="auth"))
    clock.advance(days=2)
    core.record_decision(place, RememberRequest(text="Use opaque session tokens for the API",
                                                reason="revocation", area="auth"))
    assert notes.graph_decisions(core, place) == 2
    assert notes.graph_decisions(core, place) == 0  # idempotent
    assert _decided(core, place) == ["Use opaque session tokens for the API"]


def test_a_hidden_decision_never_reaches_the_wake_up(core: Core, place: Place, clock: FixedClock) -> None:
    from kenning.context import wakeup

    done = notes.decision_record(core, place, "Use the internal codename Falcon for the queue", area="queue",
                                 reason="naming")
    assert done.result.remembered.memory is not None
    assert "Falcon" in wakeup.bundle(core, place)
    core.hide(done.result.remembered.memory.ref)
    assert "Falcon" not in wakeup.bundle(core, place)
