"""recall: BM25 with stemming, evidence and abstention, confidence, recency, why-first, as_of, also."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

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
    # One ordinary shared word does not answer for a name the store has never seen.
    assert core.recall(place, "configure the Kubernetes ingress for staging").hits == []
    # The same word answers when it is what the query is about.
    hits = core.recall(place, "configure the upload quota").hits
    assert hits and hits[0].memory.ref == filled["refusal"]


def test_words_the_store_never_saw_do_not_veto_a_memory(core: Core, place: Place, filled: dict[str, str]) -> None:
    """"choose", "database" and "rollback" are in no memory: the words that are still decide."""
    hits = core.recall(place, "which database engine do the integration tests choose").hits
    assert hits and hits[0].memory.ref in (filled["decision"], filled["fact_pg"])
    assert not hits[0].weak


def test_hits_under_the_bar_come_only_beside_one_above_it_and_are_marked_weak(
    core: Core, place: Place, filled: dict[str, str]
) -> None:
    # Six words no memory holds raise the bar above a one-word match ("upload"), not above
    # the memory holding two of the query's words.
    query = "webhook deliveries upload payment signature verification replay nonce timestamp"
    hits = core.recall(place, query).hits
    assert [h.memory.ref for h in hits] == [filled["retry"], filled["refusal"]]
    assert [h.weak for h in hits] == [False, True]
    assert core.recall(place, "upload payment signature verification replay nonce timestamp").hits == []


def test_a_fresh_store_answers_why_and_related_words_but_not_other_topics(core: Core, place: Place) -> None:
    """The examples of issue 12, on a store holding one decision."""
    ref = add(core, place, "We chose SQLite for the local store", kind=Kind.DECISION,
              reason="it needs no server and ships with Python")  # fmt: skip
    assert [h.memory.ref for h in core.recall(place, "why did we choose sqlite").hits] == [ref]
    assert [h.memory.ref for h in core.recall(place, "local store database").hits] == [ref]
    assert core.recall(place, "kubernetes helm chart rollback").hits == []


def test_identifiers_are_found_by_their_parts_and_whole(core: Core, place: Place) -> None:
    entry = add(core, place, "Keep the API client in ConfigEntry.runtime_data, not in hass.data")
    limit = add(core, place, "Sensor platforms set PARALLEL_UPDATES to 0 when the coordinator polls")
    assert core.recall(place, "config entry runtime data").hits[0].memory.ref == entry
    assert core.recall(place, "PARALLEL_UPDATES").hits[0].memory.ref == limit
    assert core.recall(place, "parallel updates for a sensor").hits[0].memory.ref == limit


def test_an_unseen_word_is_looked_up_by_prefix_and_as_an_acronym(core: Core, place: Place) -> None:
    lint = add(core, place, "Run the linter over every changed file before opening a PR")
    conf = add(core, place, "Configuration keys are validated when the service starts")
    assert core.recall(place, "what to do before my pull request").hits[0].memory.ref == lint
    assert core.recall(place, "config validation").hits[0].memory.ref == conf


def test_an_acronym_stands_for_words_written_together_only(core: Core, place: Place) -> None:
    lint = add(core, place, "Run the linter over every changed file before opening a PR")
    add(core, place, "Reviews wait for the build to pass")
    assert core.recall(place, "what to do before my pull request").hits[0].memory.ref == lint
    # "pull" and "request" a comma apart are two words, not the phrase PR stands for.
    assert core.recall(place, "pull, request").hits == []


def test_an_acronym_in_capitals_is_no_word_cut_short(core: Core, place: Place) -> None:
    add(core, place, "Restart the worker after changing its queue settings")
    assert core.recall(place, "REST").hits == []
    assert core.recall(place, "rest").hits  # a word written small may be cut short


def test_a_known_technology_the_project_never_mentions_raises_the_bar_most(core: Core, place: Place) -> None:
    """One shared specific word answers for a name no memory holds, not for a technology kenning
    knows by name; a plural of an acronym is the acronym (PRs: PR)."""
    add(core, place, "Tracing exporters are configured in the collector pipeline")
    add(core, place, "PRs that change the pipeline need a maintainer review")
    add(core, place, "The query service reads spans from the storage backend")
    assert core.recall(place, "Zipkin exporters in the pipeline").hits
    assert core.recall(place, "Kubernetes exporters in the pipeline").hits == []
    assert core.recall(place, "who reviews a PR that changes the pipeline").hits


def test_names_written_together_are_one_name(core: Core, place: Place) -> None:
    """Jetpack Compose is one unknown name, raising the bar once: the store's own words still answer."""
    from kenning.core.recall import _unseen
    from kenning.domain.query import parse

    assert _unseen(parse("migrate the screens to Jetpack Compose"), set(), set())[1] == 1
    assert _unseen(parse("use Jetpack and Compose"), set(), set())[1] == 2


