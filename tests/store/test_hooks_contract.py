"""The HookStateStore contract: every backend passes this same suite (protocol methods only, no
SQL). What the hooks make of these rows is tested in tests/hooks.

Tests that write a second workspace to check the two stay apart are kept apart from the rest:
the bound PostgreSQL backend (a role that cannot act in another workspace) skips those and
runs the others beside another workspace's look-alike rows (tests/store/intruder.py)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from kenning.model import Kind, Memory, Origin, Status, Trigger, TriggerTool
from kenning.redacted import EMPTY, redacted
from kenning.store.protocol import HookStateStore, SessionRow, Stores

WS = "ws"
SHOP = "github.com/acme/shop"
BLOG = "github.com/acme/blog"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SECRET = "AKIA" + "IOSFODNN7EXAMPLE"


@pytest.fixture
def hooks(stores: Stores) -> HookStateStore:
    return stores.hooks


def session(key: str, *, workspace: str = WS, project: str = SHOP, at: datetime = T0) -> SessionRow:
    return SessionRow(key, key.split(":")[0], workspace, project, "main", "/src/shop", at, at, None, False, None, None,
                      EMPTY, EMPTY, False, False, False, 0)  # fmt: skip


# -- sessions ---------------------------------------------------------------------------------
def test_sessions_are_added_once_and_updated_by_field(hooks: HookStateStore) -> None:
    hooks.add_session(session("claude:s1"))
    hooks.add_session(session("claude:s1", project=BLOG))  # registered already: kept as it was
    got = hooks.session(WS, "claude:s1")
    assert got is not None and (got.tool, got.workspace, got.project, got.branch, got.cwd) == (
        "claude", WS, SHOP, "main", "/src/shop")  # fmt: skip
    assert (got.started_at, got.last_seen, got.ended_at, got.prompts, got.holdout, got.task_id) == (T0, T0, None, 0, False, None)
    assert hooks.session(WS, "claude:s2") is None

    hooks.update_session(WS, "claude:s1", prompts=3, recalled=True, opening=redacted("fix the login"),
                         last_seen=T0 + timedelta(minutes=5), ended_at=T0 + timedelta(minutes=6),
                         first_prompt_at=T0 + timedelta(minutes=1), task_id=7, holdout=True, changed_files=True,
                         stop_asked=True, branch="feat/login", cwd="/src/shop/web", project=BLOG,
                         last_message=redacted("done"))  # fmt: skip
    got = hooks.session(WS, "claude:s1")
    assert got is not None and (got.prompts, got.recalled, got.opening, got.last_message) == (3, True, "fix the login", "done")
    assert (got.last_seen, got.ended_at, got.first_prompt_at) == (T0 + timedelta(minutes=5), T0 + timedelta(minutes=6),
                                                                  T0 + timedelta(minutes=1))  # fmt: skip
    assert (got.task_id, got.holdout, got.changed_files, got.stop_asked) == (7, True, True, True)
    assert (got.branch, got.cwd, got.project, got.started_at) == ("feat/login", "/src/shop/web", BLOG, T0)
    hooks.update_session(WS, "claude:s1")  # nothing to change
    with pytest.raises(ValueError):
        hooks.update_session(WS, "claude:s1", started_at=T0)  # not a field it may change


def test_a_session_added_after_its_start_keeps_its_last_sighting(hooks: HookStateStore) -> None:
    hooks.add_session(session("codex:s1")._replace(last_seen=T0 + timedelta(minutes=9), holdout=True, task_id=4))
    got = hooks.session(WS, "codex:s1")
    assert got is not None and (got.started_at, got.last_seen, got.holdout, got.task_id) == (
        T0, T0 + timedelta(minutes=9), True, 4)  # fmt: skip


def test_text_fields_are_redacted_on_the_way_in(hooks: HookStateStore) -> None:
    hooks.add_session(session("claude:s1"))
    hooks.update_session(WS, "claude:s1", last_message=f"the key is {SECRET}", opening=f"use {SECRET} please")
    got = hooks.session(WS, "claude:s1")
    assert got is not None and SECRET not in got.last_message and "the key is" in got.last_message
    assert SECRET not in got.opening and got.opening.startswith("use")


def test_live_and_all_sessions(hooks: HookStateStore) -> None:
    hooks.add_session(session("claude:old", at=T0 - timedelta(days=2)))
    hooks.add_session(session("codex:s2", at=T0))
    hooks.add_session(session("claude:s3", at=T0 + timedelta(minutes=1)))
    hooks.add_session(session("gemini:s4", at=T0, project=BLOG))
    hooks.add_session(session("claude:s6", at=T0 + timedelta(minutes=3)))
    hooks.add_session(session("claude:s5", at=T0 - timedelta(minutes=5)))
    hooks.update_session(WS, "claude:s3", ended_at=T0 + timedelta(minutes=2))
    hooks.update_session(WS, "claude:s5", last_seen=T0 + timedelta(minutes=3))  # seen as late as s6: a tie
    live = hooks.live_sessions(WS, SHOP, T0 - timedelta(hours=1))
    assert [s.session for s in live] == ["claude:s5", "claude:s6", "codex:s2"]  # latest seen first, ties by key
    assert [s.session for s in hooks.live_sessions(WS, SHOP, T0 + timedelta(minutes=3))] == ["claude:s5", "claude:s6"]
    assert [s.session for s in hooks.live_sessions(WS, BLOG, T0)] == ["gemini:s4"]
    assert [s.session for s in hooks.all_sessions(WS)] == [
        "claude:old", "claude:s5", "codex:s2", "gemini:s4", "claude:s3", "claude:s6"]  # fmt: skip


def test_forget_session_by_qualified_or_raw_id(hooks: HookStateStore) -> None:
    for key in ("claude:s1", "codex:s2", "claude:xs1", "claude:abc", "claude:S1"):
        hooks.add_session(session(key))
    hooks.mark_shown(WS, "claude:s1", "lesson", ["m:1"], T0)
    hooks.mark_shown(WS, "claude:xs1", "lesson", ["m:1"], T0)
    hooks.forget_session(WS, "s1")
    assert hooks.session(WS, "claude:s1") is None and hooks.shown(WS, "claude:s1", "lesson") == set()
    hooks.forget_session(WS, "codex:s2")
    hooks.forget_session(WS, "a_c")  # an id is matched as it is: no wildcards
    hooks.forget_session(WS, "claude:nobody")
    assert [s.session for s in hooks.all_sessions(WS)] == ["claude:S1", "claude:abc", "claude:xs1"]
    assert hooks.shown(WS, "claude:xs1", "lesson") == {"m:1"}


# -- shown once -------------------------------------------------------------------------------
def test_shown_once(hooks: HookStateStore) -> None:
    hooks.add_session(session("claude:s1"))
    hooks.add_session(session("codex:s2"))
    hooks.mark_shown(WS, "claude:s1", "lesson", ["m:1", "m:2"], T0)
    hooks.mark_shown(WS, "claude:s1", "lesson", ["m:1"], T0 + timedelta(minutes=1))  # shown already: kept once
    hooks.mark_shown(WS, "claude:s1", "note", ["branch"], T0 + timedelta(minutes=2))
    hooks.mark_shown(WS, "claude:s1", "agent", ["codex:s2", "claude:s0"], T0)
    hooks.mark_shown(WS, "claude:s1", "lesson", [], T0)  # nothing to mark
    hooks.mark_shown(WS, "codex:s2", "lesson", ["m:1"], T0)
    hooks.mark_shown(WS, "claude:unregistered", "lesson", ["m:1"], T0)
    assert hooks.shown(WS, "claude:s1", "lesson") == {"m:1", "m:2"} and hooks.shown(WS, "claude:s1", "handoff") == set()
    assert hooks.shown(WS, "codex:s2", "lesson") == {"m:1"} and hooks.shown(WS, "claude:s9", "lesson") == set()
    assert hooks.shown_rows(WS, "claude:s1") == [
        ("agent", "claude:s0", T0), ("agent", "codex:s2", T0), ("lesson", "m:1", T0), ("lesson", "m:2", T0),
        ("note", "branch", T0 + timedelta(minutes=2))]  # fmt: skip
    # Counted over the sessions the hooks registered.
    assert hooks.shown_count(WS, "lesson", "m:1") == 2 and hooks.shown_count(WS, "lesson", "m:3") == 0
    assert hooks.shown_count(WS, "note", "m:1") == 0


# -- asks and the lesson stamp ----------------------------------------------------------------
def test_asks(hooks: HookStateStore) -> None:
    assert hooks.last_ask(WS, SHOP, "tidy") is None
    hooks.set_ask(WS, SHOP, "tidy", T0, "claude:s1")
    hooks.set_ask(WS, SHOP, "tidy", T0 + timedelta(days=7), "claude:s2")
    hooks.set_ask(WS, BLOG, "tidy", T0 - timedelta(days=1), "claude:s2")
    assert hooks.last_ask(WS, SHOP, "tidy") == T0 + timedelta(days=7)
    assert hooks.last_ask(WS, BLOG, "tidy") == T0 - timedelta(days=1)
    assert hooks.last_ask(WS, SHOP, "review") is None


def _lesson(ref: str, **changes: object) -> Memory:
    base = Memory(ref=ref, workspace=WS, scope=SHOP, text=redacted("run the tests with -n 2"), kind=Kind.LESSON,
                  confidence=0.7, origin=Origin.AGENT, created_at=T0, confirmed_at=T0,
                  trigger=Trigger(TriggerTool.SHELL, "pytest"))  # fmt: skip
    return replace(base, **changes)  # type: ignore[arg-type]


def test_the_lesson_stamp_moves_when_a_lesson_changes(stores: Stores) -> None:
    stamps = [stores.hooks.lesson_stamp(WS)]
    stores.memories.insert(_lesson("m:00000001"))
    stamps.append(stores.hooks.lesson_stamp(WS))
    stores.memories.update(_lesson("m:00000001", trigger=Trigger(TriggerTool.SHELL, "pytest -x")))
    stamps.append(stores.hooks.lesson_stamp(WS))
    stores.memories.update(_lesson("m:00000001", trigger=Trigger(TriggerTool.SHELL, "pytest -x"),
                                   status=Status.RETIRED, status_at=T0))  # fmt: skip
    stamps.append(stores.hooks.lesson_stamp(WS))
    stores.memories.insert(_lesson("m:00000002", trigger=None, source_ref="src/db/pool.py:12", kind=Kind.DECISION))
    stamps.append(stores.hooks.lesson_stamp(WS))
    stores.memories.delete(WS, "m:00000002")
    stamps.append(stores.hooks.lesson_stamp(WS))
    assert all(a != b for a, b in zip(stamps, stamps[1:], strict=False)), stamps


# -- deliveries -------------------------------------------------------------------------------
def test_deliveries_are_kept_once_per_session_channel_and_ref(hooks: HookStateStore) -> None:
    hooks.add_deliveries(WS, "claude:s1", "lesson", ["m:1", "m:2", "m:1"], SHOP, "claude", T0)
    hooks.add_deliveries(WS, "claude:s1", "lesson", ["m:1"], SHOP, "claude", T0 + timedelta(minutes=5))  # kept: the first
    hooks.add_deliveries(WS, "claude:s1", "recall", ["m:1"], SHOP, "claude", T0 + timedelta(minutes=1))
    hooks.add_deliveries(WS, "", "index", ["m:3"], SHOP, "cli", T0 + timedelta(minutes=2))  # no session known
    hooks.add_deliveries(WS, "", "index", ["m:3"], SHOP, "cli", T0 + timedelta(minutes=3))  # ... each call counts
    hooks.add_deliveries(WS, "codex:s2", "card", [], SHOP, "codex", T0)  # nothing handed out
    got = [(d.session, d.channel, d.ref, d.at) for d in hooks.deliveries(WS, T0 - timedelta(days=1))]
    assert got == [("claude:s1", "lesson", "m:1", T0), ("claude:s1", "lesson", "m:2", T0),
                   ("claude:s1", "recall", "m:1", T0 + timedelta(minutes=1)),
                   ("", "index", "m:3", T0 + timedelta(minutes=2)), ("", "index", "m:3", T0 + timedelta(minutes=3))]  # fmt: skip
    first = hooks.deliveries(WS, T0)[0]
    assert (first.workspace, first.project, first.tool) == (WS, SHOP, "claude")
    window = hooks.deliveries(WS, T0 + timedelta(minutes=1), T0 + timedelta(minutes=3))  # from, to (exclusive)
    assert [(d.channel, d.ref) for d in window] == [("recall", "m:1"), ("index", "m:3")]
    assert hooks.deliveries(WS, T0 + timedelta(minutes=4)) == []
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


def test_deleting_a_memory_takes_its_deliveries(stores: Stores) -> None:
    stores.memories.insert(_lesson("m:00000001"))
    stores.memories.insert(_lesson("m:00000002"))
    stores.hooks.add_deliveries(WS, "claude:s1", "lesson", ["m:00000001", "m:00000002"], SHOP, "claude", T0)
    stores.hooks.add_deliveries(WS, "", "recall", ["m:00000001"], SHOP, "cli", T0)
    assert stores.memories.delete(WS, "m:00000001") is True
    assert [d.ref for d in stores.hooks.deliveries(WS, T0)] == ["m:00000002"]


# -- workspaces -------------------------------------------------------------------------------
def test_hook_state_stays_in_its_workspace(hooks: HookStateStore) -> None:
    hooks.add_session(session("claude:s1"))
    hooks.add_session(session("claude:s5", workspace="other"))
    hooks.mark_shown(WS, "claude:s1", "lesson", ["m:1"], T0)
    hooks.set_ask(WS, SHOP, "tidy", T0, "claude:s1")
    hooks.add_deliveries("other", "codex:s2", "card", ["m:9"], SHOP, "codex", T0)
    hooks.add_deliveries(WS, "claude:s1", "card", ["m:1"], SHOP, "claude", T0)
    assert hooks.session("other", "claude:s1") is None and [s.session for s in hooks.all_sessions(WS)] == ["claude:s1"]
    assert [s.session for s in hooks.live_sessions("other", SHOP, T0)] == ["claude:s5"]
    hooks.update_session("other", "claude:s1", prompts=9)  # another workspace's update touches nothing here
    assert (hooks.session(WS, "claude:s1") or pytest.fail("gone")).prompts == 0
    assert hooks.shown_count("other", "lesson", "m:1") == 0 and hooks.last_ask("other", SHOP, "tidy") is None
    assert [d.ref for d in hooks.deliveries("other", T0)] == ["m:9"] and {d.workspace for d in hooks.deliveries(WS, T0)} == {WS}
    hooks.forget_session("other", "claude:s1")
    assert hooks.session(WS, "claude:s1") is not None and [d.ref for d in hooks.deliveries(WS, T0)] == ["m:1"]
