"""Rules decide what is given out (recall, lessons, the card) and never remove a memory."""

from __future__ import annotations

from pathlib import Path

import pytest
from hookrun_helper import claude, run_hook

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.context import brief
from kenning.core import rules
from kenning.core.remember import RememberRequest
from kenning.core.scopes import Place
from kenning.core.service import Core
from kenning.errors import Invalid
from kenning.model import Kind, Origin, Status, Trigger, TriggerTool


def add(core: Core, place: Place, text: str, **kw: object) -> str:
    result = core.remember(place, RememberRequest(text=text, origin=Origin.PERSON, **kw))  # type: ignore[arg-type]
    assert result.memory is not None
    return result.memory.ref


def test_unused_rule_leaves_out_and_returns_when_off(core: Core, place: Place, clock: FixedClock) -> None:
    old = add(core, place, "The staging cluster lives in the Frankfurt region.", kind=Kind.FACT)
    clock.advance(days=61)
    fresh = add(core, place, "The production cluster lives in the Dublin region.", kind=Kind.FACT)
    rule = rules.add_ready(core, "unused", project=place.project)
    hits = [h.memory.ref for h in core.recall(place, "cluster region").hits]
    assert fresh in hits and old not in hits
    assert core.get(old).status is Status.ACTIVE  # nothing removed
    [view] = [v for v in rules.listing(core, place) if v.rule.id == rule]
    assert view.leaves_out == 1 and view.words == "Leave out memories nobody used for 60 days"
    rules.set_enabled(core, rule, False)
    assert old in [h.memory.ref for h in core.recall(place, "cluster region").hits]


def test_rule_for_one_project_does_not_hold_in_another(core: Core, place: Place, clock: FixedClock) -> None:
    other = core.place(project="github.com/acme/blog")
    old = add(core, other, "The blog builds with the static site generator.", kind=Kind.FACT)
    clock.advance(days=61)
    rules.add_ready(core, "unused", project=place.project)
    assert old in [h.memory.ref for h in core.recall(other, "blog static site generator").hits]
    rules.add_ready(core, "unused")  # all projects
    assert old not in [h.memory.ref for h in core.recall(other, "blog static site generator").hits]


def test_proven_shipped_and_undone(core: Core, place: Place) -> None:
    lesson = add(core, place, "Clear the build cache before a release build.", when=Trigger(TriggerTool.SHELL, "^make release"))
    shipped = core.record_decision(place, RememberRequest(text="We picked SQLite because it needs no server.",
                                                          origin=Origin.PERSON))  # fmt: skip
    reverted = core.record_decision(place, RememberRequest(text="We chose Redis for sessions because it is fast.",
                                                           origin=Origin.PERSON))  # fmt: skip
    assert shipped.doc and reverted.doc and shipped.remembered.memory and reverted.remembered.memory
    core.add_outcome(shipped.doc, "Shipped in PR 12.")
    core.add_outcome(reverted.doc, "Reverted after merge: sessions broke.")
    memories = core.list_memories(place)
    proven = rules.add_ready(core, "proven")
    assert lesson not in [m.ref for m in core.give_out(place, memories)]
    core.use([lesson], session="s1")
    core.use([lesson], session="s2")
    assert lesson in [m.ref for m in core.give_out(place, memories)]
    rules.remove(core, proven)
    rules.add_ready(core, "undone")
    given = [m.ref for m in core.give_out(place, memories)]
    assert reverted.remembered.memory.ref not in given and shipped.remembered.memory.ref in given
    rules.add_ready(core, "shipped")
    given = [m.ref for m in core.give_out(place, memories)]
    assert given.count(shipped.remembered.memory.ref) == 1
    assert all(core.get(m.ref).kind is not Kind.DECISION or m.ref == shipped.remembered.memory.ref
               for m in core.give_out(place, memories))  # fmt: skip


def test_sentence_rules_and_bad_input(core: Core, place: Place) -> None:
    for i in range(7):
        rules.add_sentence(core, f"Rule {i}: prefer small pull requests.", project=place.project)
    assert len(core.stores.rules.sentence_rules(core.workspace, place.project)) == 7
    text = brief.build(core, place)
    assert text.count("- Rule ") == 5 and "Rules (5 of 7; all: kenning memory rules list):" in text
    with pytest.raises(Invalid):
        rules.add_sentence(core, "   ")
    with pytest.raises(Invalid):
        rules.add_ready(core, "forever")
    with pytest.raises(Invalid):
        rules.add_ready(core, "unused", n=0)


def test_rules_apply_to_lessons_in_the_hook(repo: Path, kenning_home: Path) -> None:
    core = Core.open(Settings(home=kenning_home), FixedClock())
    try:
        place = core.place(repo)
        ref = add(core, place, "Run the dry run before publishing the package to the registry.",
                  when=Trigger(TriggerTool.SHELL, "^npm publish"))  # fmt: skip
        rule = rules.add_ready(core, "proven", project=place.project)
    finally:
        core.close()
    call = claude(repo, "PreToolUse", "r1", tool_name="Bash", tool_input={"command": "npm publish"})
    # Used in no session yet: the "proven" rule keeps it from the call (through the core's rules).
    assert run_hook("claude-code", "PreToolUse", call, now="2026-01-01T12:00:00Z").stdout == ""
    core = Core.open(Settings(home=kenning_home), FixedClock())
    try:
        rules.set_enabled(core, rule, False)
    finally:
        core.close()
    call = claude(repo, "PreToolUse", "r2", tool_name="Bash", tool_input={"command": "npm publish"})
    assert ref in run_hook("claude-code", "PreToolUse", call, now="2026-01-01T12:00:00Z").held
