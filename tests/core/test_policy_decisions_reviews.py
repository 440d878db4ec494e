"""Policies with inheritance, decision docs and their Outcome, Needs review."""

from __future__ import annotations

import pytest

from kenning.core.remember import RememberRequest
from kenning.core.scopes import Place
from kenning.core.service import Core
from kenning.domain.write_rules import parse_trigger
from kenning.errors import Invalid, Refused
from kenning.model import DecisionDoc, Kind, Origin, Status
from kenning.store.protocol import ScopeRow


def add(core: Core, place: Place, text: str, **kw: object) -> str:
    kw.setdefault("origin", Origin.AGENT)
    kw.setdefault("source", "codex")
    r = core.remember(place, RememberRequest(text=text, **kw))  # type: ignore[arg-type]
    assert r.memory is not None, r
    return r.memory.ref


def test_policy_inherits_project_group_workspace_default_and_names_the_source(core: Core, clock: object) -> None:
    core.store.upsert_scope(ScopeRow("local", "group:web", "group", "web", "", "", core.now()))
    core.store.upsert_scope(ScopeRow("local", "github.com/acme/site", "project", "site", "", "group:web", core.now()))
    place = core.place(project="github.com/acme/site")
    assert place.group == "group:web"
    assert core.policy(place).kinds.source == "default"
    core.set_policy(place, "workspace", "preset", "decisions-and-lessons")
    assert core.policy(place).kinds.value == ["decision", "lesson"] and core.policy(place).kinds.source == "workspace"
    core.set_policy(place, "group", "kinds", "decision,fact")
    assert core.policy(place).kinds.source == "group"
    core.set_policy(place, "project", "capture", "off")
    pol = core.policy(place)
    assert pol.capture.value is False and pol.capture.source == "project"
    core.set_policy(place, "workspace", "banned_words", "atlas")
    core.set_policy(place, "project", "banned_words", "zeus")
    assert set(core.policy(place).banned_words.value) == {"atlas", "zeus"}  # type: ignore[arg-type]


def test_capture_switch_is_readable_from_a_database(core: Core, place: Place) -> None:
    from kenning.core.policy import capture_enabled

    assert capture_enabled(core.store, "local", place.project)
    core.set_policy(place, "project", "capture", "off")
    assert not capture_enabled(core.store, "local", place.project)


def test_bad_policy_values_are_invalid_with_a_fix(core: Core, place: Place) -> None:
    for setting, value in (("preset", "all"), ("kinds", "decision,opinion"), ("capture", "maybe"), ("colour", "x")):
        with pytest.raises(Invalid) as err:
            core.set_policy(place, "project", setting, value)
        assert err.value.fix


def test_a_new_policy_applies_from_now_on_and_kept_memories_stay(core: Core, place: Place) -> None:
    ref = add(core, place, "The docs site builds with mkdocs")
    core.set_policy(place, "project", "preset", "decisions-and-lessons")
    assert core.get(ref).status is Status.ACTIVE
    assert core.recall(place, "docs site mkdocs").hits


def test_a_decision_writes_a_doc_and_the_same_title_keeps_the_outcome(core: Core, place: Place) -> None:
    first = core.record_decision(place, RememberRequest(
        text="We use Celery for background jobs", reason="the team knows it", title="Job queue", origin=Origin.AGENT, source="claude-code"))  # fmt: skip
    doc = first.doc
    assert doc is not None and doc.outcome == (DecisionDoc.OUTCOME_PENDING,)
    assert first.remembered.memory is not None and first.remembered.memory.kind is Kind.DECISION
    doc = core.add_outcome(doc, "Shipped in Add job queue (abc1234), 2026-03-02")
    doc = core.add_outcome(doc, "Shipped in Add job queue (abc1234), 2026-03-02")
    assert doc.outcome == ("Shipped in Add job queue (abc1234), 2026-03-02",)
    doc = core.add_outcome(doc, "Reverted: Add job queue was undone in def5678")
    assert len(doc.outcome) == 2
    second = core.record_decision(place, RememberRequest(
        text="We use Dramatiq for background jobs", reason="Celery's broker setup was fragile", title="Job queue", origin=Origin.AGENT, source="claude-code"))  # fmt: skip
    assert second.doc is not None and second.doc.id == doc.id
    assert second.doc.reason == "Celery's broker setup was fragile" and second.doc.outcome == doc.outcome
    # A teammate's doc with that title is left alone: they get their own.
    mate = core.record_decision(place, RememberRequest(
        text="We use RQ for background jobs", reason="it is simplest", title="Job queue", origin=Origin.AGENT, source="gemini"))  # fmt: skip
    assert mate.doc is not None and mate.doc.id != doc.id
    assert core.store.decision_doc_by_id(core.workspace, doc.id).reason == "Celery's broker setup was fragile"  # type: ignore[union-attr]


