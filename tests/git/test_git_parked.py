"""Parked work: one state memory per branch with uncommitted work, from real repositories."""

from __future__ import annotations

from pathlib import Path

from gitrepo_helper import Repo

from kenning.clock import FixedClock
from kenning.core import parked
from kenning.core.service import Core
from kenning.domain.lifecycle import in_recall_pool
from kenning.model import Kind, Status


def states(core: Core, repo: Repo, *, active_only: bool = True) -> list:  # type: ignore[type-arg]
    place = core.place(repo.root)
    return [m for m in core.list_memories(place, include_inactive=not active_only) if m.kind is Kind.STATE]


def test_one_state_per_dirty_branch_with_slash_and_worktree(core: Core, repo: Repo, tmp_path: Path) -> None:
    repo.commit("init", a="1\n", b="1\n")
    side = tmp_path / "wt"
    repo.git("worktree", "add", "-q", "-b", "feature/login", str(side))
    repo.git("worktree", "add", "-q", "-b", "clean-one", str(tmp_path / "wt2"))
    repo.write("a", "edited\n", cwd=side)
    repo.write("notes.md", "draft\n")
    report = parked.refresh(core, side)
    assert len(report.written) == 2
    by_slot = {m.subject: m for m in states(core, repo)}
    assert set(by_slot) == {"branch.proj.feature/login.state", "branch.proj.main.state"}
    login = by_slot["branch.proj.feature/login.state"]
    assert login.text == "Branch feature/login of proj has uncommitted work in 1 file: a."
    assert login.branch == "feature/login" and login.origin_tool == "kenning"
    assert by_slot["branch.proj.main.state"].text.endswith("1 file: notes.md.")


def test_slot_uses_the_remote_repo_name(core: Core, repo: Repo) -> None:
    repo.git("remote", "add", "origin", "git@github.com:Acme/Widget.git")
    repo.commit("init", a="1\n")
    repo.write("a", "2\n")
    parked.refresh(core, repo.root)
    assert [m.subject for m in states(core, repo)] == ["branch.widget.main.state"]
    assert states(core, repo)[0].scope == "github.com/acme/widget"


def test_a_new_reading_supersedes_and_the_same_reading_changes_nothing(
    core: Core, repo: Repo, clock: FixedClock
) -> None:
    repo.commit("init", a="1\n", b="1\n")
    repo.write("a", "2\n")
    first = parked.refresh(core, repo.root).written
    clock.advance(hours=1)
    again = parked.refresh(core, repo.root)
    assert again.written == [] and again.unchanged == ["main"]
    clock.advance(hours=1)
    repo.write("b", "changed too\n")
    newer = parked.refresh(core, repo.root).written
    assert len(newer) == 1
    old = core.get(first[0])
    assert old.status is Status.SUPERSEDED and old.status_note == newer[0]
    assert [m.ref for m in states(core, repo)] == newer
    assert "2 files: a, b" in core.get(newer[0]).text


def test_editing_an_already_changed_file_is_a_new_reading(core: Core, repo: Repo, clock: FixedClock) -> None:
    repo.commit("init", a="1\n")
    repo.write("a", "2\n")
    first = parked.refresh(core, repo.root).written
    clock.advance(minutes=5)
    repo.write("a", "3 and longer\n")
    assert parked.refresh(core, repo.root).written != first


def test_abandoned_work_fades_after_fourteen_days(core: Core, repo: Repo, clock: FixedClock) -> None:
    repo.commit("init", a="1\n")
    repo.git("checkout", "-q", "-b", "spike")
    repo.write("a", "half done\n")
    ref = parked.refresh(core, repo.root).written[0]
    clock.advance(days=13)
    parked.refresh(core, repo.root)  # same reading: not renewed
    assert in_recall_pool(core.get(ref), core.now())
    clock.advance(days=2)
    parked.refresh(core, repo.root)
    memory = core.get(ref)
    assert memory.status is Status.ACTIVE and not in_recall_pool(memory, core.now())


def test_a_state_is_retired_once_its_work_is_committed(core: Core, repo: Repo, clock: FixedClock) -> None:
    repo.commit("init", a="1\n")
    repo.git("checkout", "-q", "-b", "fix/bug")
    repo.write("a", "fixing\n")
    ref = parked.refresh(core, repo.root).written[0]
    assert "has uncommitted work" in core.get(ref).text
    repo.commit("fix the bug")  # committed, not merged yet: no longer "uncommitted work"
    clock.advance(hours=1)
    assert parked.refresh(core, repo.root).retired == {ref: "branch fix/bug has no uncommitted work any more"}
    assert states(core, repo) == []
    assert core.bring_back(ref).status is Status.ACTIVE


def test_landed_branch_state_is_retired_and_can_come_back(core: Core, repo: Repo, clock: FixedClock) -> None:
    repo.commit("init", a="1\n")
    repo.git("checkout", "-q", "-b", "fix/bug")
    repo.write("a", "fixing\n")
    ref = parked.refresh(core, repo.root).written[0]
    repo.commit("fix the bug")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge branch 'fix/bug'", "fix/bug")
    clock.advance(hours=1)
    report = parked.refresh(core, repo.root)
    assert report.retired == {ref: "branch fix/bug landed on main"}
    assert core.get(ref).status is Status.RETIRED
    assert core.bring_back(ref).status is Status.ACTIVE


