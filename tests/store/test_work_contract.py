"""The WorkStore contract: every backend passes this same suite (protocol methods only, no SQL).
What the work commands make of these rows is tested in tests/core and tests/mcp."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kenning.redacted import redacted
from kenning.store.protocol import HandoffRow, Stores, WorkStore

WS = "ws"
SHOP = "github.com/acme/shop"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def work(stores: Stores) -> WorkStore:
    return stores.work


def test_goal_set_replaced_and_retired(work: WorkStore) -> None:
    assert work.goal_by(WS, SHOP, "main") == ("", "")
    work.set_goal(WS, SHOP, "feat/pay", redacted("ship the card form"), "claude", T0)
    work.set_goal(WS, SHOP, "feat/pay", redacted("ship card payments"), "person", T0 + timedelta(hours=1))
    assert work.goal_by(WS, SHOP, "feat/pay") == ("ship card payments", "person")
    assert work.goal_by("other", SHOP, "feat/pay") == ("", "")
    assert work.goal_by(WS, "github.com/acme/blog", "feat/pay") == ("", "")
    assert work.work_branches(WS, SHOP) == ["feat/pay"]

    work.add_item(WS, SHOP, "feat/pay", redacted("test the refund"), "codex", T0)
    assert work.retire_branch_work(WS, SHOP, "feat/pay", "merged", T0) == (True, 1)
    assert work.goal_by(WS, SHOP, "feat/pay") == ("", "") and work.work_branches(WS, SHOP) == []
    assert work.retire_branch_work(WS, SHOP, "feat/pay", "merged", T0) == (False, 0)  # nothing left to retire
    assert work.bring_back_branch_work(WS, SHOP, "feat/pay") == (True, 1)
    assert work.goal_by(WS, SHOP, "feat/pay")[0] == "ship card payments"
    assert [i.text for i in work.items(WS, SHOP, "feat/pay")] == ["test the refund"]


def test_items_open_closed_and_per_branch(work: WorkStore) -> None:
    a = work.add_item(WS, SHOP, "main", redacted("fix the build"), "person", T0)
    b = work.add_item(WS, SHOP, "feat/pay", redacted("write the docs"), "claude", T0 + timedelta(minutes=1))
    work.add_item("other", SHOP, "main", redacted("not ours"), "person", T0)
    assert [(i.id, i.branch, i.by) for i in work.items(WS, SHOP, None)] == [(a, "main", "person"), (b, "feat/pay", "claude")]
    assert [i.id for i in work.items(WS, SHOP, "main")] == [a]
    assert work.close_item(WS, SHOP, a, T0 + timedelta(hours=1)) is True
    assert work.close_item(WS, SHOP, a, T0 + timedelta(hours=2)) is False  # already done
    assert work.close_item(WS, "github.com/acme/blog", b, T0) is False  # not this project's
    assert work.close_item("other", SHOP, b, T0) is False  # not this workspace's
    assert [i.id for i in work.items(WS, SHOP, None)] == [b]
    closed = [i for i in work.items(WS, SHOP, None, open_only=False) if i.id == a]
    assert closed and closed[0].done_at == T0 + timedelta(hours=1)
    assert sorted(work.work_branches(WS, SHOP)) == ["feat/pay"]


def test_progress_newest_first_and_trimmed(work: WorkStore) -> None:
    for n in range(5):
        work.add_progress(WS, SHOP, "main", redacted(f"step {n}"), [redacted(f"chose {n}")], "claude", "claude:s1",
                          T0 + timedelta(minutes=n))  # fmt: skip
    work.add_progress("other", SHOP, "main", redacted("theirs"), [], "claude", "claude:s2", T0)
    rows = work.progress(WS, SHOP, "main")
    assert [r.summary for r in rows] == ["step 4", "step 3", "step 2", "step 1", "step 0"]
    assert rows[0].decisions == ("chose 4",) and rows[0].by == "claude" and rows[0].at == T0 + timedelta(minutes=4)
    assert [r.summary for r in work.progress(WS, SHOP, "main", limit=2)] == ["step 4", "step 3"]
    work.trim_progress(WS, SHOP, "main", keep=2)
    assert [r.summary for r in work.progress(WS, SHOP, "main")] == ["step 4", "step 3"]
    assert [r.summary for r in work.progress("other", SHOP, "main")] == ["theirs"]


def test_handoffs_since_oldest_first(work: WorkStore) -> None:
    def note(text: str, at: datetime, project: str = SHOP) -> HandoffRow:
        return HandoffRow(0, project, "claude:s1", "claude", "", redacted(text), "agent", at)

    first = work.add_handoff(WS, note("the migration is half done", T0))
    second = work.add_handoff(WS, note("tests pass again", T0 + timedelta(hours=1)))
    work.add_handoff(WS, note("elsewhere", T0, project="github.com/acme/blog"))
    work.add_handoff("other", note("not ours", T0))
    got = work.handoffs(WS, SHOP, T0 - timedelta(days=1))
    assert [(h.id, h.text) for h in got] == [(first, "the migration is half done"), (second, "tests pass again")]
    assert [h.id for h in work.handoffs(WS, SHOP, T0 + timedelta(minutes=30))] == [second]


def test_tasks_claimed_by_a_session_in_their_folder(work: WorkStore) -> None:
    tid = work.add_task(WS, SHOP, "feat/pay", "/src/shop", redacted("card form"), redacted("ship it"), T0)
    other = work.add_task(WS, SHOP, "main", "/src/shop", redacted("docs"), redacted(""), T0)
    task = work.task(WS, tid)
    assert task is not None and (task.title, task.goal, task.status, task.session) == ("card form", "ship it", "open", "")
    assert work.task("other", tid) is None
    assert [t.id for t in work.tasks(WS, SHOP, ("open",))] == [tid, other]
    assert work.unclaimed_task(WS, "/src/shop/web", T0) is None  # not started yet

    work.update_task(WS, tid, status="started", started_at=T0 + timedelta(minutes=5))
    found = work.unclaimed_task(WS, "/src/shop/web", T0)
    assert found is not None and found.id == tid and found.started_at == T0 + timedelta(minutes=5)
    assert work.unclaimed_task(WS, "/src/blog", T0) is None  # another folder
    assert work.unclaimed_task("other", "/src/shop", T0) is None

    work.update_task(WS, tid, session="claude:s9")
    assert work.unclaimed_task(WS, "/src/shop", T0) is None  # claimed
    assert [t.id for t in work.tasks(WS, None, ("started",))] == [tid]
    with pytest.raises(ValueError):
        work.update_task(WS, tid, project="github.com/acme/blog")  # not a field it may change
