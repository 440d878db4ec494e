"""Lifecycle against one clock: shelf life, resting, hide/give, hold/release, protect,
retire/bring back, retire a session, and held words in docs."""

from __future__ import annotations

import pytest

from kenning.clock import FixedClock, to_iso
from kenning.core import decisions
from kenning.core.remember import RememberRequest
from kenning.core.scopes import Place
from kenning.core.service import Core
from kenning.domain.lifecycle import in_index, is_resting, is_stale
from kenning.errors import NotFound, Refused
from kenning.model import Kind, Origin, Status


def add(core: Core, place: Place, text: str, **kw: object) -> str:
    kw.setdefault("origin", Origin.AGENT)
    kw.setdefault("source", "codex")
    r = core.remember(place, RememberRequest(text=text, **kw))  # type: ignore[arg-type]
    assert r.memory is not None, r
    return r.memory.ref


def test_a_state_leaves_recall_14_days_after_its_last_confirmation(core: Core, place: Place, clock: FixedClock) -> None:
    ref = add(core, place, "The release train waits for the legal review", kind=Kind.STATE, subject="release.train.state")
    clock.advance(days=13)
    assert core.recall(place, "release train legal review").hits
    # Restating restarts the 14 days.
    add(core, place, "The release train waits for the legal review", kind=Kind.STATE, subject="release.train.state", source="claude-code")
    clock.advance(days=13)
    assert core.recall(place, "release train legal review").hits
    clock.advance(days=2)
    memory = core.get(ref)
    assert is_stale(memory, clock.now()) and memory.status is Status.ACTIVE
    assert core.recall(place, "release train legal review").hits == []
    assert core.recall(place, "release train legal review", as_of=to_iso(clock.now())).hits


def test_only_state_has_a_shelf_life(core: Core, place: Place, clock: FixedClock) -> None:
    add(core, place, "The release train leaves from the deploy repo")
    clock.advance(days=100)
    assert core.recall(place, "release train deploy repo").hits


def test_resting_after_30_days_unused_and_waking_on_use(core: Core, place: Place, clock: FixedClock) -> None:
    fact = add(core, place, "Background jobs run on the sidekiq cluster")
    pref = add(core, place, "Prefer feature branches named after the ticket", kind=Kind.PREFERENCE)
    pinned = add(core, place, "The monorepo uses turborepo for task graphs")
    core.pin(pinned)
    clock.advance(days=31)
    now = clock.now()
    assert is_resting(core.get(fact), now)
    assert not is_resting(core.get(pref), now)
    assert not is_resting(core.get(pinned), now)
    assert not in_index(core.get(fact), now)
    # Resting memories are still searchable.
    assert core.recall(place, "background jobs sidekiq").hits[0].resting
    core.use([fact], session="s9", tool="claude-code")
    assert not is_resting(core.get(fact), clock.now())


def test_pinning_wakes_a_resting_memory(core: Core, place: Place, clock: FixedClock) -> None:
    fact = add(core, place, "The search index rebuilds nightly")
    clock.advance(days=40)
    assert is_resting(core.get(fact), clock.now())
    core.pin(fact)
    core.unpin(fact)
    assert not is_resting(core.get(fact), clock.now())


def test_hide_and_give_to_sessions_again(core: Core, place: Place) -> None:
    ref = add(core, place, "The vendor portal password rotates monthly")
    core.hide(ref)
    assert core.recall(place, "vendor portal password rotates").hits == []
    assert core.get(ref).hidden  # stays stored
    core.give(ref)
    assert core.recall(place, "vendor portal password rotates").hits


def test_hold_and_release(core: Core, place: Place) -> None:
    ref = add(core, place, "The legacy importer skips archived rows")
    core.hold(ref)
    assert core.recall(place, "legacy importer archived rows").hits == []
    core.release(ref)
    assert core.recall(place, "legacy importer archived rows").hits


