"""The GraphStore and NotesStore contracts: every backend passes this same suite (protocol methods
only, no SQL). The rules of what closes what are kenning.graph.facts's, tested in tests/graph."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kenning.redacted import redacted
from kenning.store.protocol import FactRow, GraphStore, NotesStore, Stores

WS = "ws"
NOW = "2026-03-02T09:00:00.000000Z"


@pytest.fixture
def graph(stores: Stores) -> GraphStore:
    return stores.graph


@pytest.fixture
def notes(stores: Stores) -> NotesStore:
    return stores.notes


def fact(subject: str = "shop", predicate: str = "uses", obj: str = "postgres", *, valid_from: str = NOW,
         valid_to: str | None = None, area: str = "", kind: str = "entity", workspace: str = WS, **changes: object
         ) -> FactRow:  # fmt: skip
    base = FactRow(0, workspace, "github.com/acme/shop", subject, predicate, obj, kind, area, valid_from, valid_to,
                   0.8, "asserted", "claude:s1", "", "", redacted("we moved to it"), NOW)
    return replace(base, **changes)  # type: ignore[arg-type]


# -- entities ---------------------------------------------------------------------------------
def test_entities(graph: GraphStore) -> None:
    graph.ensure_entity(WS, "github.com/acme/shop", redacted("shop"), "project", NOW)
    graph.ensure_entity(WS, "postgres", redacted("PostgreSQL"), "unknown", NOW)
    graph.ensure_entity(WS, "postgres", redacted("postgres"), "database", NOW)  # a known type replaces unknown
    graph.ensure_entity(WS, "postgres", redacted("pg"), "unknown", NOW)  # ... but unknown never replaces it
    pg = graph.entity(WS, "postgres")
    assert pg is not None and (pg.name, pg.type, pg.workspace) == ("PostgreSQL", "database", WS)
    assert graph.entities_named(WS, "shop") == ["github.com/acme/shop"]
    assert graph.entities_named(WS, "postgresql") == ["postgres"]
    assert graph.entities_named(WS, "sh%") == [] and graph.entities_named(WS, "nothing") == []
    assert [e.id for e in graph.entities(WS)] == ["github.com/acme/shop", "postgres"]
    assert graph.entity("other", "postgres") is None and graph.entities("other") == []


# -- facts ------------------------------------------------------------------------------------
def test_insert_get_and_names(graph: GraphStore) -> None:
    graph.ensure_entity(WS, "shop", redacted("Shop"), "project", NOW)
    graph.ensure_entity(WS, "postgres", redacted("PostgreSQL"), "database", NOW)
    fid = graph.insert(fact())
    text_id = graph.insert(fact(predicate="decided", obj="Use Redis for jobs", kind="text", area="jobs"))
    got = graph.get(WS, fid)
    assert got is not None and got.id == fid and got.ref == f"f:{fid}" and got.current
    assert (got.subject_name, got.object_name, got.evidence) == ("Shop", "PostgreSQL", "we moved to it")
    text = graph.get(WS, text_id)
    assert text is not None and text.object_name == "Use Redis for jobs" and text.area == "jobs"
    assert graph.get("other", fid) is None
    assert graph.count(WS) == 2 and graph.count("other") == 0
    assert [f.id for f in graph.all_facts(WS)] == [fid, text_id]


def test_iter_facts_walks_every_fact_in_pages(graph: GraphStore) -> None:
    """Past a page (500 rows on both engines): every fact once, by id, of its workspace only."""
    with graph.transaction():
        ids = [graph.insert(fact(obj=f"tool{i}")) for i in range(1_003)]
    walked = list(graph.iter_facts(WS))
    assert [f.id for f in walked] == ids and [f.object for f in walked] == [f"tool{i}" for i in range(1_003)]
    assert walked == graph.all_facts(WS)
    assert list(graph.iter_facts("other")) == []


def test_close_set_ended_by_and_slots(graph: GraphStore) -> None:
    old = graph.insert(fact(predicate="status", obj="alpha"))
    new = graph.insert(fact(predicate="status", obj="beta", valid_from="2026-03-03T09:00:00Z"))
    assert [f.object for f in graph.current_in_slot(WS, "shop", "status", "")] == ["alpha", "beta"]
    graph.close("other", old, "2026-03-03T09:00:00Z", new)  # another workspace: nothing happens
    assert graph.get(WS, old).current  # type: ignore[union-attr]
    graph.close(WS, old, "2026-03-03T09:00:00Z", new)
    closed = graph.get(WS, old)
    assert closed is not None and closed.valid_to == "2026-03-03T09:00:00Z" and closed.ended_by == new
    graph.close(WS, old, "2026-03-09T00:00:00Z", None)  # already ended: left as it is
    assert graph.get(WS, old).valid_to == "2026-03-03T09:00:00Z"  # type: ignore[union-attr]
    graph.set_ended_by(WS, old, 999)
    assert graph.get(WS, old).ended_by == 999  # type: ignore[union-attr]
    assert [f.object for f in graph.current_in_slot(WS, "shop", "status", "")] == ["beta"]
    assert [f.id for f in graph.same_fact(WS, "shop", "status", "alpha", "")] == [old]
    assert graph.find_facts(WS, "shop", "status", "beta", "", "2026-03-03T09:00:00Z") == [new]
    assert graph.find_facts(WS, "shop", "status", "beta", "", NOW) == []


def test_query_timeline_and_current_facts(graph: GraphStore) -> None:
    a = graph.insert(fact(obj="postgres", valid_from="2026-01-01T00:00:00Z", valid_to="2026-02-01T00:00:00Z"))
    b = graph.insert(fact(obj="mysql", valid_from="2026-02-01T00:00:00Z"))
    c = graph.insert(fact(subject="billing", obj="postgres", valid_from="2026-01-15T00:00:00Z"))
    d = graph.insert(fact(predicate="decided", obj="Use Redis", kind="text", valid_from="2026-02-10T00:00:00Z",
                          confidence=0.3))  # fmt: skip
    assert [f.id for f in graph.query(WS, "shop")] == [d, b, a]
    assert [f.id for f in graph.query(WS, "postgres")] == [c, a]  # as an entity object
    assert [f.id for f in graph.query(WS, "postgres", direction="out")] == []
    assert [f.id for f in graph.query(WS, "shop", predicate="uses")] == [b, a]
    assert [f.id for f in graph.query(WS, "shop", predicate="uses", as_of="2026-01-20T00:00:00Z")] == [a]
    assert [f.id for f in graph.query(WS, "shop", predicate="uses", as_of="2026-02-01T00:00:00Z")] == [b]
    assert [f.id for f in graph.query(WS, "shop", limit=1)] == [d]
    assert [f.id for f in graph.query(WS, "shop", project="elsewhere")] == []
    assert [f.id for f in graph.timeline(WS, "shop")] == [a, b, d]
    assert [f.id for f in graph.current_facts(WS, "github.com/acme/shop")] == [d, b, c]
    assert [f.id for f in graph.current_facts(WS, "github.com/acme/shop", predicates=("decided",))] == [d]
    assert [f.id for f in graph.current_facts(WS, "github.com/acme/shop", exclude=("decided",))] == [b, c]
    assert [f.id for f in graph.current_facts(WS, "github.com/acme/shop", min_confidence=0.5)] == [b, c]
    assert graph.query("other", "shop") == [] and graph.current_facts("other", "github.com/acme/shop") == []


def test_count_and_delete_by_memory_or_session(graph: GraphStore) -> None:
    graph.ensure_entity(WS, "shop", redacted("shop"), "project", NOW)
    graph.ensure_entity(WS, "celery", redacted("celery"), "tool", NOW)
    graph.ensure_entity(WS, "redis", redacted("redis"), "tool", NOW)
    first = graph.insert(fact(obj="celery", session="claude:gone", valid_to="2026-03-03T00:00:00Z"))
    graph.insert(fact(obj="redis", session="claude:kept", ended_by=None))
    recorded = graph.insert(fact(predicate="decided", obj="Use Redis", kind="text", memory_ref="m:00000001",
                                 session=""))  # fmt: skip
    graph.set_ended_by(WS, first, recorded)
    assert graph.count_facts(WS, session="claude:gone") == 1
    assert graph.count_facts(WS, memory_ref="m:00000001") == 1
    assert graph.count_facts(WS) == 0 and graph.delete_facts(WS) == 0  # neither named: nothing
    assert graph.delete_facts("other", session="claude:gone") == 0
    assert graph.delete_facts(WS, memory_ref="m:00000001") == 1
    assert graph.get(WS, first).ended_by is None  # type: ignore[union-attr]  # still ended, by nothing now
    assert graph.delete_facts(WS, session="claude:gone") == 1
    assert graph.entity(WS, "celery") is None  # only the deleted fact named it
    assert graph.entity(WS, "redis") is not None and graph.entity(WS, "shop") is not None


def test_progress(graph: GraphStore) -> None:
    assert graph.progress(WS, "claude:s1", "extract") == 0
    graph.set_progress(WS, "claude:s1", "extract", 12, NOW)
    graph.set_progress(WS, "claude:s1", "extract", 20, NOW)
    graph.set_progress(WS, "claude:s1", "escalate", 5, NOW)
    graph.set_progress(WS, "claude:s2", "extract", 3, NOW)
    assert graph.progress(WS, "claude:s1", "extract") == 20
    assert graph.progress_of(WS, "extract") == {"claude:s1": 20, "claude:s2": 3}
    graph.forget_progress(WS, "claude:s1")
    assert graph.progress_of(WS, "extract") == {"claude:s2": 3} and graph.progress(WS, "claude:s1", "escalate") == 0


def test_transaction_rolls_back_every_store(stores: Stores) -> None:
    with pytest.raises(RuntimeError), stores.transaction():
        stores.graph.insert(fact())
        stores.notes.diary_add(WS, "p", redacted("codex"), NOW, redacted("gone with the rollback"))
        raise RuntimeError("boom")
    assert stores.graph.count(WS) == 0 and stores.notes.all_diary(WS) == []


# -- notes ------------------------------------------------------------------------------------
def test_diary(notes: NotesStore) -> None:
    first = notes.diary_add(WS, "p", redacted("codex"), "2026-03-01T10:00:00Z", redacted("started the export"))
    second = notes.diary_add(WS, "p", redacted("claude-code"), "2026-03-02T10:00:00Z", redacted("fixed «it»"))
    notes.diary_add(WS, "other-project", redacted("codex"), "2026-03-03T10:00:00Z", redacted("elsewhere"))
    assert second > first
    assert [e.text for e in notes.diary(WS, "p")] == ["fixed «it»", "started the export"]
    assert [e.id for e in notes.diary(WS, "p", agent="codex")] == [first]
    assert [e.id for e in notes.diary(WS, "p", since="2026-03-02T00:00:00Z")] == [second]
    assert len(notes.diary(WS, "p", limit=1)) == 1
    assert [e.project for e in notes.all_diary(WS)] == ["p", "p", "other-project"]
    assert notes.diary_count(WS, "p", "codex", "2026-03-01T10:00:00Z", "started the export") == 1
    assert notes.diary("other", "p") == [] and notes.all_diary("other") == []


def test_values(notes: NotesStore) -> None:
    notes.set_value(WS, "p", "deploy.target", redacted("fly.io"), "2026-03-01T10:00:00Z")
    notes.set_value(WS, "p", "deploy.target", redacted("render"), "2026-03-02T10:00:00Z")
    notes.set_value(WS, "p", "a.first", redacted("x"), NOW)
    notes.set_value(WS, "q", "z", redacted("y"), NOW)
    got = notes.value(WS, "p", "deploy.target")
    assert got is not None and (got.value, got.updated_at) == ("render", "2026-03-02T10:00:00Z")
    assert [v.key for v in notes.values(WS, "p")] == ["a.first", "deploy.target"]
    assert [(v.project, v.key) for v in notes.all_values(WS)] == [("p", "a.first"), ("p", "deploy.target"), ("q", "z")]
    assert notes.value("other", "p", "deploy.target") is None and notes.all_values("other") == []


# -- what the protocol promises beyond the cases above -----------------------------------------
def test_entities_named_folds_ascii_case_and_matches_a_key_suffix_literally(graph: GraphStore) -> None:
    graph.ensure_entity(WS, "github.com/acme/shop", redacted("SHOP"), "project", NOW)
    graph.ensure_entity(WS, "github.com/acme/sh_p", redacted("the other one"), "project", NOW)
    graph.ensure_entity(WS, "github.com/acme/big-shop", redacted("big shop"), "project", NOW)
    assert graph.entities_named(WS, "shop") == ["github.com/acme/shop"]  # by its name, in any case
    assert graph.entities_named(WS, "sh_p") == ["github.com/acme/sh_p"]  # "_" is no wildcard
    assert graph.entities_named(WS, "big shop") == ["github.com/acme/big-shop"]
    graph.ensure_entity(WS, "shop", redacted("shop"), "project", NOW)
    assert graph.entities_named(WS, "shop") == ["github.com/acme/shop", "shop"]  # sorted by id


def test_ties_on_valid_from_break_by_id(graph: GraphStore) -> None:
    ids = [graph.insert(fact(obj=o)) for o in ("zeta", "alpha", "mid")]  # one moment, written in this order
    older = graph.insert(fact(obj="older", valid_from="2026-03-01T00:00:00Z"))
    assert [f.id for f in graph.query(WS, "shop")] == [*reversed(ids), older]
    assert [f.id for f in graph.timeline(WS, "shop")] == [older, *ids]
    assert [f.id for f in graph.current_facts(WS, "github.com/acme/shop")] == [*reversed(ids), older]
    assert [f.id for f in graph.current_in_slot(WS, "shop", "uses", "")] == [older, *ids]
    assert [f.id for f in graph.current_facts(WS, "github.com/acme/shop", limit=2)] == list(reversed(ids))[:2]


def test_times_compare_as_text_in_byte_order(graph: GraphStore) -> None:
    # Both spellings of a time the store is handed: with microseconds and without. As text
    # "09:00:00.000000Z" sorts before "09:00:00Z" ('.' < 'Z'), on every engine.
    with_micro = graph.insert(fact(obj="a", valid_from="2026-03-02T09:00:00.000000Z"))
    plain = graph.insert(fact(obj="b", valid_from="2026-03-02T09:00:00Z"))
    assert [f.id for f in graph.timeline(WS, "shop")] == [with_micro, plain]
    assert [f.id for f in graph.query(WS, "shop", as_of="2026-03-02T09:00:00.5Z")] == [with_micro]
    assert [f.id for f in graph.query(WS, "shop", as_of="2026-03-02T09:00:00Z")] == [plain, with_micro]


def test_the_incoming_side_counts_entity_objects_only(graph: GraphStore) -> None:
    as_entity = graph.insert(fact(subject="billing", obj="shop"))
    graph.insert(fact(subject="billing", predicate="note", obj="shop", kind="text"))  # the word, not the entity
    out = graph.insert(fact(obj="redis"))
    assert [f.id for f in graph.query(WS, "shop", direction="in")] == [as_entity]
    assert [f.id for f in graph.query(WS, "shop", direction="out")] == [out]
    assert {f.id for f in graph.query(WS, "shop")} == {as_entity, out}


def test_a_long_text_object_is_stored_and_found_whole(graph: GraphStore) -> None:
    import random

    rng = random.Random(7)  # text that does not compress: longer than an index entry may be
    sentence = " ".join("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(8)) for _ in range(1500))
    fid = graph.insert(fact(predicate="decided", obj=sentence, kind="text", area="queue"))
    assert [f.id for f in graph.same_fact(WS, "shop", "decided", sentence, "queue")] == [fid]
    got = graph.get(WS, fid)
    assert got is not None and got.object == sentence == got.object_name


def test_text_is_redacted_on_the_way_in(graph: GraphStore, notes: NotesStore) -> None:
    from kenning.redacted import Redacted

    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    raw = f"token {secret} was used"
    # A str that came around the types (not Redacted) is redacted by the store itself.
    fid = graph.insert(fact(obj=raw, kind="text", evidence=raw))
    graph.ensure_entity(WS, "tool", raw, "tool", NOW)  # type: ignore[arg-type]
    notes.diary_add(WS, "p", raw, NOW, raw)  # type: ignore[arg-type]
    notes.set_value(WS, "p", "k", raw, NOW)  # type: ignore[arg-type]
    got = graph.get(WS, fid)
    texts = [got.object, got.evidence] if got else []
    texts += [e.name for e in graph.entities(WS)]
    texts += [t for e in notes.all_diary(WS) for t in (e.agent, e.text)]
    texts += [v.value for v in notes.all_values(WS)]
    assert len(texts) == 6 and all(secret not in t for t in texts)
    assert all(isinstance(t, Redacted) for t in texts[1:])  # read back as stored text


def test_progress_of_one_kind_only(graph: GraphStore) -> None:
    graph.set_progress(WS, "claude:s9", "escalate", 4, NOW)
    assert graph.progress_of(WS, "extract") == {} and graph.progress_of(WS, "escalate") == {"claude:s9": 4}
    graph.forget_progress(WS, "claude:other")  # another session's: nothing of this one goes
    assert graph.progress(WS, "claude:s9", "escalate") == 4


def test_progress_is_per_workspace(graph: GraphStore) -> None:
    """The same session id in two workspaces (a session pulled into a team's workspace and kept
    in one's own) has a progress in each: setting, listing and forgetting touch one only."""
    graph.set_progress(WS, "claude:s1", "extract", 12, NOW)
    graph.set_progress("other", "claude:s1", "extract", 40, NOW)
    graph.set_progress("other", "claude:s2", "extract", 5, NOW)
    assert graph.progress_of(WS, "extract") == {"claude:s1": 12}
    assert graph.progress_of("other", "extract") == {"claude:s1": 40, "claude:s2": 5}
    assert graph.progress(WS, "claude:s1", "extract") == 12 and graph.progress(WS, "claude:s2", "extract") == 0
    graph.forget_progress("other", "claude:s1")
    assert graph.progress(WS, "claude:s1", "extract") == 12 and graph.progress_of("other", "extract") == {"claude:s2": 5}
    graph.forget_progress(WS, "claude:s1")
    assert graph.progress_of(WS, "extract") == {} and graph.progress_of("other", "extract") == {"claude:s2": 5}


def test_diary_ties_and_order_of_writing(notes: NotesStore) -> None:
    late = notes.diary_add(WS, "p", redacted("codex"), "2026-03-05T10:00:00Z", redacted("late"))
    a = notes.diary_add(WS, "p", redacted("codex"), "2026-03-01T10:00:00Z", redacted("same moment, first"))
    b = notes.diary_add(WS, "p", redacted("codex"), "2026-03-01T10:00:00Z", redacted("same moment, second"))
    assert [e.id for e in notes.diary(WS, "p")] == [late, b, a]  # newest first, ties newest written first
    assert [e.id for e in notes.all_diary(WS)] == [a, b, late]  # oldest first, ties by id
    assert [e.id for e in notes.diary(WS, "p", since="2026-03-01T10:00:00Z")] == [late, b, a]  # since is inclusive
    assert [e.id for e in notes.diary(WS, "p", limit=2)] == [late, b]
    assert notes.diary_count(WS, "p", "codex", "2026-03-01T10:00:00Z", "same moment, first") == 1
    assert notes.diary_count(WS, "p", "claude-code", "2026-03-01T10:00:00Z", "same moment, first") == 0


def test_values_keys_sort_in_byte_order(notes: NotesStore) -> None:
    for key in ("b", "B", "a.z", "a_z", "a-z", "_x"):
        notes.set_value(WS, "p", key, redacted(key), NOW)
    assert [v.key for v in notes.values(WS, "p")] == sorted(["b", "B", "a.z", "a_z", "a-z", "_x"])
    assert notes.values(WS, "q") == [] and notes.value(WS, "q", "b") is None


# -- windows and time, as a property ----------------------------------------------------------
_examples = iter(range(1_000_000))


def _at(hours: int) -> str:
    from datetime import UTC, datetime, timedelta

    from kenning.clock import to_iso

    return to_iso(datetime(2026, 3, 1, tzinfo=UTC) + timedelta(hours=hours))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(st.sampled_from(["uses", "owns"]), st.sampled_from(["a", "b", "in"]),
                               st.integers(0, 48), st.none() | st.integers(1, 24), st.floats(0.0, 1.0)),
                     max_size=10))  # fmt: skip
