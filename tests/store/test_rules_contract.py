"""The RuleStore contract: every backend passes this same suite (protocol methods only, no SQL).
What the rules make of these rows is tested in tests/core.

The test that writes a second workspace to check the two stay apart is kept apart from the
rest: the bound PostgreSQL backend (a role that cannot act in another workspace) skips it and
runs the others beside another workspace's look-alike rules (tests/store/intruder.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kenning.redacted import redacted
from kenning.store.protocol import RuleStore, Stores

WS = "ws"
SHOP = "github.com/acme/shop"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def rules(stores: Stores) -> RuleStore:
    return stores.rules


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
