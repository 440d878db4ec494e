"""Properties of the core where state and time interact, checked with Hypothesis.

Every example builds its own store in a fresh temporary folder (function-scoped fixtures are
not reset between Hypothesis examples) and moves a :class:`FixedClock` by hand. Expected
outcomes are computed here from the stored fields, with predicates written independently of
``kenning.domain.lifecycle``, so a wrong rule there shows up as a failure here.
"""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    multiple,
    rule,
)

from kenning.clock import FixedClock, to_iso
from kenning.config import Settings
from kenning.core.remember import RememberRequest
from kenning.core.scopes import Place
from kenning.core.service import Core
from kenning.errors import KenningError
from kenning.model import Citation, Kind, Memory, Origin, Status
from kenning.store.sqlite.stores import open_sqlite

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
PROJECT = "github.com/acme/shop"
DAY = timedelta(days=1)
QUICK = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))


@contextmanager
def fresh_core() -> Iterator[tuple[Core, FixedClock, Place]]:
    with tempfile.TemporaryDirectory(prefix="kenning-prop-") as tmp:
        home = Path(tmp)
        clock = FixedClock(START)
        core = Core(open_sqlite(home / "kenning.db"), clock, Settings(home=home))
        try:
            yield core, clock, core.place(project=PROJECT)
        finally:
            core.close()


def eod(day: datetime) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC) + DAY - timedelta(microseconds=1)


def recalled(core: Core, place: Place, query: str, as_of: str | None = None) -> dict[str, object]:
    return {h.memory.ref: h for h in core.recall(place, query, as_of=as_of, count=25).hits}


# -- slots -----------------------------------------------------------------------------------
# Each slot's sentences share one keyword no other slot uses, so a one-word recall reads a slot.
SLOTS = {
    "ui.theme": (Kind.PREFERENCE, "palette"),
    "editor.indent": (Kind.PREFERENCE, "indentation"),
    "branch.shop.main.state": (Kind.STATE, "checkout"),
}
VOCAB = ["crimson", "teal", "spaces", "tabs", "gradle", "vite", "webpack", "ledger", "invoice", "parser"]

slot_writes = st.lists(
    st.tuples(
        st.sampled_from(sorted(SLOTS)),
        st.sampled_from([Origin.PERSON, Origin.AGENT]),
        st.lists(st.sampled_from(VOCAB), min_size=1, max_size=3, unique=True),
        st.floats(0.05, 3.0),  # days until the next write
        st.booleans(),  # restate the slot's current sentence instead of a new one
    ),
    min_size=1,
    max_size=12,
)


@dataclass
class SlotWrite:
    ref: str
    slot: str
    at: datetime


@QUICK
@given(writes=slot_writes)
def test_slot_superseding_keeps_exactly_the_newest_active(
    writes: list[tuple[str, Origin, list[str], float, bool]],
) -> None:
    with fresh_core() as (core, clock, place):
        stored: list[SlotWrite] = []
        current: dict[str, tuple[str, str]] = {}  # slot -> (ref, text)
        confirmed: dict[str, datetime] = {}  # slot -> when its current belief was last stated
        for n, (slot, origin, words, gap, restate) in enumerate(writes):
            kind, keyword = SLOTS[slot]
            text = (
                current[slot][1]
                if restate and slot in current
                else f"The {keyword} choice is {' '.join(words)} zq{n}x"
            )
            result = core.remember(place, RememberRequest(text=text, kind=kind, subject=slot, origin=origin,
                                                          source="claude-code"))  # fmt: skip
            assert result.memory is not None
            if restate and slot in current:
                assert result.outcome == "strengthened" and result.memory.ref == current[slot][0]
                assert result.memory.confirmed_at == clock.now()
            else:
                assert result.outcome == "stored"
                assert result.superseded == ([current[slot][0]] if slot in current else [])
                stored.append(SlotWrite(result.memory.ref, slot, clock.now()))
                current[slot] = (result.memory.ref, text)
            confirmed[slot] = clock.now()
            clock.advance(days=gap)

        for slot in SLOTS:
            chain = [w for w in stored if w.slot == slot]
            active = core.store.by_subject(place.workspace, [place.project], slot)
            assert [m.ref for m in active] == ([chain[-1].ref] if chain else [])
            # The history chain: each older belief names the one that replaced it, at that time.
            for older, newer in itertools.pairwise(chain):
                m = core.get(older.ref)
                assert (m.status, m.status_note, m.status_at) == (Status.SUPERSEDED, newer.ref, newer.at)
            if chain:
                h = core.history(chain[-1].ref)
                assert [m.ref for m in h.replaced] == [w.ref for w in reversed(chain[:-1])]
                assert [m.ref for m in core.history(chain[0].ref).replaced_by] == [w.ref for w in chain[1:]]

            # Without as_of, only the newest belief comes out (a state only within its shelf life).
            keyword = SLOTS[slot][1]
            fresh = SLOTS[slot][0] is not Kind.STATE or (
                chain and clock.now() - confirmed[slot] <= timedelta(days=14)
            )
            assert set(recalled(core, place, keyword)) == ({chain[-1].ref} if chain and fresh else set())

            # as_of any day answers with what was believed at the end of that day.
            days = sorted({w.at.date() for w in chain} | {clock.now().date()})
            for day in days:
                end = eod(datetime(day.year, day.month, day.day, tzinfo=UTC))
                believed = {}
                for older, newer in itertools.zip_longest(chain, chain[1:]):
                    until = newer.at if newer else None
                    if older.at <= end and (until is None or until > end):
                        believed[older.ref] = until
                got = recalled(core, place, keyword, as_of=day.isoformat())
                assert {ref: h.until for ref, h in got.items()} == believed, day  # type: ignore[attr-defined]


