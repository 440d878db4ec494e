"""recall: BM25 with stemming, coverage, confidence, recency, why-first, as_of, also."""

from __future__ import annotations

from datetime import timedelta

import pytest

from kenning.clock import FixedClock, to_iso
from kenning.core.remember import RememberRequest
from kenning.core.scopes import Place
from kenning.core.service import Core
from kenning.errors import Invalid
from kenning.model import Citation, Kind, Origin, Status


def add(core: Core, place: Place, text: str, **kw: object) -> str:
    r = core.remember(place, RememberRequest(text=text, origin=Origin.PERSON, **kw))  # type: ignore[arg-type]
    assert r.memory is not None, r
    return r.memory.ref


@pytest.fixture
def filled(core: Core, place: Place) -> dict[str, str]:
    return {
        "refusal": add(core, place, "The upload API refuses files larger than the configured quota"),
        "retry": add(core, place, "Webhook deliveries are retried with exponential backoff"),
        "decision": add(core, place, "We chose Postgres for the integration tests because of transactional DDL", kind=Kind.DECISION),
        "fact_pg": add(core, place, "Postgres runs in a container during the integration tests"),
        "misc": add(core, place, "The design system lives in the ui package"),
    }


def test_stemming_finds_other_forms_of_a_word(core: Core, place: Place, filled: dict[str, str]) -> None:
    hits = core.recall(place, "upload refusal").hits
    assert hits and hits[0].memory.ref == filled["refusal"]


def test_every_result_line_carries_its_ref(core: Core, place: Place, filled: dict[str, str]) -> None:
    from kenning.core.render import memory_line

    for hit in core.recall(place, "postgres").hits:
        assert memory_line(hit.memory).startswith(hit.memory.ref + " ")


def test_a_query_nothing_covers_returns_nothing(core: Core, place: Place, filled: dict[str, str]) -> None:
    assert core.recall(place, "kubernetes helm chart rollout").hits == []
    # One shared common word is not enough coverage for a long query.
    assert core.recall(place, "configure the kubernetes helm chart quota rollout strategy").hits == []


def test_results_just_above_the_bar_are_marked_weak(core: Core, place: Place, filled: dict[str, str]) -> None:
    hits = core.recall(place, "webhook deliveries payment signature").hits
    assert [h.memory.ref for h in hits] == [filled["retry"]]
    assert hits[0].weak
    strong = core.recall(place, "webhook deliveries retried").hits
    assert not strong[0].weak


def test_decisions_come_first_for_a_why_question(core: Core, place: Place, filled: dict[str, str]) -> None:
    plain = core.recall(place, "postgres integration tests container").hits
    assert plain[0].memory.ref == filled["fact_pg"]
    why = core.recall(place, "why postgres integration tests container").hits
    assert why[0].memory.ref == filled["decision"]


def test_confidence_scales_the_score(core: Core, place: Place) -> None:
    low = core.remember(place, RememberRequest(text="Feature flags are read from the environment", origin=Origin.APP)).memory
    high = core.remember(place, RememberRequest(text="Feature flags are read from the flags service", origin=Origin.PERSON)).memory
    assert low is not None and high is not None and low.confidence < high.confidence
    hits = core.recall(place, "feature flags read").hits
    assert [h.memory.ref for h in hits][:2] == [high.ref, low.ref]


def test_recency_lifts_a_newer_memory_over_an_equally_good_older_one(core: Core, place: Place, clock: FixedClock) -> None:
    old = add(core, place, "Invoices are rendered with the pdf worker")
    clock.advance(days=60)
    new = add(core, place, "Receipts are rendered with the pdf worker")
    hits = core.recall(place, "rendered pdf worker").hits
    assert [h.memory.ref for h in hits] == [new, old]


