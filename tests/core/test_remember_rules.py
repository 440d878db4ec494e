"""Every write rule of remember refuses with a fix, and nothing is stored when it does."""

from __future__ import annotations

import pytest

from kenning.core.remember import RememberRequest
from kenning.core.scopes import Place
from kenning.core.service import Core
from kenning.domain.write_rules import parse_trigger
from kenning.errors import Invalid, Refused
from kenning.model import Kind, Origin, Status


def count(core: Core, place: Place) -> int:
    return len(core.list_memories(place, include_inactive=True))


def agent(text: str, **kw: object) -> RememberRequest:
    return RememberRequest(text=text, origin=Origin.AGENT, source="claude-code", **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "kw", "fix_word"),
    [
        ("We chose SQLite for the store", {"kind": Kind.DECISION}, "reason"),
        ("I'm currently editing the login form", {}, "durable"),
        ("main is 3 commits ahead of origin", {}, "repository state"),
        ("The build takes 41 s on CI, 12 s locally and 3 s cached", {}, "reason"),
        ("The staging deploy is blocked on review", {"kind": Kind.STATE}, "subject"),
    ],
)
def test_agent_writes_that_break_a_rule_are_refused_with_a_fix(core: Core, place: Place, text: str, kw: dict[str, object], fix_word: str) -> None:
    with pytest.raises(Refused) as err:
        core.remember(place, agent(text, **kw))
    assert fix_word in str(err.value)
    assert err.value.fix
    assert count(core, place) == 0


def test_a_decision_with_its_reason_in_the_sentence_or_in_reason_is_kept(core: Core, place: Place) -> None:
    a = core.remember(place, agent("We chose SQLite because it needs no server", kind=Kind.DECISION))
    b = core.remember(place, agent("We chose uv for installs", kind=Kind.DECISION, reason="it is fast and locks"))
    assert a.outcome == b.outcome == "stored"
    assert b.memory is not None and b.memory.reason == "it is fast and locks"
    assert a.memory is not None and a.memory.confidence == pytest.approx(0.95)


def test_decision_confidence_levels(core: Core, place: Place) -> None:
    for level, value in (("medium", 0.8), ("low", 0.6)):
        r = core.remember(place, agent(f"We went with {level} caching because reads dominate", confidence=level))
        assert r.memory is not None and r.memory.kind is Kind.DECISION
        assert r.memory.confidence == pytest.approx(value)
    with pytest.raises(Invalid):
        core.remember(place, agent("We went with redis because it is shared", confidence="certain"))


def test_a_person_is_held_only_to_the_transient_and_reason_rules(core: Core, place: Place) -> None:
    person = RememberRequest(text="main is 3 commits ahead, 2 files and 4 tests", origin=Origin.PERSON)
    assert core.remember(place, person).outcome == "stored"
    with pytest.raises(Refused):
        core.remember(place, RememberRequest(text="I'm currently fixing the cache", origin=Origin.PERSON))


@pytest.mark.parametrize(
    "text",
    [
        "Do not put [WIP] in PR titles; open a draft pull request instead.",
        "Move the issue to In progress when you start working on it.",
        "PR titles never start with WIP; use the draft state for unfinished work.",
        "Mark a pull request that is still in progress as a draft rather than adding 'In progress' to its title.",
        'Pull requests marked "work in progress" are not reviewed.',
    ],
)
def test_rules_that_mention_a_status_word_are_durable(core: Core, place: Place, text: str) -> None:
    """Issue 12: preferences about PR titles were refused as transient for naming "[WIP]" or
    "In progress". A status word quoted, bracketed, written as a label or in a rule about
    such work is a mention; only a sentence giving its own work that status is transient."""
    assert core.remember(place, agent(text, kind=Kind.PREFERENCE, subject="pr.titles")).outcome == "stored"


@pytest.mark.parametrize(
    "text",
    [
        "The auth refactor is in progress.",
        "WIP: moving the billing code to the new service",
        "Work in progress on the login form",
        "Still in progress: the migration script",
        "The migration is still a work in progress",
    ],
)
def test_a_sentence_that_gives_its_own_work_a_status_is_transient(core: Core, place: Place, text: str) -> None:
    with pytest.raises(Refused) as err:
        core.remember(place, agent(text))
    assert "transient" in str(err.value)
    assert count(core, place) == 0


def test_three_numbers_are_refused_for_agents_but_two_are_fine(core: Core, place: Place) -> None:
    assert core.remember(place, agent("Node 24 and Python 3.12 are the supported runtimes")).outcome == "stored"


@pytest.mark.parametrize("trigger", ["shell:.*", "shell:", "read:*", "edit:**", "shell:[a-z]"])
def test_a_trigger_that_matches_everything_is_refused(core: Core, place: Place, trigger: str) -> None:
    with pytest.raises((Refused, Invalid)) as err:
        core.remember(place, agent("Run the migrations before the tests", when=parse_trigger(trigger)))
    assert err.value.fix
    assert count(core, place) == 0


