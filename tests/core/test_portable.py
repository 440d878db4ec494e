"""Export and import: a workspace's memory, history, decision docs, graph and notes as JSON
Lines; imported into an empty store it exports the same lines again (a property over many
stores); a bad file changes nothing; what was forgotten is not brought back."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core import forget, notes
from kenning.core.portable import export_records, import_records, parse_lines
from kenning.core.remember import RememberRequest
from kenning.core.service import Core
from kenning.errors import Invalid, KenningError
from kenning.graph import facts
from kenning.model import Kind, Origin, Placing, Trigger, TriggerTool
from kenning.store.protocol import ScopeRow

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
WORDS = ["cache", "invoice", "worker", "queue", "deploy", "schema", "login", "refund", "upload", "report"]
PROJECTS = ["github.com/acme/shop", "github.com/acme/site"]


@contextmanager
def store() -> Iterator[Core]:
    with tempfile.TemporaryDirectory(prefix="kenning-port-") as tmp:
        core = Core.open(Settings(home=Path(tmp)), FixedClock(START))
        try:
            yield core
        finally:
            core.close()


def export_lines(core: Core) -> list[str]:
    records = export_records(core.stores, core.workspace, core.now())
    return [json.dumps(r, sort_keys=True, ensure_ascii=False) for r in records]


def import_lines(core: Core, lines: list[str]) -> dict[str, object]:
    return import_records(core.stores, core.workspace,
                          parse_lines(lines)).as_dict()  # fmt: skip


op = st.one_of(
    st.tuples(st.just("remember"), st.sampled_from(list(Kind)), st.lists(st.sampled_from(WORDS), min_size=2,
              max_size=4, unique=True), st.sampled_from(PROJECTS), st.sampled_from([Origin.PERSON, Origin.AGENT])),
    st.tuples(st.just("curate"), st.integers(0, 30), st.sampled_from(["retire", "pin", "hide", "protect", "hold"])),
    st.tuples(st.just("use"), st.integers(0, 30)),
    st.tuples(st.just("decide"), st.sampled_from(WORDS), st.sampled_from(["queue", "db", ""])),
    st.tuples(st.just("fact"), st.sampled_from(WORDS), st.sampled_from(WORDS)),
    st.tuples(st.just("note"), st.sampled_from(WORDS)),
    st.tuples(st.just("forget"), st.integers(0, 30)),
    st.tuples(st.just("place"), st.integers(0, 30), st.sampled_from(["always", "not-here", "no-agent-runs"]),
              st.sampled_from(PROJECTS), st.booleans()),
    st.tuples(st.just("time"), st.integers(1, 72)),
)  # fmt: skip


def play(core: Core, ops: list[tuple[object, ...]]) -> None:
    """Build a store the way people and agents do: writes, curation, uses, decisions, facts,
    notes, forgets, with the clock moving."""
    refs: list[str] = []
    clock = core.clock
    assert isinstance(clock, FixedClock)
    for key in PROJECTS:  # registered, as a session there registers them: placements name them
        core.store.upsert_scope(ScopeRow(core.workspace, key, "project", key.rsplit("/", 1)[-1], "", "", START))
    for n, step in enumerate(ops):
        name = step[0]
        try:
            if name == "remember":
                _, kind, words, project, origin = step
                text = f"The {' '.join(words)} rule number{n} holds because the team agreed"  # type: ignore[arg-type]
                request = RememberRequest(
                    text=text, kind=kind, reason="the team agreed" if kind is Kind.DECISION else "",  # type: ignore[arg-type]
                    subject=f"area.{words[0]}.n{n}" if kind in (Kind.STATE, Kind.PREFERENCE) else "",  # type: ignore[index]
                    when=Trigger(TriggerTool.SHELL, f"^{words[0]} ") if kind is Kind.LESSON else None,  # type: ignore[index]
                    origin=origin, source="codex", tags=tuple(words), session=f"s{n % 3}",  # type: ignore[arg-type]
                )
                result = core.remember(core.place(project=str(project)), request)
                if result.memory is not None:
                    refs.append(result.memory.ref)
            elif name == "curate" and refs:
                ref = refs[int(step[1]) % len(refs)]  # type: ignore[call-overload]
                getattr(core, str(step[2]))(ref)
            elif name == "use" and refs:
                core.use([refs[int(step[1]) % len(refs)]], session="s-use", tool="claude-code", branch="main")  # type: ignore[call-overload]
            elif name == "decide":
                notes.decision_record(core, core.place(project=PROJECTS[0]), f"Use {step[1]} for the job queue {n}",
                                      area=str(step[2]), reason="it is simpler")  # fmt: skip
            elif name == "fact":
                facts.add(core.stores.graph, clock, core.workspace, str(step[1]), "uses", str(step[2]), project=PROJECTS[0],
                          replace=n % 2 == 0)  # fmt: skip
            elif name == "note":
                place = core.place(project=PROJECTS[1])
                notes.diary_write(core, place, f"Looked at the {step[1]} code today", agent="codex")
                notes.set_value(core, place, f"k.{step[1]}", f"value {n}")
            elif name == "forget" and refs:
                ref = refs.pop(int(step[1]) % len(refs))  # type: ignore[call-overload]
                forget.apply(core, forget.plan_memories(core, [ref]))
            elif name == "place" and refs:
                ref, decision, key = refs[int(step[1]) % len(refs)], Placing(str(step[2])), str(step[3])  # type: ignore[call-overload]
                if step[4]:
                    core.unplace_memory(ref, decision, key)
                else:
                    core.place_memory(ref, decision, key, by="web")
            elif name == "time":
                clock.advance(hours=int(step[1]))  # type: ignore[call-overload]
        except KenningError:
            pass  # a refused write (policy, write rules) is part of real use


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(op, min_size=1, max_size=25))
# Found by this test: a fact stated again after it ended, at the same moment, was taken for the
# ended one and lost on import.
@example([("fact", "cache", "invoice"), ("fact", "cache", "cache"), ("fact", "cache", "invoice")])
def test_an_export_imported_into_an_empty_store_exports_the_same(ops: list[tuple[object, ...]]) -> None:
    with store() as original, store() as copy:
        play(original, ops)
        exported = export_lines(original)
        import_lines(copy, exported)
        assert export_lines(copy)[1:] == exported[1:]  # the header holds the time of export
        assert sorted(copy.store.iter_all(copy.workspace), key=lambda m: m.ref) == \
            sorted(original.store.iter_all(original.workspace), key=lambda m: m.ref)  # fmt: skip
        again = import_lines(copy, exported)  # a second import writes nothing
        assert again["added"] == {}
        assert export_lines(copy)[1:] == exported[1:]


def test_a_bad_file_changes_nothing_and_says_which_line() -> None:
    with store() as original, store() as copy:
        play(original, [("remember", Kind.FACT, ["cache", "worker"], PROJECTS[0], Origin.PERSON),
                        ("decide", "redis", "queue"), ("note", "cache")])  # fmt: skip
        lines = export_lines(original)
        with pytest.raises(Invalid) as not_json:
            import_lines(copy, [*lines[:3], "{not json", *lines[3:]])
        assert "line 4 is not JSON" in not_json.value.message
        with pytest.raises(Invalid) as headless:
            import_lines(copy, lines[1:])
        assert "not a kenning export" in headless.value.message
        broken = json.loads(lines[-1])
        broken.pop("key", None)
        broken.pop("value", None)
        with pytest.raises(Invalid):
            import_lines(copy, [*lines[:-1], json.dumps(broken)])
        assert export_lines(copy)[1:] == []  # nothing half-written


def test_an_import_does_not_bring_back_what_was_forgotten_here() -> None:
    with store() as core:
        play(core, [("remember", Kind.FACT, ["invoice", "refund"], PROJECTS[0], Origin.PERSON)])
        (memory,) = list(core.store.iter_all(core.workspace))
        backup = export_lines(core)
        forget.apply(core, forget.plan_memories(core, [memory.ref]))
        report = import_lines(core, backup)
        assert report["forgotten"] == [memory.ref] and core.store.get(core.workspace, memory.ref) is None


def test_placements_travel_with_their_memory() -> None:
    with store() as original, store() as copy:
        play(original, [("remember", Kind.FACT, ["cache", "queue"], PROJECTS[0], Origin.PERSON),
                        ("place", 0, "not-here", PROJECTS[1], False), ("place", 0, "no-agent-runs", PROJECTS[0], False)])
        exported = export_lines(original)
        assert sorted(json.loads(line)["decision"] for line in exported if '"placement"' in line) == ["no-agent-runs",
                                                                                                     "not-here"]  # fmt: skip
        assert import_lines(copy, exported)["added"]["placement"] == 2  # type: ignore[index]
        ref = next(m.ref for m in copy.store.iter_all(copy.workspace))
        assert {(p.decision, p.place) for p in copy.placements(ref)} == {(Placing.NOT_HERE, PROJECTS[1]),
                                                                        (Placing.NO_AGENT_RUNS, "")}  # fmt: skip