def test_retire_and_bring_back(core: Core, place: Place) -> None:
    ref = add(core, place, "Metrics are scraped every minute by the collector")
    core.retire(ref, "collector replaced")
    assert core.get(ref).status is Status.RETIRED and core.get(ref).status_note == "collector replaced"
    assert core.recall(place, "metrics scraped collector").hits == []
    with pytest.raises(Refused):
        core.retire(ref)
    core.bring_back(ref)
    assert core.recall(place, "metrics scraped collector").hits


def test_bring_back_refuses_while_the_replacement_is_active(core: Core, place: Place) -> None:
    old = add(core, place, "Use yarn for installs", kind=Kind.PREFERENCE, subject="deps.tool")
    new = add(core, place, "Use pnpm for installs", kind=Kind.PREFERENCE, subject="deps.tool")
    with pytest.raises(Refused) as err:
        core.bring_back(old)
    assert new in str(err.value)
    core.retire(new)
    core.bring_back(old)
    assert core.get(old).status is Status.ACTIVE


def test_retire_session_previews_then_spares_pinned_and_protected(core: Core, place: Place) -> None:
    a = add(core, place, "The cron image is built from docker/cron", session="sess-1")
    b = add(core, place, "Cron jobs log to stdout only", session="sess-1")
    c = add(core, place, "Cron schedules are in UTC", session="sess-1")
    other = add(core, place, "Cron retries are disabled", session="sess-2")
    core.pin(b)
    core.protect(c)
    preview = core.retire_session(place, "sess-1", apply=False)
    assert [m.ref for m in preview.retire] == [a] and {m.ref for m in preview.kept} == {b, c}
    assert core.get(a).status is Status.ACTIVE
    core.retire_session(place, "sess-1", apply=True)
    assert core.get(a).status is Status.RETIRED
    assert core.get(b).status is core.get(c).status is core.get(other).status is Status.ACTIVE


def test_unknown_refs_are_not_found_with_a_fix(core: Core) -> None:
    with pytest.raises(NotFound) as err:
        core.get("m:0badf00d")
    assert "kenning memory list" in err.value.fix


def test_hidden_memory_words_in_a_decision_doc_read_held_for_agents(core: Core, place: Place) -> None:
    result = core.record_decision(place, RememberRequest(
        text="We store sessions in Redis because logins must survive restarts", origin=Origin.PERSON, title="Session store"))  # fmt: skip
    assert result.doc is not None and result.remembered.memory is not None
    core.hide(result.remembered.memory.ref)
    for_agent = decisions.render(core.store, result.doc, for_agent=True)
    for_person = decisions.render(core.store, result.doc, for_agent=False)
    assert "Redis" not in for_agent and "[held memory]" in for_agent
    assert "Redis" in for_person


def test_the_pin_cap_is_enforced_for_people_too(core: Core, place: Place) -> None:
    refs = [add(core, place, f"Pinned convention number {chr(97 + i)}{chr(98 + i)} about naming") for i in range(25)]
    for ref in refs:
        core.pin(ref)
    extra = add(core, place, "One more convention about logging")
    with pytest.raises(Refused) as err:
        core.pin(extra)
    assert "unpin" in err.value.fix


def test_a_citation_is_read_on_write_and_again_on_restating(core: Core, tmp_path: object) -> None:
    import subprocess
    from pathlib import Path

    from kenning.model import Citation

    repo = Path(str(tmp_path)) / "app"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    src = repo / "limits.py"
    src.write_text("MAX_UPLOAD = 10\n\ndef quota():\n    return MAX_UPLOAD\n")
    place = core.place(repo)
    ref = add(core, place, "Uploads are capped by the quota function", source_ref="limits.py:quota")
    first = core.get(ref)
    assert first.source_hash and first.citation is Citation.SAME
    src.write_text("MAX_UPLOAD = 10\n\ndef quota():\n    return MAX_UPLOAD * 2\n")
    again = core.remember(place, RememberRequest(text="Uploads are capped by the quota function", origin=Origin.AGENT,
                                                 source="claude-code", source_ref="limits.py:quota"))  # fmt: skip
    assert again.outcome == "strengthened" and again.memory is not None
    assert again.memory.source_hash != first.source_hash and again.memory.citation is Citation.SAME