def test_as_of_timeline_and_current_follow_the_windows(graph: GraphStore, rows: list[tuple[str, str, int, int | None,
                                                                                          float]]) -> None:  # fmt: skip
    # One store for every example: each writes its own subject and project.
    n = next(_examples)
    subject, project = f"s{n}", f"p{n}"
    model: list[FactRow] = []
    for predicate, obj, start, length, confidence in rows:
        # "in": a fact of another subject about this one (the incoming side)
        who, what = (f"other{n}", subject) if obj == "in" else (subject, obj)
        valid_to = None if length is None else _at(start + length)
        if valid_to is None and any(f.current and (f.subject, f.predicate, f.object) == (who, predicate, what)
                                    for f in model):  # fmt: skip
            continue  # one current copy of a fact
        row = fact(who, predicate, what, valid_from=_at(start), valid_to=valid_to, project=project,
                   confidence=confidence)  # fmt: skip
        model.append(replace(row, id=graph.insert(row)))

    def newest_first(facts: list[FactRow]) -> list[int]:
        return [f.id for f in sorted(facts, key=lambda f: (f.valid_from, f.id), reverse=True)]

    for hour in range(0, 80, 3):
        t = _at(hour)
        holds = [f for f in model if f.valid_from <= t and (f.valid_to is None or t < f.valid_to)]
        assert [f.id for f in graph.query(WS, subject, as_of=t)] == newest_first(holds), t
        owns = [f for f in holds if f.predicate == "owns" and f.subject == subject]
        assert [f.id for f in graph.query(WS, subject, as_of=t, predicate="owns", direction="out")] == newest_first(owns)
    assert [f.id for f in graph.timeline(WS, subject)] == list(reversed(newest_first(model)))
    current = [f for f in model if f.current]
    assert [f.id for f in graph.current_facts(WS, project, limit=100)] == newest_first(current)
    sure = [f for f in current if f.confidence >= 0.5]
    assert [f.id for f in graph.current_facts(WS, project, min_confidence=0.5, limit=100)] == newest_first(sure)
    for f in model:
        got = graph.get(WS, f.id)
        assert got is not None and (got.valid_from, got.valid_to, got.confidence) == (f.valid_from, f.valid_to,
                                                                                      f.confidence)  # fmt: skip