def test_a_why_question_answered_by_a_decision_may_name_a_case_no_memory_holds(core: Core, place: Place) -> None:
    """The Hue bridge is one of the integrations the decision's rule covers: in a why-question
    that a decision answers, a name no memory holds raises the bar as a word does. The same
    name in a task still counts as a name, and a known technology still counts as one."""
    rule = add(core, place, "Integrations that talk to devices are configured through the UI, not YAML",
               kind=Kind.DECISION, reason="discovery does not work with YAML")  # fmt: skip
    add(core, place, "Integrations poll local devices at most every 5 seconds")
    add(core, place, "New integrations ship with a config flow and tests")
    add(core, place, "The recorder keeps ten days of history by default")
    add(core, place, "Pull requests change one integration at a time")
    why = core.recall(place, "why can't I set up the Hue bridge in YAML anymore").hits
    assert why and why[0].memory.ref == rule
    assert core.recall(place, "set up the Hue bridge in YAML").hits == []
    assert core.recall(place, "why can't I set up Kubernetes in YAML anymore").hits == []


def test_decisions_come_first_for_a_why_question(core: Core, place: Place, filled: dict[str, str]) -> None:
    plain = core.recall(place, "postgres integration tests container").hits
    assert plain[0].memory.ref == filled["fact_pg"]
    why = core.recall(place, "why postgres integration tests container").hits
    assert why[0].memory.ref == filled["decision"]


def test_confidence_scales_the_score(core: Core, place: Place) -> None:
    core.set_policy(place, "workspace", "preset", "everything")  # the default keeps no app writes
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


def test_recall_reports_a_citation_as_it_is_now(core: Core, tmp_path: Path) -> None:
    """Issue 12: after the cited lines change, the very next recall says `changed` (no sweep
    in between); a cited file removed takes its memory out of the answer."""
    import subprocess

    root = tmp_path / "shop"
    (root / "src").mkdir(parents=True)
    (root / "src" / "cart.py").write_text("def merge(a, b):\n    return a + b\n\ndef total(c):\n    return sum(c)\n")
    (root / "src" / "tax.py").write_text("RATE = 0.2\n")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    place = core.place(root)
    merge = add(core, place, "Basket merge keeps the newer quantity of each line", source_ref="src/cart.py:1-2")
    tax = add(core, place, "Basket tax uses one flat rate", source_ref="src/tax.py")
    found = {h.memory.ref: h.memory.citation for h in core.recall(place, "basket merge tax").hits}
    assert found == {merge: Citation.SAME, tax: Citation.SAME}
    # Lines below the cited ones change: still the same citation.
    (root / "src" / "cart.py").write_text("def merge(a, b):\n    return a + b\n\ndef total(c):\n    return 0\n")
    assert {h.memory.citation for h in core.recall(place, "basket merge").hits} == {Citation.SAME}
    (root / "src" / "cart.py").write_text("def merge(a, b):\n    return b\n")
    hits = core.recall(place, "basket merge").hits
    assert [(h.memory.ref, h.memory.citation) for h in hits][0] == (merge, Citation.CHANGED)
    assert core.get(merge).citation is Citation.CHANGED
    assert core.history(merge).events[-1].event == "citation"
    (root / "src" / "tax.py").unlink()
    assert tax not in [h.memory.ref for h in core.recall(place, "basket merge tax").hits]
