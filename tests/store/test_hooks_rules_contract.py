"""The HookStateStore and RuleStore contracts: every backend passes this same suite (protocol
methods only, no SQL). What the hooks and the rules make of these rows is tested in tests/hooks
and tests/core."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kenning.redacted import EMPTY, redacted
from kenning.store.protocol import HookStateStore, RuleStore, SessionRow, Stores

WS = "ws"
SHOP = "github.com/acme/shop"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def hooks(stores: Stores) -> HookStateStore:
    return stores.hooks


@pytest.fixture
def rules(stores: Stores) -> RuleStore:
    return stores.rules


def session(key: str, *, workspace: str = WS, project: str = SHOP, at: datetime = T0) -> SessionRow:
    return SessionRow(key, key.split(":")[0], workspace, project, "main", "/src/shop", at, at, None, False, None, None,
                      EMPTY, EMPTY, False, False, False, 0)  # fmt: skip


# -- sessions ---------------------------------------------------------------------------------
def test_sessions_are_added_once_and_updated_by_field(hooks: HookStateStore) -> None:
    hooks.add_session(session("claude:s1"))
    hooks.add_session(session("claude:s1", project="github.com/acme/blog"))  # registered already: kept as it was
    got = hooks.session(WS, "claude:s1")
    assert got is not None and (got.tool, got.project, got.started_at, got.prompts) == ("claude", SHOP, T0, 0)
    assert hooks.session("other", "claude:s1") is None

    hooks.update_session(WS, "claude:s1", prompts=3, recalled=True, opening=redacted("fix the login"),
                         last_seen=T0 + timedelta(minutes=5), ended_at=T0 + timedelta(minutes=6))  # fmt: skip
    got = hooks.session(WS, "claude:s1")
    assert got is not None and (got.prompts, got.recalled, got.opening) == (3, True, "fix the login")
    assert (got.last_seen, got.ended_at) == (T0 + timedelta(minutes=5), T0 + timedelta(minutes=6))
    hooks.update_session("other", "claude:s1", prompts=9)  # another workspace's update touches nothing here
    assert (hooks.session(WS, "claude:s1") or got).prompts == 3
    with pytest.raises(ValueError):
        hooks.update_session(WS, "claude:s1", started_at=T0)  # not a field it may change


def test_text_fields_are_redacted_on_the_way_in(hooks: HookStateStore) -> None:
    hooks.add_session(session("claude:s1"))
    secret = "AKIA" + "IOSFODNN7EXAMPLE"
    hooks.update_session(WS, "claude:s1", last_message=f"the key is {secret}")
    got = hooks.session(WS, "claude:s1")
    assert got is not None and secret not in got.last_message and "the key is" in got.last_message


def test_live_and_all_sessions(hooks: HookStateStore) -> None:
    hooks.add_session(session("claude:old", at=T0 - timedelta(days=2)))
    hooks.add_session(session("codex:s2", at=T0))
    hooks.add_session(session("claude:s3", at=T0 + timedelta(minutes=1)))
    hooks.add_session(session("gemini:s4", at=T0, project="github.com/acme/blog"))
    hooks.add_session(session("claude:s5", at=T0, workspace="other"))
    hooks.update_session(WS, "claude:s3", ended_at=T0 + timedelta(minutes=2))
    assert [s.session for s in hooks.live_sessions(WS, SHOP, T0 - timedelta(hours=1))] == ["codex:s2"]
    assert [s.session for s in hooks.all_sessions(WS)] == ["claude:old", "codex:s2", "gemini:s4", "claude:s3"]


def test_forget_session_by_qualified_or_raw_id(hooks: HookStateStore) -> None:
    hooks.add_session(session("claude:s1"))
    hooks.add_session(session("codex:s2"))
    hooks.mark_shown(WS, "claude:s1", "lesson", ["m:1"], T0)
    hooks.forget_session(WS, "s1")
    assert hooks.session(WS, "claude:s1") is None and hooks.shown(WS, "claude:s1", "lesson") == set()
    hooks.forget_session(WS, "codex:s2")
    assert hooks.all_sessions(WS) == []


# -- shown once -------------------------------------------------------------------------------
def test_shown_once(hooks: HookStateStore) -> None:
    hooks.add_session(session("claude:s1"))
    hooks.add_session(session("codex:s2"))
    hooks.mark_shown(WS, "claude:s1", "lesson", ["m:1", "m:2"], T0)
    hooks.mark_shown(WS, "claude:s1", "lesson", ["m:1"], T0 + timedelta(minutes=1))  # shown already: kept once
    hooks.mark_shown(WS, "claude:s1", "note", ["branch"], T0 + timedelta(minutes=2))
    hooks.mark_shown(WS, "codex:s2", "lesson", ["m:1"], T0)
    assert hooks.shown(WS, "claude:s1", "lesson") == {"m:1", "m:2"}
    assert hooks.shown_rows(WS, "claude:s1") == [("lesson", "m:1", T0), ("lesson", "m:2", T0),
                                                 ("note", "branch", T0 + timedelta(minutes=2))]  # fmt: skip
    assert hooks.shown_count(WS, "lesson", "m:1") == 2 and hooks.shown_count(WS, "lesson", "m:3") == 0
    assert hooks.shown_count("other", "lesson", "m:1") == 0


# -- asks and the lesson stamp ----------------------------------------------------------------
def test_asks(hooks: HookStateStore) -> None:
    assert hooks.last_ask(WS, SHOP, "tidy") is None
    hooks.set_ask(WS, SHOP, "tidy", T0, "claude:s1")
    hooks.set_ask(WS, SHOP, "tidy", T0 + timedelta(days=7), "claude:s2")
    assert hooks.last_ask(WS, SHOP, "tidy") == T0 + timedelta(days=7)
    assert hooks.last_ask(WS, SHOP, "review") is None and hooks.last_ask("other", SHOP, "tidy") is None


def test_the_lesson_stamp_moves_when_a_lesson_is_written(stores: Stores) -> None:
    from kenning.model import Kind, Memory, Origin, Trigger, TriggerTool

    before = stores.hooks.lesson_stamp(WS)
    stores.memories.insert(Memory(ref="m:00000001", workspace=WS, scope=SHOP, text="run the tests with -n 2",
                               kind=Kind.LESSON, confidence=0.7, origin=Origin.AGENT, created_at=T0, confirmed_at=T0,
                               trigger=Trigger(TriggerTool.SHELL, "pytest")))  # fmt: skip
    assert stores.hooks.lesson_stamp(WS) != before


# -- rules ------------------------------------------------------------------------------------
def test_rules_for_a_project_and_for_all(rules: RuleStore) -> None:
    everywhere = rules.add_rule(WS, "", "unused", 30, "note", redacted(""), T0)
    mine = rules.add_rule(WS, SHOP, "sentence", 0, "", redacted("no memories about the old API"), T0)
    blog = rules.add_rule(WS, "github.com/acme/blog", "proven", 3, "lesson", redacted(""), T0)
    assert [r.id for r in rules.rules(WS, SHOP)] == [mine, everywhere]  # newest first
    assert [r.id for r in rules.rules(WS)] == [blog, mine, everywhere]
    got = rules.rule(WS, mine)
    assert got is not None and (got.workspace, got.project, got.kind, got.n, got.memory_kind) == (WS, SHOP, "sentence", 0, "")
    assert (got.text, got.enabled, got.created_at) == ("no memories about the old API", True, T0)
    assert rules.rule(WS, max(everywhere, mine, blog) + 1000) is None

    rules.update_rule(WS, everywhere, T0 + timedelta(hours=1), enabled=False, n=60)
    assert [r.id for r in rules.rules(WS, SHOP, enabled_only=True)] == [mine]
    assert [r.id for r in rules.rules(WS, SHOP)] == [mine, everywhere]  # a rule turned off is still listed
    changed = rules.rule(WS, everywhere)
    assert changed is not None and (changed.n, changed.enabled, changed.created_at) == (60, False, T0)
    rules.update_rule(WS, mine, T0, text="no memories about the v1 API", memory_kind="decision")
    changed = rules.rule(WS, mine)
    assert changed is not None and (changed.text, changed.memory_kind) == ("no memories about the v1 API", "decision")
    with pytest.raises(ValueError):
        rules.update_rule(WS, mine, T0, kind="proven")  # not a field it may change
    rules.delete_rule(WS, mine)
    assert rules.rule(WS, mine) is None and [r.id for r in rules.rules(WS)] == [blog, everywhere]


def test_rule_text_is_redacted_on_the_way_in(rules: RuleStore) -> None:
    secret = "AKIA" + "IOSFODNN7EXAMPLE"
    rid = rules.add_rule(WS, SHOP, "sentence", 0, "", redacted("nothing about the old API"), T0)
    rules.update_rule(WS, rid, T0, text=f"nothing about {secret}")  # plain text through the generic update
    got = rules.rule(WS, rid)
    assert got is not None and secret not in got.text and got.text.startswith("nothing about")
    assert secret not in "".join(rules.sentence_rules(WS, SHOP))


def test_rules_stay_in_their_workspace(rules: RuleStore) -> None:
    mine = rules.add_rule(WS, SHOP, "sentence", 0, "", redacted("no memories about the old API"), T0)
    theirs = rules.add_rule("other", SHOP, "sentence", 0, "", redacted("not ours"), T0)
    assert [r.id for r in rules.rules(WS, SHOP)] == [mine] and [r.id for r in rules.rules("other")] == [theirs]
    assert rules.rule("other", mine) is None and rules.rule(WS, theirs) is None
    assert rules.sentence_rules("other", SHOP) == ["not ours"]
    rules.update_rule("other", mine, T0, enabled=False)  # another workspace can neither change it ...
    rules.delete_rule("other", mine)  # ... nor delete it
    got = rules.rule(WS, mine)
    assert got is not None and got.enabled


def test_sentence_rules_in_the_order_the_brief_shows_them(rules: RuleStore) -> None:
    rules.add_rule(WS, "", "sentence", 0, "", redacted("all: oldest"), T0)
    rules.add_rule(WS, SHOP, "sentence", 0, "", redacted("mine: newer"), T0 + timedelta(days=2))
    rules.add_rule(WS, SHOP, "sentence", 0, "", redacted("mine: older"), T0 + timedelta(days=1))
    rules.add_rule(WS, SHOP, "sentence", 0, "", redacted("mine: older, written later"), T0 + timedelta(days=1))
    rules.add_rule(WS, "", "sentence", 0, "", redacted("all: newest"), T0 + timedelta(days=3))
    off = rules.add_rule(WS, SHOP, "sentence", 0, "", redacted("mine: off"), T0)
    rules.add_rule(WS, SHOP, "unused", 30, "note", redacted(""), T0)
    rules.add_rule(WS, "github.com/acme/blog", "sentence", 0, "", redacted("the blog's"), T0)
    rules.update_rule(WS, off, T0, enabled=False)
    assert rules.sentence_rules(WS, SHOP) == ["mine: older", "mine: older, written later", "mine: newer",
                                              "all: oldest", "all: newest"]  # fmt: skip
    assert rules.sentence_rules(WS, "github.com/acme/blog") == ["the blog's", "all: oldest", "all: newest"]
    assert rules.sentence_rules(WS, "github.com/acme/docs") == ["all: oldest", "all: newest"]


def _memory(ref: str, kind: str, *, scope: str = SHOP, status: str = "active") -> Any:
    from kenning.model import Kind, Memory, Origin, Status

    return Memory(ref=ref, workspace=WS, scope=scope, text=f"memory {ref}", kind=Kind(kind), confidence=0.8,
                  origin=Origin.AGENT, created_at=T0, confirmed_at=T0, status=Status(status),
                  status_at=None if status == "active" else T0)  # fmt: skip


def test_count_unproven_lessons_by_distinct_sessions(stores: Stores) -> None:
    from kenning.store.protocol import UseRow

    memories, rules = stores.memories, stores.rules
    for ref, kind, scope, status in (("m:00000001", "lesson", SHOP, "active"), ("m:00000002", "lesson", SHOP, "active"),
                                     ("m:00000003", "lesson", SHOP, "active"), ("m:00000004", "lesson", SHOP, "retired"),
                                     ("m:00000005", "fact", SHOP, "active"),
                                     ("m:00000006", "lesson", "github.com/acme/blog", "active")):  # fmt: skip
        memories.insert(_memory(ref, kind, scope=scope, status=status))
    for session in ("claude:a", "claude:b", "codex:c"):  # proven: three distinct sessions
        memories.add_use(WS, UseRow("m:00000001", session, "claude", "main", T0))
    for session in ("claude:a", "claude:a", ""):  # one session twice, and a use of no session
        memories.add_use(WS, UseRow("m:00000002", session, "claude", "main", T0))
    assert rules.count_unproven(WS, [SHOP], 3) == 2  # m:2 (one session) and m:3 (none)
    assert rules.count_unproven(WS, [SHOP], 2) == 2
    assert rules.count_unproven(WS, [SHOP], 1) == 1  # m:3
    assert rules.count_unproven(WS, [SHOP, "github.com/acme/blog"], 1) == 2
    assert rules.count_unproven(WS, ["github.com/acme/docs"], 3) == 0


def test_count_decisions_by_the_first_word_of_an_outcome_line(stores: Stores) -> None:
    from kenning.model import DecisionDoc

    memories, rules = stores.memories, stores.rules
    outcomes = {
        "m:00000001": ("Shipped in 2.1",),
        "m:00000002": ("To be determined.", "UNDONE: reverted after the outage"),
        "m:00000004": (),
        "m:00000005": ("\u212aept as it was",),  # KELVIN SIGN: not an ASCII K, so not "kept"
        "m:00000006": ("shipped",),  # a retired decision counts for nothing
    }
    for n in range(1, 8):
        ref = f"m:{n:08x}"
        memories.insert(_memory(ref, "fact" if n == 7 else "decision", status="retired" if n == 6 else "active"))
        if ref in outcomes:
            memories.save_decision_doc(DecisionDoc(
                id=0, workspace=WS, scope=SHOP, title=redacted(f"decision {n}"), decision=redacted("we chose"),
                reason=redacted("because"), rejected=redacted(""), confidence=0.9, source_ref="",
                outcome=tuple(redacted(line) for line in outcomes[ref]), memory_ref=ref, author="claude",
                created_at=T0, updated_at=T0))  # fmt: skip
    # Active decisions: m:1, m:2, m:3 (no doc), m:4 (no outcome), m:5.
    assert rules.count_decisions_by_outcome(WS, [SHOP], "shipped", having=True) == 1
    assert rules.count_decisions_by_outcome(WS, [SHOP], "shipped", having=False) == 4
    assert rules.count_decisions_by_outcome(WS, [SHOP], "undone", having=True) == 1
    assert rules.count_decisions_by_outcome(WS, [SHOP], "kept", having=True) == 0
    assert rules.count_decisions_by_outcome(WS, ["github.com/acme/docs"], "shipped", having=False) == 0


# -- deliveries -------------------------------------------------------------------------------
def test_deliveries_are_kept_once_per_session_channel_and_ref(hooks: HookStateStore) -> None:
    hooks.add_deliveries(WS, "claude:s1", "lesson", ["m:1", "m:2", "m:1"], SHOP, "claude", T0)
    hooks.add_deliveries(WS, "claude:s1", "lesson", ["m:1"], SHOP, "claude", T0 + timedelta(minutes=5))  # kept: the first
    hooks.add_deliveries(WS, "claude:s1", "recall", ["m:1"], SHOP, "claude", T0 + timedelta(minutes=1))
    hooks.add_deliveries(WS, "", "index", ["m:3"], SHOP, "cli", T0 + timedelta(minutes=2))  # no session known
    hooks.add_deliveries(WS, "", "index", ["m:3"], SHOP, "cli", T0 + timedelta(minutes=3))  # ... each call counts
    hooks.add_deliveries("other", "codex:s2", "card", ["m:9"], SHOP, "codex", T0)
    got = [(d.session, d.channel, d.ref, d.at) for d in hooks.deliveries(WS, T0 - timedelta(days=1))]
    assert got == [("claude:s1", "lesson", "m:1", T0), ("claude:s1", "lesson", "m:2", T0),
                   ("claude:s1", "recall", "m:1", T0 + timedelta(minutes=1)),
                   ("", "index", "m:3", T0 + timedelta(minutes=2)), ("", "index", "m:3", T0 + timedelta(minutes=3))]  # fmt: skip
    window = hooks.deliveries(WS, T0 + timedelta(minutes=1), T0 + timedelta(minutes=3))
    assert [(d.channel, d.ref) for d in window] == [("recall", "m:1"), ("index", "m:3")]
    assert {d.workspace for d in hooks.deliveries(WS, T0)} == {WS}
    assert [d.ref for d in hooks.deliveries("other", T0)] == ["m:9"]
    with pytest.raises(ValueError):
        hooks.add_deliveries(WS, "claude:s1", "email", ["m:1"], SHOP, "claude", T0)


def test_forgetting_a_session_takes_its_deliveries(hooks: HookStateStore) -> None:
    hooks.add_session(session("claude:s1"))
    hooks.add_deliveries(WS, "claude:s1", "lesson", ["m:1"], SHOP, "claude", T0)
    hooks.add_deliveries(WS, "claude:s9", "recall", ["m:2"], SHOP, "claude", T0)  # a session the hooks never saw
    hooks.add_deliveries(WS, "codex:s2", "recall", ["m:3"], SHOP, "codex", T0)
    hooks.forget_session(WS, "claude:s1")
    hooks.forget_session(WS, "s9")
    assert [d.ref for d in hooks.deliveries(WS, T0)] == ["m:3"]