def test_a_trigger_makes_a_lesson(core: Core, place: Place) -> None:
    r = core.remember(place, agent("Publish with the release script, not npm publish, so the changelog is built",
                                   when=parse_trigger("shell:^npm publish")))  # fmt: skip
    assert r.memory is not None and r.memory.kind is Kind.LESSON
    assert r.memory.trigger is not None and r.memory.trigger.pattern == "^npm publish"


def test_bad_trigger_syntax_is_invalid_with_a_fix() -> None:
    for bad in ("npm publish", "shell:(unclosed", "paste:*.py"):
        with pytest.raises((Invalid, Refused)) as err:
            parse_trigger(bad)
        assert err.value.fix


def test_a_subject_that_is_not_a_key_is_dropped_with_a_note(core: Core, place: Place) -> None:
    for subject in ("feature/login", "ui theme", "release.2026-03-01", "snapshot.20260301"):
        r = core.remember(place, agent(f"Prefer the compact layout for {subject.split('.')[0]}", kind=Kind.PREFERENCE, subject=subject))
        assert r.memory is not None and r.memory.subject == ""
        assert any("dropped" in w for w in r.warnings)


def test_state_from_an_agent_needs_a_subject_but_with_one_is_stored(core: Core, place: Place) -> None:
    r = core.remember(place, agent("The staging deploy waits on the schema review", kind=Kind.STATE, subject="deploy.staging.state"))
    assert r.memory is not None and r.memory.kind is Kind.STATE and r.memory.subject == "deploy.staging.state"


def test_banned_words_refuse_agents_and_the_policy_level_is_named(core: Core, place: Place) -> None:
    core.set_policy(place, "workspace", "banned_words", "projectx")
    with pytest.raises(Refused) as err:
        core.remember(place, agent("ProjectX ships from the legacy branch"))
    assert "projectx" in str(err.value).lower()
    # What a person saves is never filtered.
    assert core.remember(place, RememberRequest(text="ProjectX ships from the legacy branch", origin=Origin.PERSON)).outcome == "stored"


def test_kinds_and_writers_that_policy_does_not_keep_are_refused(core: Core, place: Place) -> None:
    core.set_policy(place, "project", "preset", "decisions-and-lessons")
    with pytest.raises(Refused) as err:
        core.remember(place, agent("The api lives in services/api"))
    assert "fact" in str(err.value)
    core.set_policy(place, "project", "writers", "apps")
    with pytest.raises(Refused) as err2:
        core.remember(place, agent("We chose gRPC because of streaming", kind=Kind.DECISION))
    assert "agents" in str(err2.value)
    assert core.remember(place, RememberRequest(text="The api lives in services/api", origin=Origin.PERSON)).outcome == "stored"


def test_empty_and_oversized_text_is_invalid(core: Core, place: Place) -> None:
    with pytest.raises(Invalid):
        core.remember(place, agent("   "))
    with pytest.raises(Invalid):
        core.remember(place, agent("word " * 1000))


def test_kind_is_inferred_from_the_text(core: Core, place: Place) -> None:
    cases = {
        "We decided to keep the monorepo because tooling is shared": Kind.DECISION,
        "I prefer small commits with one concern each": Kind.PREFERENCE,
        "The payments service talks to Stripe through a queue": Kind.FACT,
    }
    for text, kind in cases.items():
        r = core.remember(place, agent(text))
        assert r.memory is not None and r.memory.kind is kind, text


def test_secrets_in_text_become_secret_before_the_first_write(core: Core, place: Place, settings: object) -> None:
    key = "AKIA" + "Q7X2M4N8P0R3T5V9"
    r = core.remember(place, RememberRequest(text=f"The staging key is {key} for the uploader", origin=Origin.PERSON))
    assert r.memory is not None and "[secret]" in r.memory.text and key not in r.memory.text
    core.store.db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # type: ignore[attr-defined]
    db_path = core.settings.db_path  # type: ignore[union-attr]
    raw = b"".join(p.read_bytes() for p in db_path.parent.iterdir() if p.name.startswith(db_path.name))
    assert key.encode() not in raw


def test_replaces_retires_named_refs_in_the_same_project_and_reports_the_rest(core: Core, place: Place) -> None:
    old = core.remember(place, agent("Deploys run from the ops laptop")).memory
    other_place = core.place(project="github.com/acme/other")
    foreign = core.remember(other_place, agent("Builds run on the shared runner")).memory
    assert old is not None and foreign is not None
    r = core.remember(place, agent("Deploys run from the CI pipeline only", replaces=(old.ref, foreign.ref, "m:00000000")))
    assert r.retired == [old.ref]
    assert set(r.unplaced) == {foreign.ref, "m:00000000"}
    assert core.get(old.ref).status is Status.SUPERSEDED
    assert core.get(foreign.ref).status is Status.ACTIVE
