"""The MemoryStore contract: every backend passes this same suite.

Only protocol methods are used here (no SQL), so a PostgreSQL backend runs it unchanged:
add its factory to ``tests/store/backends.py``. Each test gets a fresh, empty store.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kenning.model import (
    Citation,
    DecisionDoc,
    Kind,
    Memory,
    MemoryEvent,
    Origin,
    Placement,
    Placing,
    ReviewItem,
    Status,
    Trigger,
    TriggerTool,
)
from kenning.store.protocol import MemoryFilter, MemoryStore, ScopeRow, Stores, UseRow
from kenning.text import terms

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
WS = "ws"
_refs = itertools.count(1)
_spaces = itertools.count(1)


@pytest.fixture
def store(stores: Stores) -> MemoryStore:
    return stores.memories


def fresh_ref() -> str:
    return f"m:{next(_refs):08x}"


def fresh_workspace() -> str:
    # Hypothesis reuses one store across examples; a workspace per example keeps them apart.
    return f"ws-{next(_spaces)}"


def mem(text: str = "the api deploys from main", **changes: object) -> Memory:
    base = Memory(
        ref=fresh_ref(), workspace=WS, scope="proj", text=text, kind=Kind.FACT, confidence=0.7,
        origin=Origin.AGENT, created_at=T0, confirmed_at=T0,
    )  # fmt: skip
    return base.evolve(**changes)


def flt(scopes: tuple[str, ...] = ("proj",), **kw: object) -> MemoryFilter:
    return MemoryFilter(str(kw.pop("workspace", WS)), list(scopes), **kw)  # type: ignore[arg-type]


# -- strategies -----------------------------------------------------------------------------
# No NUL: PostgreSQL text cannot hold it, and remember never writes one. No lone surrogates:
# they are not encodable text.
any_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"))
fts_syntax = st.sampled_from(
    ["NOT", "OR", "AND", "NEAR", "*", '"', "-", "^", "(", ")", ":", 'a"b', "col:x", '"quoted phrase"', "x*"]
)
tricky_text = st.lists(st.one_of(any_text, fts_syntax, st.sampled_from(["déjà", "naïve", "日本語", "ß", "İ"])),
                       max_size=8).map(" ".join)  # fmt: skip
tag = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Z")), min_size=1, max_size=12)
times = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2099, 12, 31), timezones=st.just(UTC))


@st.composite
def memories(draw: st.DrawFn) -> Memory:
    trigger = draw(st.none() | st.builds(Trigger, st.sampled_from(TriggerTool), any_text))
    return Memory(
        ref=fresh_ref(), workspace=draw(any_text), scope=draw(any_text), text=draw(tricky_text),
        kind=draw(st.sampled_from(Kind)), confidence=draw(st.floats(0.0, 1.0)),
        origin=draw(st.sampled_from(Origin)), created_at=draw(times), confirmed_at=draw(times),
        reason=draw(tricky_text), rejected=draw(any_text), trigger=trigger, status=draw(st.sampled_from(Status)),
        status_at=draw(st.none() | times), status_note=draw(any_text), subject=draw(any_text),
        origin_tool=draw(any_text), session=draw(any_text), branch=draw(any_text), pinned=draw(st.booleans()),
        index_pinned=draw(st.booleans()), hidden=draw(st.booleans()), held=draw(st.booleans()),
        protected=draw(st.booleans()), source_ref=draw(any_text), source_hash=draw(any_text),
        citation=draw(st.sampled_from(Citation)), tags=tuple(draw(st.lists(tag, max_size=4))),
        last_used_at=draw(st.none() | times), uses=draw(st.integers(0, 2**31)),
        confirmations=draw(st.integers(0, 10**6)), recalled=draw(st.integers(0, 10**6)),
    )  # fmt: skip


shared_store = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def unredacted(memory: Memory) -> bool:
    """True when no field of ``memory`` reads as a secret: the store masks those on the way in
    (the redaction tests cover that), so only such a memory comes back exactly as written."""
    from kenning.redact import redact

    fields = [memory.text, memory.reason, memory.rejected, memory.status_note, memory.subject, memory.origin_tool,
              memory.session, memory.branch, memory.source_ref, *memory.tags]  # fmt: skip
    return all(redact(f) == f for f in fields)


# -- memories -------------------------------------------------------------------------------
@shared_store
@given(memory=memories())
def test_every_field_round_trips(store: MemoryStore, memory: Memory) -> None:
    assume(unredacted(memory))
    store.insert(memory)
    assert store.get(memory.workspace, memory.ref) == memory


@shared_store
@given(before=memories(), after=memories())
def test_update_round_trips_every_field(store: MemoryStore, before: Memory, after: Memory) -> None:
    assume(unredacted(before) and unredacted(after))
    store.insert(before)
    changed = after.evolve(ref=before.ref, workspace=before.workspace)  # a memory stays in its workspace
    store.update(changed)
    assert store.get(before.workspace, before.ref) == changed


def test_huge_text_round_trips_and_is_found(store: MemoryStore) -> None:
    words = [f"word{i}" for i in range(60_000)]
    memory = mem(" ".join(words) + " zanzibar", reason="r" * 100_000)
    store.insert(memory)
    assert store.get(memory.workspace, memory.ref) == memory
    hits = store.search(flt(), ["zanzibar"], limit=5)
    assert [h.memory.ref for h in hits] == [memory.ref]


def test_update_of_an_unknown_ref_fails(store: MemoryStore) -> None:
    with pytest.raises(KeyError):
        store.update(mem())


def test_get_many_keeps_the_asked_order_and_skips_unknown(store: MemoryStore) -> None:
    a, b, c = mem("alpha"), mem("bravo"), mem("charlie")
    for m in (a, b, c):
        store.insert(m)
    assert [m.ref for m in store.get_many(WS, [c.ref, "m:ffffffff", a.ref])] == [c.ref, a.ref]
    assert store.get_many(WS, []) == []
    assert store.get(WS, "m:ffffffff") is None


def test_find_filters_orders_and_pages(store: MemoryStore) -> None:
    rows = [
        mem("one", created_at=T0, session="s1"),
        mem("two", created_at=T0 + timedelta(hours=1), kind=Kind.LESSON, trigger=Trigger(TriggerTool.SHELL, "^npm publish")),
        mem("three", created_at=T0 + timedelta(hours=2), status=Status.RETIRED, status_at=T0),
        mem("four", created_at=T0 + timedelta(hours=3), scope="other", source_ref="src/db/pool.py:12"),
        mem("five", created_at=T0 + timedelta(hours=4), workspace="elsewhere"),
        mem("six", created_at=T0 + timedelta(hours=5), source_ref="src/db/conn.py", session="s1"),
    ]  # fmt: skip
    for m in rows:
        store.insert(m)
    texts = lambda ms: [m.text for m in ms]  # noqa: E731
    assert texts(store.find(flt())) == ["one", "two", "six"]
    assert texts(store.find(flt(), newest_first=True)) == ["six", "two", "one"]
    assert texts(store.find(flt(), offset=1, limit=1)) == ["two"]
    assert texts(store.find(flt(("proj", "other")))) == ["one", "two", "four", "six"]
    assert texts(store.find(flt(statuses=tuple(Status)))) == ["one", "two", "three", "six"]
    assert texts(store.find(flt(statuses=(Status.RETIRED,)))) == ["three"]
    assert texts(store.find(flt(kinds=(Kind.LESSON,)))) == ["two"]
    assert texts(store.find(flt(session="s1"))) == ["one", "six"]
    assert texts(store.find(flt(with_trigger=True))) == ["two"]
    assert texts(store.find(flt(with_trigger=False))) == ["one", "six"]
    assert texts(store.find(flt(("proj", "other"), source_ref_like="src/db/%"))) == ["four", "six"]
    assert store.count(flt()) == 3
    assert store.count(flt(statuses=tuple(Status))) == 4
    assert store.count(flt(workspace="elsewhere")) == 1
    assert [m.text for m in store.iter_all("elsewhere")] == ["five"]
    assert store.find(flt(())) == []


def test_iter_all_walks_every_memory_in_pages(store: MemoryStore) -> None:
    """Past a page (500 rows on both engines): every memory once, in the order written, of one
    workspace only, whatever its status."""
    written = []
    with store.transaction():
        for i in range(1_003):
            m = mem(f"note {i}", workspace=WS if i % 50 else "elsewhere",
                    status=Status.RETIRED if i % 7 == 0 else Status.ACTIVE)  # fmt: skip
            store.insert(m)
            written.append(m)
    assert [m.ref for m in store.iter_all(WS)] == [m.ref for m in written if m.workspace == WS]
    assert [m.text for m in store.iter_all("elsewhere")] == [f"note {i}" for i in range(0, 1_003, 50)]


def test_slots_by_subject_and_subjects(store: MemoryStore) -> None:
    old = mem("dark theme", kind=Kind.PREFERENCE, subject="ui.theme", created_at=T0)
    new = mem("light theme", kind=Kind.PREFERENCE, subject="ui.theme", created_at=T0 + timedelta(days=1))
    gone = mem("blue theme", kind=Kind.PREFERENCE, subject="ui.color", status=Status.SUPERSEDED, status_at=T0)
    state = mem("deploy waits", kind=Kind.STATE, subject="deploy.staging.state")
    away = mem("tabs", kind=Kind.PREFERENCE, subject="ui.indent", scope="other")
    for m in (new, old, gone, state, away):
        store.insert(m)
    assert [m.ref for m in store.by_subject(WS, ["proj"], "ui.theme")] == [old.ref, new.ref]
    assert store.by_subject(WS, ["proj"], "ui.color") == []
    assert sorted(store.subjects(WS, ["proj"], Kind.PREFERENCE)) == ["ui.theme"]
    assert sorted(store.subjects(WS, ["proj", "other"], Kind.PREFERENCE)) == ["ui.indent", "ui.theme"]
    assert store.subjects(WS, ["proj"], Kind.STATE) == ["deploy.staging.state"]


def test_mark_recalled_counts(store: MemoryStore) -> None:
    a, b = mem("alpha"), mem("bravo")
    store.insert(a)
    store.insert(b)
    store.mark_recalled(WS, [a.ref])
    store.mark_recalled(WS, [a.ref, b.ref])
    store.mark_recalled(WS, [])
    assert (store.get(a.workspace, a.ref).recalled, store.get(b.workspace, b.ref).recalled) == (2, 1)  # type: ignore[union-attr]


def test_transaction_rolls_back_everything_and_nests(store: MemoryStore) -> None:
    a, b = mem("alpha"), mem("bravo")
    with pytest.raises(RuntimeError), store.transaction():
        store.insert(a)
        with store.transaction():
            store.insert(b)
        store.set_meta(WS, "k", "v")
        raise RuntimeError("boom")
    assert store.get(a.workspace, a.ref) is None and store.get(b.workspace, b.ref) is None
    assert store.get_meta(WS, "k") is None
    assert store.search(flt(), ["alpha"], limit=5) == []
    with store.transaction(), store.transaction():
        store.insert(a)
    assert store.get(a.workspace, a.ref) == a


# -- search ---------------------------------------------------------------------------------
def test_search_scores_are_positive_bm25_and_rank_by_weight(store: MemoryStore) -> None:
    in_text = mem("pooling database connections keeps latency low")
    in_reason = mem("we keep one writer", reason="the database locks on concurrent writes")
    unrelated = [mem(f"filler sentence number {w}") for w in ("one", "two", "three", "four")]
    for m in (in_reason, in_text, *unrelated):
        store.insert(m)
    hits = store.search(flt(), terms("database"), limit=10)
    assert [h.memory.ref for h in hits] == [in_text.ref, in_reason.ref]  # the sentence weighs most
    assert all(h.bm25 > 0 for h in hits)
    assert hits[0].bm25 > hits[1].bm25
    assert hits[0].terms == frozenset(terms("database"))


def test_search_reads_tags_and_citation_and_reports_held_terms(store: MemoryStore) -> None:
    tagged = mem("retry the webhook", tags=("stripe", "billing"))
    cited = mem("rounding happens once", source_ref="src/invoice/rounding.py:40")
    for m in (tagged, cited):
        store.insert(m)
    assert [h.memory.ref for h in store.search(flt(), terms("billing"), limit=5)] == [tagged.ref]
    (hit,) = store.search(flt(), terms("invoice rounding zebra"), limit=5)
    assert hit.memory.ref == cited.ref
    assert hit.terms == frozenset(terms("invoice rounding"))


def test_search_stays_in_the_given_scopes_statuses_and_workspace(store: MemoryStore) -> None:
    here = mem("kafka topics are compacted")
    other_scope = mem("kafka topics are compacted", scope="other")
    other_ws = mem("kafka topics are compacted", workspace="elsewhere")
    retired = mem("kafka topics are compacted", status=Status.RETIRED, status_at=T0)
    superseded = mem("kafka topics are compacted", status=Status.SUPERSEDED, status_at=T0)
    for m in (here, other_scope, other_ws, retired, superseded):
        store.insert(m)
    q = terms("kafka")
    assert {h.memory.ref for h in store.search(flt(), q, limit=10)} == {here.ref}
    assert {h.memory.ref for h in store.search(flt(("proj", "other")), q, limit=10)} == {
        here.ref,
        other_scope.ref,
    }
    both = flt(statuses=(Status.ACTIVE, Status.SUPERSEDED))
    assert {h.memory.ref for h in store.search(both, q, limit=10)} == {here.ref, superseded.ref}
    assert {h.memory.ref for h in store.search(flt(statuses=tuple(Status)), q, limit=10)} == {
        here.ref, retired.ref, superseded.ref}  # fmt: skip
    assert store.search(flt(), [], limit=10) == []
    assert store.search(flt(), terms("zookeeper"), limit=10) == []


def test_search_finds_matches_beyond_a_window_of_filtered_out_rows(store: MemoryStore) -> None:
    # Many better-ranked matches in another scope must not hide the one in ours.
    for _ in range(300):
        store.insert(mem("kafka kafka kafka", scope="other"))
    mine = mem("kafka consumers restart nightly after the long compaction run of the cluster")
    store.insert(mine)
    assert [h.memory.ref for h in store.search(flt(), ["kafka"], limit=5)] == [mine.ref]


def test_search_finds_a_weak_match_under_thousands_of_better_ones_elsewhere(store: MemoryStore) -> None:
    with store.transaction():
        for i in range(2500):
            store.insert(mem(f"kafka kafka offsets {i}", scope="other"))
        mine = mem("kafka consumers restart nightly after the long compaction run of the cluster")
        store.insert(mine)
        store.insert(mem("kafka", status=Status.RETIRED, status_at=T0))
    hits = store.search(flt(), ["kafka"], limit=3)
    assert [h.memory.ref for h in hits] == [mine.ref]


def test_search_limit(store: MemoryStore) -> None:
    for i in range(12):
        store.insert(mem(f"redis cache entry {i}"))
    assert len(store.search(flt(), ["redi"], limit=5)) == 5


@shared_store
@given(before=tricky_text, after=tricky_text)
def test_update_keeps_the_index_in_sync(store: MemoryStore, before: str, after: str) -> None:
    ws = fresh_workspace()
    memory = mem(before, workspace=ws)
    store.insert(memory)
    where = flt(workspace=ws)
    old, new = set(terms(before)), set(terms(after))
    for t in old:
        assert [h.memory.ref for h in store.search(where, [t], limit=3)] == [memory.ref], t
    store.update(memory.evolve(text=after))
    for t in old - new:
        assert store.search(where, [t], limit=3) == [], t
    for t in new:
        assert [h.memory.ref for h in store.search(where, [t], limit=3)] == [memory.ref], t
    # Any string is a term, never query syntax.
    for raw in (*before.split(), '"', "*", "NOT", "-x", "a OR b"):
        store.search(where, [raw], limit=3)


def test_update_of_reason_tags_and_citation_reindexes(store: MemoryStore) -> None:
    memory = mem("one writer only", reason="sqlite locks", tags=("storage",), source_ref="src/db.py")
    store.insert(memory)
    store.update(memory.evolve(reason="postgres advisory", tags=("infra",), source_ref="lib/pg.py"))
    for gone in ("sqlite", "storage", "db"):
        assert store.search(flt(), terms(gone), limit=3) == [], gone
    for found in ("postgres", "infra", "pg"):
        assert len(store.search(flt(), terms(found), limit=3)) == 1, found
    # A change that leaves the indexed fields alone keeps the memory findable.
    store.update(store.get(memory.workspace, memory.ref).evolve(hidden=True, uses=3))  # type: ignore[union-attr]
    assert len(store.search(flt(), terms("postgres"), limit=3)) == 1


def test_doc_freq_counts_documents_not_occurrences(store: MemoryStore) -> None:
    assert store.doc_freq(WS, ["anything"]) == (0, {})
    store.insert(mem("cache cache cache invalidation"))
    store.insert(mem("cache warming", reason="cold starts"))
    store.insert(mem("unrelated words", tags=("cache",)))
    total, df = store.doc_freq(WS, terms("cache invalidation warming missing"))
    assert total == 3
    assert df.get("cach") == 3
    assert df.get("invalid") == 1
    assert df.get("warm") == 1
    assert df.get("miss", 0) == 0
    assert store.doc_freq(WS, [])[0] == 3


# -- scopes ---------------------------------------------------------------------------------
def test_scopes_upsert_and_list(store: MemoryStore) -> None:
    row = ScopeRow(WS, "github.com/acme/shop", "project", "shop", "/src/shop", "acme", T0)
    store.upsert_scope(row)
    assert store.get_scope(WS, row.key) == row
    # An upsert without root or parent keeps the known ones; other fields change.
    store.upsert_scope(ScopeRow(WS, row.key, "project", "shop2", "", "", T0 + timedelta(days=1), T0))
    got = store.get_scope(WS, row.key)
    assert got is not None and (got.name, got.root, got.parent, got.removed_at) == (
        "shop2",
        "/src/shop",
        "acme",
        T0,
    )
    store.upsert_scope(ScopeRow(WS, "acme", "group", "acme", "", "", T0))
    store.upsert_scope(ScopeRow("other", "x", "personal", "x", "", "", T0))
    assert [s.key for s in store.list_scopes(WS)] == ["acme", "github.com/acme/shop"]
    assert store.get_scope(WS, "missing") is None


# -- history and use ------------------------------------------------------------------------
def test_events_in_time_order(store: MemoryStore) -> None:
    a, b = mem("alpha"), mem("bravo")
    store.insert(a)
    store.insert(b)
    later = MemoryEvent(a.ref, T0 + timedelta(hours=1), "superseded", "", b.ref)
    first = MemoryEvent(a.ref, T0, "created", "claude-code")
    same_time = MemoryEvent(a.ref, T0 + timedelta(hours=1), "retired", "why «ü»")
    for e in (later, first, same_time):
        store.add_event(WS, e)
    store.add_event(WS, MemoryEvent(b.ref, T0, "replaced", "", a.ref))
    assert store.events(WS, a.ref) == [first, later, same_time]
    assert store.events(WS, b.ref) == [MemoryEvent(b.ref, T0, "replaced", "", a.ref)]
    assert store.events(WS, "m:ffffffff") == []


def test_uses_by_ref_and_session(store: MemoryStore) -> None:
    a, b = mem("alpha"), mem("bravo")
    store.insert(a)
    store.insert(b)
    u2 = UseRow(a.ref, "s1", "codex", "main", T0 + timedelta(minutes=5))
    u1 = UseRow(a.ref, "s2", "claude-code", "feat/x", T0)
    u3 = UseRow(b.ref, "s1", "codex", "main", T0 + timedelta(minutes=1))
    for u in (u2, u1, u3):
        store.add_use(WS, u)
    assert store.uses(WS, a.ref) == [u1, u2]
    assert store.uses_in_session(WS, "s1") == [u3, u2]
    assert store.uses_in_session(WS, "none") == []
    other = mem("charlie", workspace="elsewhere")
    store.insert(other)
    store.add_use("elsewhere", UseRow(other.ref, "s1", "codex", "main", T0 + timedelta(minutes=2)))
    # The memory report's window: from `since` (held) to `until` (not held), this workspace only.
    assert store.uses_since(WS, T0) == [u1, u3, u2]
    assert store.uses_since(WS, T0 + timedelta(minutes=1), T0 + timedelta(minutes=5)) == [u3]
    assert store.uses_since("nobody", T0) == []


def test_use_sessions_count_distinct_named_sessions(store: MemoryStore) -> None:
    a, b, c = mem("alpha"), mem("bravo"), mem("charlie")
    for m in (a, b, c):
        store.insert(m)
    for ref, session in ((a.ref, "s1"), (a.ref, "s1"), (a.ref, "s2"), (b.ref, ""), (b.ref, "s3")):
        store.add_use(WS, UseRow(ref, session, "codex", "main", T0))
    assert store.use_sessions(WS, [a.ref, b.ref, c.ref, "m:ffffffff"]) == {a.ref: 2, b.ref: 1}
    assert store.use_sessions(WS, []) == {}
    assert store.use_sessions("other", [a.ref]) == {}


def test_nothing_crosses_workspaces(store: MemoryStore) -> None:
    """A ref, an event, a use, a doc, a review or a meta key of one workspace is not seen from another."""
    a = mem("alpha")
    store.insert(a)
    store.add_event(WS, MemoryEvent(a.ref, T0, "created"))
    store.add_use(WS, UseRow(a.ref, "s1", "codex", "main", T0))
    store.add_event("other", MemoryEvent(a.ref, T0, "retired"))  # names no memory of "other": nothing written
    store.add_use("other", UseRow(a.ref, "s9", "codex", "main", T0))
    saved = store.save_decision_doc(doc(memory_ref=a.ref))
    item = store.add_review(ReviewItem(0, WS, "proj", "merge", {"text": "x"}, "agent", T0, refs=(a.ref,)))
    store.set_meta(WS, "k", "mine")
    assert store.get("other", a.ref) is None and store.get_many("other", [a.ref]) == []
    assert store.events("other", a.ref) == [] and [e.event for e in store.events(WS, a.ref)] == ["created"]
    assert store.uses("other", a.ref) == [] and [u.session for u in store.uses(WS, a.ref)] == ["s1"]
    assert store.uses_in_session("other", "s1") == [] and store.uses_in_session(WS, "s9") == []
    assert store.decision_doc_by_id("other", saved.id) is None and store.decision_doc_for("other", a.ref) is None
    assert store.review("other", item.id) is None and store.open_reviews("other", "proj") == 0
    assert store.open_reviews(WS, "proj") == 1
    store.mark_recalled("other", [a.ref])
    assert store.get(WS, a.ref).recalled == 0  # type: ignore[union-attr]
    assert store.trigger_rows("other") == []


def test_pinned_filter(store: MemoryStore) -> None:
    plain, pinned, indexed = mem("alpha"), mem("bravo", pinned=True), mem("charlie", index_pinned=True)
    for m in (plain, pinned, indexed):
        store.insert(m)
    assert {m.ref for m in store.find(flt(pinned=True))} == {pinned.ref, indexed.ref}
    assert [m.ref for m in store.find(flt(pinned=False))] == [plain.ref]
    assert store.count(flt(pinned=True)) == 2


def test_trigger_rows_are_what_the_tool_call_hooks_may_deliver(store: MemoryStore) -> None:
    lesson = mem("run the linter first", kind=Kind.LESSON, trigger=Trigger(TriggerTool.SHELL, r"^git push\b"))
    cited = mem("the cache is warmed at start", kind=Kind.DECISION, source_ref="src/cache.py:10")
    fact_citing = mem("a fact citing a file", source_ref="src/other.py")
    hidden = mem("hidden lesson", kind=Kind.LESSON, trigger=Trigger(TriggerTool.SHELL, "x"), hidden=True)
    held = mem("held lesson", kind=Kind.LESSON, trigger=Trigger(TriggerTool.SHELL, "y"), held=True)
    gone = mem("gone", kind=Kind.LESSON, source_ref="src/gone.py", citation=Citation.GONE)
    retired = mem("retired", kind=Kind.LESSON, trigger=Trigger(TriggerTool.SHELL, "z"), status=Status.RETIRED)
    for m in (lesson, cited, fact_citing, hidden, held, gone, retired):
        store.insert(m)
    rows = store.trigger_rows(WS)
    assert [r.ref for r in rows] == [lesson.ref, cited.ref]
    first = rows[0]
    assert (first.trigger, first.source_ref, first.kind, first.workspace, first.scope) == (
        lesson.trigger.to_text(), "", Kind.LESSON, WS, "proj")  # type: ignore[union-attr]
    assert rows[1].trigger is None and rows[1].source_ref == "src/cache.py:10"
    assert rows[0].order < rows[1].order


def test_tidy_counts(store: MemoryStore) -> None:
    old = T0 - timedelta(days=90)
    store.insert(mem("awake fact"))
    store.insert(mem("resting fact", created_at=old, confirmed_at=old))
    store.insert(mem("resting but pinned", created_at=old, confirmed_at=old, pinned=True))
    store.insert(mem("a preference", kind=Kind.PREFERENCE, created_at=old, confirmed_at=old))
    store.insert(mem("a decision", kind=Kind.DECISION))
    store.insert(mem("a lesson", kind=Kind.LESSON, trigger=Trigger(TriggerTool.SHELL, "x")))
    store.insert(mem("retired", status=Status.RETIRED))
    store.insert(mem("elsewhere", scope="other"))
    counts = store.tidy_counts(WS, "proj", T0 - timedelta(days=30))
    assert (counts.awake, counts.preferences_and_decisions, counts.triggered_lessons) == (5, 2, 1)
    assert store.tidy_counts(WS, "none", T0).awake == 0


# -- decision docs --------------------------------------------------------------------------
def doc(**changes: object) -> DecisionDoc:
    base = DecisionDoc(
        id=0, workspace=WS, scope="proj", title="Use Postgres", decision="We use Postgres because of jsonb",
        reason="jsonb «queries»", rejected="MySQL", confidence=0.95, source_ref="db/schema.sql",
        outcome=("To be determined.",), memory_ref="m:00000001", author="claude-code", created_at=T0,
        updated_at=T0, area="storage",
    )  # fmt: skip
    from dataclasses import replace

    return replace(base, **changes)  # type: ignore[arg-type]


def test_decision_docs(store: MemoryStore) -> None:
    saved = store.save_decision_doc(doc())
    assert saved.id > 0 and saved == doc(id=saved.id)
    assert store.decision_doc_by_id(WS, saved.id) == saved
    assert store.decision_doc(WS, "proj", "Use Postgres", "claude-code") == saved
    assert store.decision_doc(WS, "proj", "Use Postgres", "teammate") is None
    mine = store.save_decision_doc(
        doc(author="teammate", updated_at=T0 + timedelta(days=2), memory_ref="m:00000002")
    )
    assert mine.id != saved.id
    updated = doc(id=saved.id, reason="new reasoning", outcome=('Shipped in "Fix it" (link)', "Reverted: x"),
                  updated_at=T0 + timedelta(days=3), memory_ref="m:00000003")  # fmt: skip
    assert store.save_decision_doc(updated) == updated
    assert store.decision_doc_by_id(WS, saved.id) == updated
    assert store.decision_doc_for(WS, "m:00000003") == updated
    assert store.decision_doc_for(WS, "m:00000001") is None
    store.save_decision_doc(doc(scope="other", title="Other"))
    assert [d.id for d in store.decision_docs(WS, ["proj"])] == [saved.id, mine.id]  # newest update first
    assert len(store.decision_docs(WS, ["proj", "other"])) == 3
    assert store.decision_doc_by_id(WS, 9999) is None


def test_outcomes_by_memory(store: MemoryStore) -> None:
    store.save_decision_doc(doc(memory_ref="m:00000001", outcome=("Shipped in x",)))
    store.save_decision_doc(doc(memory_ref="m:00000001", author="teammate", outcome=("Reverted: y",)))
    store.save_decision_doc(doc(memory_ref="m:00000002", title="Other", outcome=()))
    assert store.outcomes(WS, ["m:00000001", "m:00000002", "m:00000009"]) == {
        "m:00000001": ("Shipped in x", "Reverted: y"), "m:00000002": ()}
    assert store.outcomes("other", ["m:00000001"]) == {}


# -- reviews --------------------------------------------------------------------------------
def test_reviews(store: MemoryStore) -> None:
    payload: dict[str, object] = {
        "text": '«contradiction» "quoted"',
        "confidence": 0.7,
        "nested": {"a": [1, 2]},
    }
    item = store.add_review(
        ReviewItem(0, WS, "proj", "contradiction", payload, "codex", T0, refs=("m:00000001",))
    )
    assert item.id > 0
    assert item == ReviewItem(
        item.id, WS, "proj", "contradiction", payload, "codex", T0, refs=("m:00000001",)
    )
    other = store.add_review(
        ReviewItem(0, WS, "other", "merge", {"text": "x"}, "agent", T0, refs=("m:1", "m:2"))
    )
    assert store.review(WS, item.id) == item
    assert [r.id for r in store.reviews(WS, ["proj", "other"])] == [item.id, other.id]
    resolved = ReviewItem(item.id, WS, "proj", "contradiction", {**payload, "effects": {"created": ["m:3"]}},
                          "codex", T0, resolved_at=T0 + timedelta(hours=1), resolution="keep-both", batch="b1",
                          refs=("m:00000001",))  # fmt: skip
    store.update_review(resolved)
    assert store.review(WS, item.id) == resolved
    assert [r.id for r in store.reviews(WS, ["proj"])] == []
    assert [r.id for r in store.reviews(WS, ["proj"], open_only=False)] == [item.id]
    assert store.review(WS, 9999) is None


# -- policies and meta ----------------------------------------------------------------------
def test_policies_per_level(store: MemoryStore) -> None:
    store.set_policy(WS, "", "preset", '"decisions-and-lessons"', T0)
    store.set_policy(WS, "proj", "banned_words", '["acme"]', T0)
    store.set_policy(WS, "proj", "banned_words", '["acme", "zeta"]', T0 + timedelta(days=1))
    store.set_policy(WS, "proj", "capture", "false", T0)
    store.set_policy("other", "proj", "capture", "true", T0)
    assert store.policies(WS, "") == {"preset": '"decisions-and-lessons"'}
    assert store.policies(WS, "proj") == {"banned_words": '["acme", "zeta"]', "capture": "false"}
    store.clear_policy(WS, "proj", "capture")
    store.clear_policy(WS, "proj", "never-set")
    assert store.policies(WS, "proj") == {"banned_words": '["acme", "zeta"]'}
    assert store.policies(WS, "group") == {}


@shared_store
@given(key=any_text, first=any_text, second=any_text)
def test_meta(store: MemoryStore, key: str, first: str, second: str) -> None:
    store.set_meta(WS, key, first)
    assert store.get_meta(WS, key) == first
    store.set_meta(WS, key, second)
    assert store.get_meta(WS, key) == second
    assert store.get_meta(WS, key + "\x01missing") is None


# -- listing filters, facets and the sessions that wrote ------------------------------------


def test_filters_by_origin_and_writer_and_counts_each_facet(store: MemoryStore) -> None:
    rows = [
        mem("cli fact", origin=Origin.PERSON, origin_tool="cli"),
        mem("agent lesson", kind=Kind.LESSON, origin_tool="claude-code"),
        mem("agent fact", origin_tool="codex"),
        mem("retired fact", origin_tool="codex", status=Status.RETIRED, status_at=T0),
        mem("other scope", scope="elsewhere", origin_tool="codex"),
    ]
    for m in rows:
        store.insert(m)
    everything = flt(statuses=tuple(Status))
    assert [m.text for m in store.find(flt(origins=(Origin.PERSON,)))] == ["cli fact"]
    assert sorted(m.text for m in store.find(flt(origin_tools=("codex",), statuses=tuple(Status)))) == [
        "agent fact", "retired fact"]  # fmt: skip
    assert store.count(flt(origins=(Origin.AGENT,), origin_tools=("codex",))) == 1
    assert store.facet_counts(everything, "kind") == {"fact": 3, "lesson": 1}
    assert store.facet_counts(everything, "status") == {"active": 3, "retired": 1}
    assert store.facet_counts(flt(), "origin") == {"person": 1, "agent": 2}
    assert store.facet_counts(everything, "origin_tool") == {"cli": 1, "claude-code": 1, "codex": 2}
    assert store.facet_counts(everything, "citation") == {"unchecked": 4}
    with pytest.raises(ValueError):
        store.facet_counts(everything, "text")
    assert store.facet_groups(everything, ("kind", "status", "origin_tool")) == {
        ("fact", "active", "cli"): 1, ("lesson", "active", "claude-code"): 1, ("fact", "active", "codex"): 1,
        ("fact", "retired", "codex"): 1}  # fmt: skip
    assert store.facet_groups(flt(origins=(Origin.AGENT,)), ("origin",)) == {("agent",): 2}
    with pytest.raises(ValueError):
        store.facet_groups(everything, ("kind", "text"))


def test_sessions_written_latest_first_with_active_counts(store: MemoryStore) -> None:
    store.insert(mem("one", session="s1", created_at=T0))
    store.insert(mem("two", session="s1", created_at=T0 + timedelta(hours=1), status=Status.RETIRED, status_at=T0))
    store.insert(mem("three", session="s2", created_at=T0 + timedelta(hours=2)))
    store.insert(mem("no session", created_at=T0 + timedelta(hours=3)))
    store.insert(mem("elsewhere", session="s3", scope="other"))
    written = store.sessions_written(WS, ["proj"])
    assert [(w.session, w.memories, w.active) for w in written] == [("s2", 1, 1), ("s1", 2, 1)]
    assert written[1].first_at == T0 and written[1].last_at == T0 + timedelta(hours=1)
    assert [w.session for w in store.sessions_written(WS, ["proj"], limit=1)] == ["s2"]


def test_memory_scopes_lists_every_key_holding_a_memory(store: MemoryStore) -> None:
    store.insert(mem("a", scope="github.com/acme/shop"))
    store.insert(mem("b", scope="global"))
    store.insert(mem("c", scope="github.com/acme/shop"))
    store.insert(mem("elsewhere", scope="x", workspace="other"))
    assert store.memory_scopes(WS) == ["github.com/acme/shop", "global"]


def test_idle_before_keeps_unpinned_memories_with_no_activity_since(store: MemoryStore) -> None:
    cut = T0 + timedelta(days=10)
    idle = mem("idle", created_at=T0, confirmed_at=T0)
    used = mem("used lately", created_at=T0, confirmed_at=T0, last_used_at=cut + timedelta(hours=1))
    confirmed = mem("confirmed lately", created_at=T0, confirmed_at=cut)
    pinned = mem("pinned", created_at=T0, confirmed_at=T0, pinned=True)
    indexed = mem("in the index", created_at=T0, confirmed_at=T0, index_pinned=True)
    old_use = mem("used long ago", created_at=T0, confirmed_at=T0, last_used_at=T0 + timedelta(days=1))
    for m in (idle, used, confirmed, pinned, indexed, old_use):
        store.insert(m)
    assert sorted(m.text for m in store.find(flt(idle_before=cut))) == ["idle", "used long ago"]
    assert store.count(flt(idle_before=cut, kinds=(Kind.LESSON,))) == 0


def test_delete_takes_the_memory_its_index_history_and_uses(store: MemoryStore) -> None:
    keep = mem("the api deploys from main every morning")
    gone = mem("the quartermaster service deploys from main")
    for m in (keep, gone):
        store.insert(m)
    store.add_event(WS, MemoryEvent(gone.ref, T0, "created"))
    store.add_use(WS, UseRow(gone.ref, "s1", "codex", "main", T0))
    store.add_placement(Placement(gone.ref, WS, Placing.NO_AGENT_RUNS, "", T0))
    before, _ = store.doc_freq(WS, terms("deploy"))
    assert store.delete("other", gone.ref) is False  # another workspace's ref
    assert store.delete(WS, gone.ref) is True and store.delete(WS, gone.ref) is False
    assert store.get(WS, gone.ref) is None and store.events(WS, gone.ref) == [] and store.uses(WS, gone.ref) == []
    assert store.placements(WS, [gone.ref]) == []
    assert store.search(flt(), terms("quartermaster"), limit=10) == []
    assert [h.memory.ref for h in store.search(flt(), terms("deploys"), limit=10)] == [keep.ref]
    after, freq = store.doc_freq(WS, terms("deploys quartermaster"))
    assert after == before - 1 and sum(freq.values()) == 1  # "deploy" in one memory, "quartermaster" in none


def test_tombstones_are_kept_once_per_key(store: MemoryStore) -> None:
    ws = fresh_workspace()
    assert store.add_tombstone(ws, "memory", "m:0badf00d", "abc", T0) is True
    assert store.add_tombstone(ws, "memory", "m:0badf00d", "abc", T0) is False
    store.add_tombstone(ws, "session", "claude:s1", "", T0)
    assert [(t.kind, t.key, t.digest) for t in store.tombstones(ws)] == [("memory", "m:0badf00d", "abc"),
                                                                          ("session", "claude:s1", "")]  # fmt: skip
    assert store.tombstones(fresh_workspace()) == []


# -- placements -----------------------------------------------------------------------------
def test_placements_add_once_list_find_by_place_and_undo(store: MemoryStore) -> None:
    a, b = mem("first"), mem("second")
    for m in (a, b):
        store.insert(m)
    always = Placement(a.ref, WS, Placing.ALWAYS, "proj", T0, "cli")
    assert store.add_placement(always) is True
    assert store.add_placement(always.__class__(a.ref, WS, Placing.ALWAYS, "proj", T0 + timedelta(days=1))) is False
    store.add_placement(Placement(a.ref, WS, Placing.NOT_HERE, "group:web", T0 + timedelta(hours=1)))
    store.add_placement(Placement(b.ref, WS, Placing.NO_AGENT_RUNS, "", T0 + timedelta(hours=2), "web"))
    store.add_placement(Placement(b.ref, "other-ws", Placing.ALWAYS, "proj", T0))
    assert store.placements(WS, [a.ref]) == [always, Placement(a.ref, WS, Placing.NOT_HERE, "group:web",
                                                               T0 + timedelta(hours=1))]  # fmt: skip
    assert [p.ref for p in store.placed(WS, Placing.ALWAYS, ["proj", "group:web"])] == [a.ref]
    assert [p.ref for p in store.placed(WS, Placing.NOT_HERE, ["proj"])] == []
    assert [p.by for p in store.placed(WS, Placing.NO_AGENT_RUNS, [""])] == ["web"]
    assert store.placements(WS, []) == [] and store.placed(WS, Placing.ALWAYS, []) == []
    assert store.remove_placement(WS, a.ref, Placing.ALWAYS, "proj") is True
    assert store.remove_placement(WS, a.ref, Placing.ALWAYS, "proj") is False
    assert [p.decision for p in store.placements(WS, [a.ref, b.ref])] == [Placing.NOT_HERE, Placing.NO_AGENT_RUNS]


def test_pinned_and_used_since_filters(store: MemoryStore) -> None:
    pinned, index_pinned, plain = mem("a", pinned=True), mem("b", index_pinned=True), mem("c")
    used_late = mem("d", last_used_at=T0 + timedelta(days=10))
    used_early = mem("e", last_used_at=T0 - timedelta(days=10))
    for m in (pinned, index_pinned, plain, used_late, used_early):
        store.insert(m)
    assert {m.ref for m in store.find(flt(pinned=True))} == {pinned.ref, index_pinned.ref}
    assert [m.ref for m in store.find(flt(used_since=T0))] == [used_late.ref]
    written_late = mem("f", created_at=T0 + timedelta(days=3))
    store.insert(written_late)
    assert [m.ref for m in store.find(flt(created_since=T0 + timedelta(days=1)))] == [written_late.ref]
    assert store.count(flt(created_since=T0)) == 6


def test_revision_moves_on_every_memory_and_scope_write_and_only_then(store: MemoryStore, tmp_path: Path,
                                                                     request: pytest.FixtureRequest) -> None:  # fmt: skip
    from backends import BACKENDS

    seen = [store.revision(WS)]

    def moved() -> bool:
        seen.append(store.revision(WS))
        return seen[-1] != seen[-2]

    memory = mem("the api deploys from main")
    store.insert(memory)
    assert moved()
    store.update(memory.evolve(tags=("deploy",)))
    assert moved()
    store.mark_recalled(WS, [memory.ref])
    assert moved()
    store.upsert_scope(ScopeRow(WS, "proj", "project", "proj", "/src/proj", "", T0))
    assert moved()
    store.add_event(WS, MemoryEvent(memory.ref, T0, "created"))  # history, uses and meta: no memory changed
    store.add_use(WS, UseRow(memory.ref, "s1", "codex", "main", T0))
    store.set_meta(WS, "k", "v")
    store.get(WS, memory.ref)
    assert not moved()
    with pytest.raises(RuntimeError), store.transaction():
        store.insert(mem("rolled back"))
        raise RuntimeError
    assert not moved()
    store.delete(WS, memory.ref)
    assert moved()
    assert len(set(seen)) == 6  # never back to an earlier value
    other, close = BACKENDS[request.node.callspec.params["stores"]](tmp_path / "another")  # the same backend
    try:
        assert other.memories.revision(WS) not in seen  # two stores never share one
    finally:
        close()


def test_glances_read_the_active_memories_fields_a_look_needs(store: MemoryStore) -> None:
    ws = fresh_workspace()
    a = mem("Deploys go out on Tuesdays.", workspace=ws, session="s1", source_ref="ops/deploy.md:3",
            source_hash="v1:abc", tags=("ops",))  # fmt: skip
    b = mem("Billing rounds each line", workspace=ws, scope="other", session="s2", recalled=3)
    retired = mem("An old claim", workspace=ws, session="s3", status=Status.RETIRED)
    for m in (a, b, retired):
        store.insert(m)
    glances = store.glances(ws)
    assert [(g.ref, g.scope, g.text, g.session, g.source_ref, g.source_hash, g.tagged, g.recalled) for g in glances] == [
        (a.ref, "proj", a.text, "s1", "ops/deploy.md:3", "v1:abc", 1, 0),
        (b.ref, "other", b.text, "s2", "", "", 0, 3)]  # fmt: skip
    assert [g.ref for g in store.glances(ws, "other")] == [b.ref]
    assert sorted(store.session_scopes(ws, ["s1", "s3", "s9", ""])) == [("s1", "proj"), ("s3", "proj")]
    assert store.session_scopes(ws, []) == [] and store.session_scopes(fresh_workspace(), ["s1"]) == []