# -- lifecycle over moving time ---------------------------------------------------------------
steps = st.lists(
    st.one_of(
        st.tuples(st.just("advance"), st.floats(0.1, 20.0)),
        st.tuples(st.just("restate"), st.sampled_from(["state", "fact", "decision", "pref"])),
        st.tuples(st.just("use"), st.sampled_from(["state", "fact", "decision", "pref"])),
        st.tuples(st.just("pin"), st.sampled_from(["fact", "decision"])),
    ),
    min_size=1,
    max_size=14,
)
LIFE = {
    "state": (Kind.STATE, "The staging deploy waits on the quokka approval", "deploy.staging.state"),
    "fact": (Kind.FACT, "The billing service talks to the wombat ledger", ""),
    "decision": (Kind.DECISION, "We chose the numbat queue because it keeps order", ""),
    "pref": (Kind.PREFERENCE, "The owner prefers the platypus formatter", "fmt.tool"),
}
WORD = {"state": "quokka", "fact": "wombat", "decision": "numbat", "pref": "platypus"}


@QUICK
@given(plan=steps)
def test_shelf_life_resting_and_as_of_over_moving_time(plan: list[tuple[str, object]]) -> None:
    with fresh_core() as (core, clock, place):
        refs: dict[str, str] = {}
        confirmed: dict[str, datetime] = {}
        used: dict[str, datetime] = {}
        pinned: set[str] = set()
        for name, (kind, text, subject) in LIFE.items():
            r = core.remember(place, RememberRequest(text=text, kind=kind, subject=subject, source="codex"))
            assert r.memory is not None
            refs[name], confirmed[name] = r.memory.ref, clock.now()
        created_day = clock.now().date().isoformat()

        for action, arg in plan:
            name = str(arg)
            if action == "advance":
                clock.advance(days=float(arg))  # type: ignore[arg-type]
            elif action == "restate":
                kind, text, subject = LIFE[name]
                r = core.remember(
                    place, RememberRequest(text=text, kind=kind, subject=subject, source="gemini")
                )
                assert r.outcome == "strengthened" and r.memory is not None and r.memory.ref == refs[name]
                confirmed[name] = clock.now()
            elif action == "use":
                core.use([refs[name]], session="s1", tool="codex")
                used[name] = clock.now()
            elif action == "pin":
                core.pin(refs[name])
                pinned.add(name)
                confirmed[name] = clock.now()

            now = clock.now()

            def last(name: str) -> datetime:
                return max([confirmed[name], *([used[name]] if name in used else [])])

            def check(name: str, at: datetime) -> None:
                clock.set(at)
                ref = refs[name]
                hits = recalled(core, place, WORD[name])
                stale = name == "state" and at - confirmed[name] > timedelta(days=14)
                assert (ref in hits) is not stale, (name, at)
                if ref in hits:
                    rests = name not in pinned and name != "pref" and at - last(name) > timedelta(days=30)
                    assert hits[ref].resting is rests, (name, at)  # type: ignore[attr-defined]

            # Now, and a minute either side of each boundary (reads only; the clock goes back after).
            edge = timedelta(minutes=1)
            for name in refs:
                check(name, now)
                for at in (last(name) + timedelta(days=30) - edge, last(name) + timedelta(days=30) + edge):
                    check(name, at)
            for at in (
                confirmed["state"] + timedelta(days=14) - edge,
                confirmed["state"] + timedelta(days=14) + edge,
            ):
                check("state", at)
            clock.set(now)
            for name, ref in refs.items():
                # Under as_of the state comes back: it was believed then, stale or not.
                then = recalled(core, place, WORD[name], as_of=created_day)
                assert ref in then and then[ref].until is None  # type: ignore[attr-defined]
            assert core.get(refs["state"]).status is Status.ACTIVE  # a lapsed state is not retired