def test_record_decision_without_a_reason_is_refused(core: Core, place: Place) -> None:
    with pytest.raises(Refused):
        core.record_decision(place, RememberRequest(text="We use Celery", title="Job queue"))
    assert core.decision_docs(place) == []


def test_contradiction_review_keep_existing_replace_keep_both(core: Core, place: Place) -> None:
    firm = add(core, place, "Mock the clock in scheduler tests", origin=Origin.PERSON)
    items = []
    for tool in ("a", "b", "c"):
        r = core.remember(place, RememberRequest(text="Never mock the clock in scheduler tests", origin=Origin.AGENT, source=tool))
        assert r.review is not None
        items.append(r.review.id)
    core.resolve_review(place, items[0], "keep-existing")
    assert len(core.list_memories(place)) == 1
    core.resolve_review(place, items[1], "keep-both")
    assert len(core.list_memories(place)) == 2
    core.resolve_review(place, items[2], "replace")
    assert core.get(firm).status is Status.SUPERSEDED
    assert core.reviews(place) == []
    with pytest.raises(Refused):
        core.resolve_review(place, items[0], "replace")


def test_proposals_change_nothing_until_accepted_and_accept_all_can_be_undone(core: Core, place: Place) -> None:
    a = add(core, place, "Lint runs in the pre-commit hook")
    b = add(core, place, "Pre-commit runs ruff and mypy")
    c = add(core, place, "The old Makefile target lint-all is unused")
    core.propose(place, "merge", [a, b], text="Pre-commit runs ruff and mypy as the lint step")
    core.propose(place, "retire", [c], why="target was removed")
    core.propose(place, "lesson", [b], text="Run pre-commit before pushing so CI lint passes", when=parse_trigger("shell:^git push"))
    assert all(core.get(r).status is Status.ACTIVE for r in (a, b, c))
    assert len(core.reviews(place)) == 3
    batch, done = core.accept_all(place)
    assert len(done) == 3
    assert core.get(a).status is core.get(c).status is Status.RETIRED or core.get(a).status is Status.SUPERSEDED
    assert core.get(c).status is Status.RETIRED
    lessons = [m for m in core.list_memories(place) if m.kind is Kind.LESSON]
    assert len(lessons) == 1 and lessons[0].trigger is not None
    core.undo_batch(place, batch)
    assert all(core.get(r).status is Status.ACTIVE for r in (a, b, c))
    assert not [m for m in core.list_memories(place) if m.kind is Kind.LESSON]
    assert len(core.reviews(place)) == 3


def test_proposals_for_refs_outside_the_project_are_refused(core: Core, place: Place) -> None:
    other = core.place(project="github.com/acme/elsewhere")
    foreign = add(core, other, "Elsewhere uses nx")
    with pytest.raises(Refused):
        core.propose(place, "retire", [foreign])
    own = add(core, place, "Here uses turborepo")
    with pytest.raises(Invalid):
        core.propose(place, "merge", [own])
    with pytest.raises(Invalid):
        core.propose(place, "rename", [own])


def test_a_group_folder_holds_the_projects_below_it(core: Core, tmp_path: object) -> None:
    import subprocess
    from pathlib import Path

    from kenning.core.scopes import add_group

    base = Path(str(tmp_path)) / "work"
    repo = base / "site"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    before = core.place(repo)
    assert before.group == ""
    add_group(core.store, "local", "web", base, core.now())
    after = core.place(repo)
    assert after.group == "group:web" and "group:web" in after.reach
    core.set_policy(after, "group", "preset", "decisions-and-lessons")
    assert core.policy(after).kinds.source == "group"


def test_the_default_and_everything_presets_keep_different_writers(core: Core, place: Place) -> None:
    from kenning.errors import Refused

    app = RememberRequest(text="The nightly export finished without errors", origin=Origin.APP, source="ci-bot")
    assert "apps" not in core.policy(place).writers.value  # type: ignore[operator]
    with pytest.raises(Refused) as refused:
        core.remember(place, app)
    assert "kenning memory policy set writers agents,automations,memory-files,apps" in (refused.value.fix or "")
    core.set_policy(place, "project", "preset", "everything")
    assert core.policy(place).writers.value == ["agents", "automations", "apps", "memory-files"]
    assert core.remember(place, app).outcome == "stored"
    core.set_policy(place, "project", "preset", "default")
    assert "apps" not in core.policy(place).writers.value  # type: ignore[operator]


def test_preset_default_at_a_project_means_the_workspace_default(core: Core, place: Place) -> None:
    core.set_policy(place, "workspace", "preset", "decisions-and-lessons")
    core.set_policy(place, "project", "preset", "everything")
    core.set_policy(place, "project", "kinds", "fact")
    assert core.policy(place).kinds.value == ["fact"]
    core.set_policy(place, "project", "preset", "default")
    pol = core.policy(place)
    assert pol.kinds.value == ["decision", "lesson"] and pol.kinds.source == "workspace"
    assert pol.preset.value == "decisions-and-lessons" and pol.preset.source == "workspace"