def test_fast_forwarded_and_removed_branches_retire(core: Core, repo: Repo, tmp_path: Path) -> None:
    repo.commit("init", a="1\n")
    trees = {}
    for name in ("ff", "dropped"):
        trees[name] = tmp_path / name
        repo.git("worktree", "add", "-q", "-b", name, str(trees[name]))
        repo.write(f"{name}.txt", "wip\n", cwd=trees[name])
    report = parked.refresh(core, repo.root)
    refs = {core.get(ref).branch: ref for ref in report.written}
    for name in ("ff", "dropped"):
        repo.commit(f"{name} work", cwd=trees[name])
    repo.git("merge", "-q", "--ff-only", "ff")
    repo.git("worktree", "remove", "--force", str(trees["dropped"]))
    repo.git("branch", "-D", "dropped")
    report = parked.refresh(core, repo.root)
    assert report.retired == {refs["dropped"]: "branch dropped was removed", refs["ff"]: "branch ff landed on main"}
    assert states(core, repo) == []


def test_a_removed_or_landed_branch_takes_its_goal_and_open_items(core: Core, repo: Repo) -> None:
    from kenning.core import work

    repo.commit("init", a="1\n")
    place = core.place(repo.root)
    for name in ("feature/cart", "feature/gone", "feature/ongoing"):
        repo.git("branch", name)
        work.set_goal(core, place, f"Finish {name}", branch=name)
        work.add_open_item(core, place, f"check the edge cases of {name}", branch=name)
    repo.git("checkout", "-q", "feature/cart")
    repo.commit("cart work", cart="1\n")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge cart", "feature/cart")
    repo.git("branch", "-D", "feature/gone")
    repo.git("checkout", "-q", "feature/ongoing")
    repo.commit("ongoing work", ongoing="1\n")  # committed, not landed: its goal stays
    repo.git("checkout", "-q", "main")
    report = parked.refresh(core, repo.root)
    assert report.retired_work == {
        "feature/cart": "its goal and 1 open item (branch feature/cart landed on main)",
        "feature/gone": "its goal and 1 open item (branch feature/gone was removed)",
    }
    assert work.goal(core, place, "feature/gone") == "" and work.open_items(core, place, "feature/gone") == []
    assert work.goal(core, place, "feature/cart") == ""
    assert work.goal(core, place, "feature/ongoing") == "Finish feature/ongoing"
    assert parked.refresh(core, repo.root).retired_work == {}  # once
    assert work.bring_back(core, place, "feature/gone") == (True, 1)
    assert work.goal(core, place, "feature/gone") == "Finish feature/gone"
    assert work.open_items(core, place, "feature/gone") == ["#2 check the edge cases of feature/gone"]


def test_main_state_retires_once_main_is_committed(core: Core, repo: Repo) -> None:
    repo.commit("init", a="1\n")
    repo.write("a", "2\n")
    ref = parked.refresh(core, repo.root).written[0]
    repo.commit("commit it")
    assert parked.refresh(core, repo.root).retired == {ref: "the work on main was committed"}


def test_odd_folders_give_no_error(core: Core, repo: Repo, tmp_path: Path) -> None:
    # No commits yet: the unborn branch still gets its state.
    repo.write("first.txt", "hello\n")
    assert len(parked.refresh(core, repo.root).written) == 1
    plain = tmp_path / "plain"
    plain.mkdir()
    assert parked.refresh(core, plain).skipped == ["not a git repository"]
    assert parked.refresh(core, tmp_path / "missing").skipped == ["not a git repository"]
    assert parked.at_start(core, tmp_path / "missing") is not None


def test_detached_head_has_no_slot(core: Core, repo: Repo) -> None:
    sha = repo.commit("init", a="1\n")
    repo.git("checkout", "-q", "--detach", sha)
    repo.write("a", "2\n")
    report = parked.refresh(core, repo.root)
    assert report.written == [] and states(core, repo) == []


def test_policy_without_state_writes_nothing(core: Core, repo: Repo) -> None:
    repo.commit("init", a="1\n")
    repo.write("a", "2\n")
    place = core.place(repo.root)
    core.set_policy(place, "project", "preset", "decisions-and-lessons")
    report = parked.refresh(core, repo.root)
    assert report.written == [] and report.skipped


def test_at_start_refreshes_parked_work_citations_and_outcomes(core: Core, repo: Repo) -> None:
    from kenning.core.citations import fresh_reading
    from kenning.core.outcomes import last_run_key
    from kenning.core.remember import RememberRequest
    from kenning.model import Citation

    path = repo.write("src/x.py", "def f():\n    return 1\n")
    repo.commit("init")
    place = core.place(repo.root)
    memory = core.remember(place, RememberRequest(text="f returns one", kind=Kind.FACT, source_ref="src/x.py:f")).memory
    assert memory is not None
    digest, state = fresh_reading(repo.root, "src/x.py:f")
    core.store.update(memory.evolve(source_hash=digest, citation=state))
    path.write_text("def f():\n    return 2\n")
    report = parked.at_start(core, repo.root)
    assert report is not None and len(report.written) == 1
    assert core.get(memory.ref).citation is Citation.CHANGED
    assert core.store.get_meta(core.workspace, last_run_key(core, place.project))


def test_states_already_past_shelf_life_are_retired_once_per_workspace(
    core: Core, repo: Repo, clock: FixedClock
) -> None:
    repo.commit("init", a="1\n")
    repo.git("checkout", "-q", "-b", "old")
    repo.write("a", "2\n")
    old = parked.refresh(core, repo.root).written[0]
    clock.advance(days=15)
    assert parked.retire_stale_once(core) == [old]
    assert core.get(old).status is Status.RETIRED
    repo.write("a", "3\n")
    newer = parked.refresh(core, repo.root).written[0]
    clock.advance(days=15)
    assert parked.retire_stale_once(core) == []  # once only: later states just fade
    assert core.get(newer).status is Status.ACTIVE