# -- pruning the index query loses nothing ----------------------------------------------------
PRUNE_VOCAB = ["cache", "invoice", "ledger", "deploy", "schema", "retry", "webhook", "tokens", "queue", "parser",
               "billing", "staging"]  # fmt: skip


@QUICK
@given(
    sentences=st.lists(st.lists(st.sampled_from(PRUNE_VOCAB), min_size=1, max_size=5, unique=True), min_size=1,
                       max_size=20),
    query=st.lists(st.sampled_from(PRUNE_VOCAB), min_size=2, max_size=6, unique=True),
)  # fmt: skip
def test_recall_ranks_by_content_alone_and_feedback_brings_in_no_memory(
    sentences: list[list[str]], query: list[str]
) -> None:
    """The same memories written in the opposite order rank identically (scores, ties broken
    by ref), so any store that returns the same candidates ranks the same way; and every
    result holds a word of the query (feedback reorders candidates, it adds none)."""

    def ranked(order: list[int]) -> list[tuple[str, float, bool]]:
        with fresh_core() as (core, clock, place):
            for n in order:
                core.store.insert(Memory(
                    ref=f"m:{n:08x}", workspace=place.workspace, scope=place.project, text=" ".join(sentences[n]),
                    kind=Kind.FACT, confidence=0.7, origin=Origin.PERSON, created_at=clock.now(), confirmed_at=clock.now(),
                ))  # fmt: skip
            hits = core.recall(place, " ".join(query), count=25).hits
            for h in hits:
                assert set(h.memory.text.split()) & set(query), h.memory.text
            return [(h.memory.ref, h.score, h.weak) for h in hits]

    forward = ranked(list(range(len(sentences))))
    assert forward == ranked(list(reversed(range(len(sentences)))))


# -- a state machine of random writes and curation ---------------------------------------------
COMMON = ["deploy", "billing", "cache", "schema", "invoice", "pipeline"]
SUBJECTS = ["deploy.staging.state", "ui.theme", "ci.runner"]