def test_near_tie_on_the_same_subject_puts_the_newer_first(core: Core, place: Place, clock: FixedClock) -> None:
    a = add(core, place, "Logs ship to Loki via the agent sidecar", kind=Kind.PREFERENCE, subject="ops.logs")
    core.store.update(core.get(a).evolve(status=Status.ACTIVE))
    clock.advance(minutes=5)
    # A second active memory on the same subject, different slot axis kind (fact keeps both).
    b = add(core, place, "Logs ship to Loki via the node agent sidecar")
    core.store.update(core.get(b).evolve(subject="ops.logs", confidence=core.get(a).confidence))
    hits = core.recall(place, "logs ship loki sidecar agent").hits
    assert hits[0].memory.ref == b


def test_as_of_answers_from_what_was_believed_then(core: Core, place: Place, clock: FixedClock) -> None:
    day1 = clock.now()
    first = add(core, place, "Use the dark theme in the admin console", kind=Kind.PREFERENCE, subject="ui.theme")
    clock.advance(days=2)
    second = add(core, place, "Use the light theme in the admin console", kind=Kind.PREFERENCE, subject="ui.theme")
    now_hits = core.recall(place, "admin console theme").hits
    assert [h.memory.ref for h in now_hits] == [second]
    then = core.recall(place, "admin console theme", as_of=to_iso(day1)[:10]).hits
    assert [h.memory.ref for h in then] == [first]
    assert then[0].until is not None and then[0].until > day1
    before = core.recall(place, "admin console theme", as_of=to_iso(day1 - timedelta(days=1))[:10]).hits
    assert before == []


def test_also_merges_other_phrasings(core: Core, place: Place, filled: dict[str, str]) -> None:
    assert core.recall(place, "exponential backoff").hits[0].memory.ref == filled["retry"]
    hits = core.recall(place, "design tokens", also=["exponential backoff"]).hits
    assert {h.memory.ref for h in hits} >= {filled["retry"]}
    with pytest.raises(Invalid):
        core.recall(place, "x", also=["a", "b", "c", "d"])


def test_count_defaults_to_8_and_is_bounded(core: Core, place: Place) -> None:
    for i in range(30):
        add(core, place, f"Service number {chr(65 + i % 26)}{i} exposes a metrics endpoint")
    assert len(core.recall(place, "metrics endpoint service").hits) == 8
    assert len(core.recall(place, "metrics endpoint service", count=25).hits) == 25
    for bad in (0, 26):
        with pytest.raises(Invalid):
            core.recall(place, "metrics", count=bad)


def test_recall_never_returns_hidden_held_retired_stale_or_gone(core: Core, place: Place, clock: FixedClock) -> None:
    hidden = add(core, place, "Zebra cache hidden note")
    held = add(core, place, "Zebra cache held note")
    retired = add(core, place, "Zebra cache retired note")
    gone = add(core, place, "Zebra cache gone note", source_ref="src/zebra.py")
    changed = add(core, place, "Zebra cache changed note", source_ref="src/zebra2.py")
    state = add(core, place, "Zebra cache state note", kind=Kind.STATE, subject="zebra.cache.state")
    core.hide(hidden)
    core.hold(held)
    core.retire(retired, "wrong")
    core.store.update(core.get(gone).evolve(citation=Citation.GONE))
    core.store.update(core.get(changed).evolve(citation=Citation.CHANGED))
    refs = {h.memory.ref for h in core.recall(place, "zebra cache note", count=25).hits}
    assert refs == {changed, state}
    marked = {h.memory.ref: h for h in core.recall(place, "zebra cache note", count=25).hits}
    from kenning.core.render import hit_marks

    assert "citation: changed" in hit_marks(marked[changed])
    clock.advance(days=15)
    assert {h.memory.ref for h in core.recall(place, "zebra cache note", count=25).hits} == {changed}
    assert state in {h.memory.ref for h in core.recall(place, "zebra cache state note", as_of=to_iso(clock.now())).hits}


def test_recall_stays_inside_its_project_and_workspace(core: Core, place: Place) -> None:
    add(core, place, "Quokka deploys use blue green")
    other = core.place(project="github.com/acme/other")
    assert core.recall(other, "quokka deploys blue green").hits == []


def test_bad_as_of_is_invalid_with_a_fix(core: Core, place: Place) -> None:
    with pytest.raises(Invalid) as err:
        core.recall(place, "anything", as_of="last tuesday")
    assert "2026" in err.value.fix
