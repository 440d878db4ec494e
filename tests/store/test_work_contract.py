"""The WorkStore contract: every backend passes this same suite (protocol methods only, no SQL).
What the work commands make of these rows is tested in tests/core and tests/mcp.

Tests that write a second workspace to check the two stay apart are kept apart from the rest:
the bound PostgreSQL backend (a role that cannot act in another workspace) skips those and
runs the others beside another workspace's look-alike rows (tests/store/intruder.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kenning.redacted import redacted
from kenning.store.protocol import HandoffRow, Stores, WorkStore

WS = "ws"
SHOP = "github.com/acme/shop"
BLOG = "github.com/acme/blog"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SECRET = "AKIA" + "IOSFODNN7EXAMPLE"


@pytest.fixture
def work(stores: Stores) -> WorkStore:
    return stores.work


def note(text: str, at: datetime, project: str = SHOP, *, to: str = "", origin: str = "agent") -> HandoffRow:
    return HandoffRow(0, project, "claude:s1", "claude", to, redacted(text), origin, at)


# -- goals ------------------------------------------------------------------------------------
def test_goal_set_replaced_and_retired(work: WorkStore) -> None:
    assert work.goal_by(WS, SHOP, "main") == ("", "")
    work.set_goal(WS, SHOP, "feat/pay", redacted("ship the card form"), "claude", T0)
    work.set_goal(WS, SHOP, "feat/pay", redacted("ship card payments"), "person", T0 + timedelta(hours=1))
    assert work.goal_by(WS, SHOP, "feat/pay") == ("ship card payments", "person")
    assert work.goal_by(WS, BLOG, "feat/pay") == ("", "") and work.goal_by(WS, SHOP, "main") == ("", "")
    assert work.work_branches(WS, SHOP) == ["feat/pay"] and work.work_branches(WS, BLOG) == []

    work.add_item(WS, SHOP, "feat/pay", redacted("test the refund"), "codex", T0)
    work.add_item(WS, SHOP, "main", redacted("untouched: another branch"), "codex", T0)
    assert work.retire_branch_work(WS, SHOP, "feat/pay", "merged", T0) == (True, 1)
    assert work.goal_by(WS, SHOP, "feat/pay") == ("", "") and work.work_branches(WS, SHOP) == ["main"]
    assert work.items(WS, SHOP, "feat/pay") == []
    assert work.retire_branch_work(WS, SHOP, "feat/pay", "merged", T0) == (False, 0)  # nothing left to retire
    assert work.bring_back_branch_work(WS, SHOP, "feat/pay") == (True, 1)
    assert work.bring_back_branch_work(WS, SHOP, "feat/pay") == (False, 0)  # nothing retired any more
    assert work.goal_by(WS, SHOP, "feat/pay")[0] == "ship card payments"
    assert [i.text for i in work.items(WS, SHOP, "feat/pay")] == ["test the refund"]


def test_setting_a_retired_goal_brings_it_back(work: WorkStore) -> None:
    work.set_goal(WS, SHOP, "feat/pay", redacted("ship the card form"), "claude", T0)
    work.retire_branch_work(WS, SHOP, "feat/pay", "removed", T0)
    work.set_goal(WS, SHOP, "feat/pay", redacted("ship it again"), "person", T0 + timedelta(days=1))
    assert work.goal_by(WS, SHOP, "feat/pay") == ("ship it again", "person")
    assert work.bring_back_branch_work(WS, SHOP, "feat/pay") == (False, 0)


def test_work_branches_are_sorted_byte_wise_and_once(work: WorkStore) -> None:
    work.set_goal(WS, SHOP, "feat/b", redacted("b"), "person", T0)
    work.add_item(WS, SHOP, "feat/b", redacted("also an item"), "person", T0)
    work.add_item(WS, SHOP, "Main", redacted("capital M sorts first in byte order"), "person", T0)
    work.add_item(WS, SHOP, "feat/a", redacted("a"), "person", T0)
    done = work.add_item(WS, SHOP, "feat/done", redacted("finished"), "person", T0)
    work.close_item(WS, SHOP, done, T0)
    assert work.work_branches(WS, SHOP) == ["Main", "feat/a", "feat/b"]


def test_goal_and_item_text_is_redacted_on_the_way_in(work: WorkStore) -> None:
    work.set_goal(WS, SHOP, "main", f"rotate {SECRET}", "person", T0)  # type: ignore[arg-type]
    work.add_item(WS, SHOP, "main", f"revoke {SECRET}", "person", T0)  # type: ignore[arg-type]
    goal, _ = work.goal_by(WS, SHOP, "main")
    assert SECRET not in goal and goal.startswith("rotate")
    assert [SECRET in i.text for i in work.items(WS, SHOP, "main")] == [False]


# -- open items -------------------------------------------------------------------------------
def test_items_open_closed_and_per_branch(work: WorkStore) -> None:
    a = work.add_item(WS, SHOP, "main", redacted("fix the build"), "person", T0)
    b = work.add_item(WS, SHOP, "feat/pay", redacted("write the docs"), "claude", T0 + timedelta(minutes=1))
    c = work.add_item(WS, BLOG, "main", redacted("the blog's"), "codex", T0)
    assert [(i.id, i.branch, i.by, i.created_at) for i in work.items(WS, SHOP, None)] == [
        (a, "main", "person", T0), (b, "feat/pay", "claude", T0 + timedelta(minutes=1))]  # fmt: skip
    assert [i.id for i in work.items(WS, SHOP, "main")] == [a] and [i.id for i in work.items(WS, BLOG, None)] == [c]
    assert work.close_item(WS, SHOP, a, T0 + timedelta(hours=1)) is True
    assert work.close_item(WS, SHOP, a, T0 + timedelta(hours=2)) is False  # already done
    assert work.close_item(WS, BLOG, b, T0) is False  # not this project's
    assert work.close_item(WS, SHOP, max(a, b, c) + 1000, T0) is False  # no such item
    assert [i.id for i in work.items(WS, SHOP, None)] == [b]
    every = work.items(WS, SHOP, None, open_only=False)
    assert [(i.id, i.done_at) for i in every] == [(a, T0 + timedelta(hours=1)), (b, None)]
    assert work.work_branches(WS, SHOP) == ["feat/pay"]


def test_a_retired_item_cannot_be_closed_but_is_listed_when_asked(work: WorkStore) -> None:
    a = work.add_item(WS, SHOP, "feat/gone", redacted("a branch that was removed"), "person", T0)
    work.retire_branch_work(WS, SHOP, "feat/gone", "removed", T0)
    assert work.close_item(WS, SHOP, a, T0) is False
    assert work.items(WS, SHOP, None) == [] and [i.id for i in work.items(WS, SHOP, None, open_only=False)] == [a]


# -- progress ---------------------------------------------------------------------------------
def test_progress_newest_first_and_trimmed(work: WorkStore) -> None:
    for n in range(5):
        work.add_progress(WS, SHOP, "main", redacted(f"step {n}"), [redacted(f"chose {n}")], "claude", "claude:s1",
                          T0 + timedelta(minutes=n))  # fmt: skip
    work.add_progress(WS, SHOP, "feat/pay", redacted("another branch"), [], "claude", "claude:s2", T0)
    work.add_progress(WS, BLOG, "main", redacted("another project"), [], "claude", "claude:s2", T0)
    rows = work.progress(WS, SHOP, "main")
    assert [r.summary for r in rows] == ["step 4", "step 3", "step 2", "step 1", "step 0"]
    assert (rows[0].decisions, rows[0].by, rows[0].at, rows[0].branch) == (("chose 4",), "claude", T0 + timedelta(minutes=4), "main")
    assert [r.summary for r in work.progress(WS, SHOP, "main", limit=2)] == ["step 4", "step 3"]
    work.trim_progress(WS, SHOP, "main", keep=2)
    assert [r.summary for r in work.progress(WS, SHOP, "main")] == ["step 4", "step 3"]
    assert [r.summary for r in work.progress(WS, SHOP, "feat/pay")] == ["another branch"]
    assert [r.summary for r in work.progress(WS, BLOG, "main")] == ["another project"]


def test_progress_written_at_the_same_time_comes_newest_written_first(work: WorkStore) -> None:
    ids = [work.add_progress(WS, SHOP, "main", redacted(f"same minute {n}"), [redacted("a"), redacted("b")], "codex",
                             "codex:s1", T0) for n in range(3)]  # fmt: skip
    work.add_progress(WS, SHOP, "main", redacted("earlier"), [], "codex", "codex:s1", T0 - timedelta(minutes=1))
    assert [r.id for r in work.progress(WS, SHOP, "main")][:3] == ids[::-1]
    assert work.progress(WS, SHOP, "main")[0].decisions == ("a", "b")
    work.trim_progress(WS, SHOP, "main", keep=2)
    assert [r.id for r in work.progress(WS, SHOP, "main")] == [ids[2], ids[1]]


def test_progress_text_is_redacted_on_the_way_in(work: WorkStore) -> None:
    work.add_progress(WS, SHOP, "main", f"used {SECRET}", [f"chose {SECRET}"], "codex", "codex:s1", T0)  # type: ignore[arg-type, list-item]
    row = work.progress(WS, SHOP, "main")[0]
    assert SECRET not in row.summary and SECRET not in "".join(row.decisions) and row.decisions[0].startswith("chose")


# -- handoffs ---------------------------------------------------------------------------------
def test_handoffs_since_oldest_first(work: WorkStore) -> None:
    first = work.add_handoff(WS, note("the migration is half done", T0))
    second = work.add_handoff(WS, note("tests pass again", T0 + timedelta(hours=1), to="codex", origin="person"))
    work.add_handoff(WS, note("elsewhere", T0, project=BLOG))
    got = work.handoffs(WS, SHOP, T0 - timedelta(days=1))
    assert [(h.id, h.text) for h in got] == [(first, "the migration is half done"), (second, "tests pass again")]
    assert (got[1].project, got[1].from_session, got[1].from_tool, got[1].to_agent, got[1].origin, got[1].created_at) == (
        SHOP, "claude:s1", "claude", "codex", "person", T0 + timedelta(hours=1))  # fmt: skip
    assert [h.id for h in work.handoffs(WS, SHOP, T0 + timedelta(minutes=30))] == [second]
    assert [h.id for h in work.handoffs(WS, SHOP, T0 + timedelta(hours=1))] == [second]  # since is inclusive
    assert work.handoffs(WS, SHOP, T0 + timedelta(hours=2)) == []
    text = work.handoffs(WS, BLOG, T0)[0].text
    assert text == "elsewhere"


def test_handoff_text_is_redacted_on_the_way_in(work: WorkStore) -> None:
    work.add_handoff(WS, HandoffRow(0, SHOP, "claude:s1", "claude", "", f"the key is {SECRET}", "agent", T0))  # type: ignore[arg-type]
    text = work.handoffs(WS, SHOP, T0)[0].text
    assert SECRET not in text and text.startswith("the key is")


# -- tasks ------------------------------------------------------------------------------------
def test_tasks_claimed_by_a_session_in_their_folder(work: WorkStore) -> None:
    tid = work.add_task(WS, SHOP, "feat/pay", "/src/shop", redacted("card form"), redacted("ship it"), T0)
    other = work.add_task(WS, SHOP, "main", "/src/shop", redacted("docs"), redacted(""), T0)
    blog = work.add_task(WS, BLOG, "main", "/src/blog", redacted("blog post"), redacted(""), T0)
    task = work.task(WS, tid)
    assert task is not None and (task.workspace, task.project, task.branch, task.cwd) == (WS, SHOP, "feat/pay", "/src/shop")
    assert (task.title, task.goal, task.status, task.session, task.created_at) == ("card form", "ship it", "open", "", T0)
    assert (task.started_at, task.done_at) == (None, None)
    assert work.task(WS, max(tid, other, blog) + 1000) is None
    assert [t.id for t in work.tasks(WS, SHOP, ("open",))] == [tid, other]
    assert [t.id for t in work.tasks(WS, None, ("open",))] == [tid, other, blog]
    assert work.unclaimed_task(WS, "/src/shop/web", T0) is None  # not started yet

    work.update_task(WS, tid, status="started", started_at=T0 + timedelta(minutes=5))
    found = work.unclaimed_task(WS, "/src/shop/web", T0)
    assert found is not None and found.id == tid and found.started_at == T0 + timedelta(minutes=5)
    assert work.unclaimed_task(WS, "/src/shop", T0) is not None  # the folder itself
    assert work.unclaimed_task(WS, "/src/shopfront", T0) is None  # a folder that only starts alike
    assert work.unclaimed_task(WS, "/src/blog", T0) is None  # another folder
    assert work.unclaimed_task(WS, "/src/shop", T0 + timedelta(minutes=6)) is None  # started before since

    work.update_task(WS, tid, session="claude:s9")
    assert work.unclaimed_task(WS, "/src/shop", T0) is None  # claimed
    assert [t.id for t in work.tasks(WS, None, ("started",))] == [tid]
    assert [t.id for t in work.tasks(WS, SHOP, ("open", "started"))] == [tid, other]
    work.update_task(WS, tid, status="done", done_at=T0 + timedelta(hours=1))
    done = work.task(WS, tid)
    assert done is not None and (done.status, done.done_at, done.session) == ("done", T0 + timedelta(hours=1), "claude:s9")
    work.update_task(WS, tid)  # nothing to change
    with pytest.raises(ValueError):
        work.update_task(WS, tid, project=BLOG)  # not a field it may change


def test_the_latest_started_task_is_claimed_first(work: WorkStore) -> None:
    early = work.add_task(WS, SHOP, "main", "/src/shop", redacted("early"), redacted(""), T0)
    tied_a = work.add_task(WS, SHOP, "main", "/src/shop", redacted("tied a"), redacted(""), T0)
    tied_b = work.add_task(WS, SHOP, "main", "/src/shop/web", redacted("tied b"), redacted(""), T0)
    for tid, minutes in ((early, 1), (tied_b, 5), (tied_a, 5)):
        work.update_task(WS, tid, status="started", started_at=T0 + timedelta(minutes=minutes))
    found = work.unclaimed_task(WS, "/src/shop/web/app", T0)
    assert found is not None and found.id == tied_b  # started last; of a tie, the task written last
    work.update_task(WS, tied_b, session="codex:s1")
    assert (work.unclaimed_task(WS, "/src/shop/web", T0) or found).id == tied_a
    assert (work.unclaimed_task(WS, "/src/shop/api", T0) or found).id == tied_a


def test_task_text_is_redacted_on_the_way_in(work: WorkStore) -> None:
    tid = work.add_task(WS, SHOP, "main", "/src/shop", redacted("rotate the key"), redacted(""), T0)
    work.update_task(WS, tid, title=f"rotate {SECRET}", goal=f"revoke {SECRET}")
    task = work.task(WS, tid)
    assert task is not None and SECRET not in task.title + task.goal and task.title.startswith("rotate")


# -- workspaces -------------------------------------------------------------------------------
def test_work_stays_in_its_workspace(work: WorkStore) -> None:
    work.set_goal(WS, SHOP, "feat/pay", redacted("ship card payments"), "person", T0)
    item = work.add_item(WS, SHOP, "main", redacted("fix the build"), "person", T0)
    work.add_item("other", SHOP, "main", redacted("not ours"), "person", T0)
    work.add_progress("other", SHOP, "main", redacted("theirs"), [], "claude", "claude:s2", T0)
    work.add_handoff("other", note("not ours", T0))
    tid = work.add_task(WS, SHOP, "main", "/src/shop", redacted("card form"), redacted(""), T0)
    work.update_task(WS, tid, status="started", started_at=T0)
    assert work.goal_by("other", SHOP, "feat/pay") == ("", "") and work.work_branches("other", SHOP) == ["main"]
    assert [i.text for i in work.items(WS, SHOP, None)] == ["fix the build"]
    assert work.close_item("other", SHOP, item, T0) is False  # not this workspace's
    assert work.retire_branch_work("other", SHOP, "feat/pay", "merged", T0) == (False, 0)
    assert work.progress(WS, SHOP, "main") == [] and [r.summary for r in work.progress("other", SHOP, "main")] == ["theirs"]
    assert work.handoffs(WS, SHOP, T0) == [] and [h.text for h in work.handoffs("other", SHOP, T0)] == ["not ours"]
    assert work.task("other", tid) is None and work.tasks("other", None, ("started",)) == []
    assert work.unclaimed_task("other", "/src/shop", T0) is None
    work.update_task("other", tid, status="done")  # another workspace's update touches nothing here
    assert (work.task(WS, tid) or pytest.fail("gone")).status == "started"