class Delivery(RuleBasedStateMachine):
    """Random writes, hides, holds, retirements, replacements, citations and clock moves.

    After every step: nothing hidden, held, superseded, retired, past its shelf life or citing a
    gone file comes out of recall, and every deliverable memory can be found by its rare word.
    """

    refs = Bundle("refs")

    def open_store(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="kenning-sm-")
        self.clock = FixedClock(START)
        self.core = Core(open_sqlite(Path(self._tmp.name) / "kenning.db"), self.clock, Settings(home=Path(self._tmp.name)))  # fmt: skip
        self.place = self.core.place(project=PROJECT)
        # Every writer, so app and widget writes (held until released) are exercised too.
        self.core.set_policy(self.place, "workspace", "preset", "everything")
        self.counter = itertools.count()
        self.rare: dict[str, str] = {}  # ref -> its rare word

    @initialize(target=refs)
    def seed(self) -> object:
        """One memory of each kind, so every run has something to hide, retire and recall."""
        self.open_store()
        made: list[str] = []
        for kind, subject, text in [
            (Kind.FACT, "", "The invoice service rounds once"),
            (Kind.DECISION, "", "We chose the cache layer because reads dominate"),
            (Kind.STATE, "deploy.staging.state", "The staging deploy waits for the schema change"),
            (Kind.PREFERENCE, "ui.theme", "The owner prefers the dark pipeline theme"),
        ]:
            rare = f"kx{next(self.counter)}q"
            made += self._write(RememberRequest(text=f"{text} {rare}", kind=kind, subject=subject,
                                                source="codex", session="sess-a"), rare)  # fmt: skip
        return multiple(*made)

    def teardown(self) -> None:
        if hasattr(self, "core"):
            self.core.close()
            self._tmp.cleanup()

    def _write(self, request: RememberRequest, rare: str) -> list[str]:
        before = sum(1 for _ in self.core.store.iter_all(self.place.workspace))
        try:
            result = self.core.remember(self.place, request)
        except KenningError as error:
            event(f"refused: {error.message[:40]}")
            assert sum(1 for _ in self.core.store.iter_all(self.place.workspace)) == before
            return []
        event(result.outcome)
        if result.outcome != "stored" or result.memory is None:
            return []
        self.rare[result.memory.ref] = rare
        return [result.memory.ref]

    @rule(
        target=refs,
        kind=st.sampled_from([None, *Kind]),
        origin=st.sampled_from(Origin),
        subject=st.sampled_from(["", *SUBJECTS]),
        common=st.lists(st.sampled_from(COMMON), min_size=1, max_size=3, unique=True),
        tool=st.sampled_from(["claude-code", "codex", "widget-board"]),
        global_=st.booleans(),
    )
    def remember(self, kind: Kind | None, origin: Origin, subject: str, common: list[str], tool: str,
                 global_: bool) -> object:  # fmt: skip
        rare = f"kx{next(self.counter)}q"
        text = f"The {' '.join(common)} note {rare} stays true"
        if kind is Kind.DECISION:
            text = f"We chose the {' '.join(common)} path {rare} because it is simpler"
        return multiple(*self._write(
            RememberRequest(text=text, kind=kind, origin=origin, subject=subject, source=tool, session="sess-a",
                            global_=global_, source_ref=f"src/{common[0]}.py" if len(common) > 1 else ""),
            rare,
        ))  # fmt: skip

    @rule(target=refs, old=refs)
    def restate(self, old: str) -> object:
        m = self.core.get(old)
        return multiple(*self._write(RememberRequest(text=m.text, kind=m.kind, subject=m.subject,
                                                     origin=Origin.AGENT, source="gemini"), self.rare[old]))  # fmt: skip

    @rule(target=refs, old=consumes(refs), common=st.sampled_from(COMMON))
    def replace(self, old: str, common: str) -> object:
        rare = f"kx{next(self.counter)}q"
        return multiple(*self._write(RememberRequest(text=f"The {common} rule {rare} now applies", kind=Kind.FACT,
                                                     replaces=(old,), source="codex"), rare))  # fmt: skip

    @rule(
        ref=refs, action=st.sampled_from(["hide", "give", "hold", "release", "retire", "bring_back", "pin"])
    )
    def curate(self, ref: str, action: str) -> None:
        with suppress(KenningError):  # retiring a retired memory and the like are refused
            getattr(self.core, action)(ref)

    @rule(ref=refs, citation=st.sampled_from(Citation))
    def citation(self, ref: str, citation: Citation) -> None:
        m = self.core.get(ref)
        self.core.store.update(m.evolve(citation=citation))

    @rule(ref=refs)
    def use(self, ref: str) -> None:
        self.core.use([ref], session="sess-b", tool="codex")

    @rule(days=st.floats(0.0, 20.0))
    def advance(self, days: float) -> None:
        self.clock.advance(days=days)

    @rule()
    def retire_session(self) -> None:
        self.core.retire_session(self.place, "sess-a", apply=True)

    def _deliverable(self, m: Memory) -> bool:
        stale = m.kind is Kind.STATE and self.clock.now() - m.confirmed_at > timedelta(days=14)
        return (m.status is Status.ACTIVE and not m.hidden and not m.held and m.citation is not Citation.GONE
                and not stale and m.scope in self.place.reach)  # fmt: skip

    @invariant()
    def only_deliverable_memories_come_out(self) -> None:
        if not hasattr(self, "core"):
            return
        memories = {m.ref: m for m in self.core.store.iter_all(self.place.workspace)}
        for query in [*COMMON, "The deploy billing cache note stays true"]:
            for ref in recalled(self.core, self.place, query):
                assert self._deliverable(memories[ref]), (query, memories[ref], to_iso(self.clock.now()))
        for ref, m in memories.items():
            found = ref in recalled(self.core, self.place, self.rare[ref])
            event(f"deliverable={self._deliverable(m)}")
            assert found is self._deliverable(m), (m, to_iso(self.clock.now()))


Delivery.TestCase.settings = settings(
    max_examples=40, stateful_step_count=30, deadline=None, suppress_health_check=list(HealthCheck)
)
test_delivery_state_machine = Delivery.TestCase
