"""Decision outcomes from real git history (merges, fast-forwards, reverts) and recorded gh output."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from gitrepo_helper import Repo

from kenning.clock import FixedClock
from kenning.core import outcomes
from kenning.core.remember import RememberRequest
from kenning.core.service import Core
from kenning.ghinfo import GhClient, parse_pulls, reverts
from kenning.model import DecisionDoc, Kind

PENDING = "To be determined."


def decide(core: Core, repo: Repo, text: str = "We round invoices half-up because the ledger does") -> DecisionDoc:
    place = core.place(repo.root)
    result = core.record_decision(place, RememberRequest(text=text, kind=Kind.DECISION))
    assert result.doc is not None
    return result.doc


def outcome(core: Core, repo: Repo, title: str) -> tuple[str, ...]:
    docs = [d for d in core.decision_docs(core.place(repo.root)) if d.title == title]
    return docs[0].outcome


def feature(repo: Repo, branch: str, date: str = "2026-03-03T10:00:00Z") -> str:
    repo.git("checkout", "-q", "-b", branch, "main")
    sha = repo.commit(f"work on {branch}", date=date, **{branch.replace("/", "_"): "x\n"})
    repo.git("checkout", "-q", "main")
    return sha


def merge(repo: Repo, branch: str, date: str = "2026-03-04T12:00:00Z", message: str = "") -> str:
    repo.git("merge", "-q", "--no-ff", "-m", message or f"Merge branch '{branch}'", branch, date=date)
    return repo.git("rev-parse", "HEAD")


@pytest.fixture
def base(repo: Repo) -> Repo:
    repo.commit("init", date="2026-02-01T09:00:00Z", a="1\n")
    return repo


def test_merged_branch_that_cited_the_decision_ships(core: Core, base: Repo) -> None:
    doc = decide(core, base)
    assert doc.outcome == (PENDING,)
    core.use([doc.memory_ref], session="s1", branch="fix/rounding")
    feature(base, "fix/rounding")
    sha = merge(base, "fix/rounding")
    report = outcomes.check(core, base.root, gh=False)
    line = f'Shipped in "fix/rounding" ({sha[:7]}), 2026-03-04'
    assert report.lines == {doc.title: [line]}
    assert outcome(core, base, doc.title) == (line,)  # replaced "To be determined."
    assert outcomes.check(core, base.root, gh=False).lines == {}  # never the same line twice
    assert outcome(core, base, doc.title) == (line,)


def test_unlinked_or_unmerged_work_adds_nothing(core: Core, base: Repo) -> None:
    doc = decide(core, base)
    core.use([doc.memory_ref], session="s1", branch="open-work")
    core.use([doc.memory_ref], session="s2", branch="main")
    core.use([doc.memory_ref], session="s3", branch="")
    feature(base, "open-work")
    feature(base, "unlinked")
    merge(base, "unlinked")
    assert outcomes.check(core, base.root, gh=False).lines == {}
    assert outcome(core, base, doc.title) == (PENDING,)


def test_fast_forward_ships_with_the_tip_commit(core: Core, base: Repo) -> None:
    doc = decide(core, base)
    core.use([doc.memory_ref], session="s1", branch="ff")
    tip = feature(base, "ff")
    base.git("merge", "-q", "--ff-only", "ff")
    outcomes.check(core, base.root, gh=False)
    assert outcome(core, base, doc.title) == (f'Shipped in "work on ff" ({tip[:7]}), 2026-03-03',)


def test_branch_that_never_left_main_is_not_shipped(core: Core, base: Repo) -> None:
    doc = decide(core, base)
    base.git("branch", "idle")
    core.use([doc.memory_ref], session="s1", branch="idle")
    assert outcomes.check(core, base.root, gh=False).lines == {}


def test_deleted_branch_is_found_by_its_merge_commit(core: Core, base: Repo) -> None:
    doc = decide(core, base)
    core.use([doc.memory_ref], session="s1", branch="feat/gone")
    feature(base, "feat/gone")
    sha = merge(base, "feat/gone")
    base.git("branch", "-D", "feat/gone")
    outcomes.check(core, base.root, gh=False)
    assert outcome(core, base, doc.title) == (f'Shipped in "feat/gone" ({sha[:7]}), 2026-03-04',)


def test_github_merge_commit_gives_title_and_link(core: Core, base: Repo) -> None:
    base.git("remote", "add", "origin", "git@github.com:Acme/Widget.git")
    doc = decide(core, base)
    core.use([doc.memory_ref], session="s1", branch="fix/rounding")
    feature(base, "fix/rounding")
    merge(base, "fix/rounding", message="Merge pull request #12 from acme/fix/rounding\n\nFix the invoice rounding")
    outcomes.check(core, base.root, gh=False)
    assert outcome(core, base, doc.title) == (
        'Shipped in "Fix the invoice rounding" (https://github.com/acme/widget/pull/12), 2026-03-04',
    )


def test_git_revert_within_thirty_days_is_added_beside(core: Core, base: Repo) -> None:
    doc = decide(core, base)
    core.use([doc.memory_ref], session="s1", branch="feat")
    feature(base, "feat")
    sha = merge(base, "feat")
    outcomes.check(core, base.root, gh=False)
    base.git("revert", "--no-edit", "-m", "1", sha, date="2026-03-20T08:00:00Z")
    revert = base.git("rev-parse", "HEAD")
    outcomes.check(core, base.root, gh=False)
    assert outcome(core, base, doc.title) == (
        f'Shipped in "feat" ({sha[:7]}), 2026-03-04',
        f'Reverted: "feat" was undone in {revert[:7]}, 2026-03-20',
    )


def test_revert_by_hand_counts_only_with_the_merge_id(core: Core, base: Repo) -> None:
    doc = decide(core, base)
    core.use([doc.memory_ref], session="s1", branch="feat")
    feature(base, "feat")
    sha = merge(base, "feat")
    base.commit("Revert the rounding change, it broke exports", date="2026-03-06T08:00:00Z", feat="")
    base.commit("Undo something else\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.",
                date="2026-03-07T08:00:00Z")
    outcomes.check(core, base.root, gh=False)
    assert len(outcome(core, base, doc.title)) == 1  # no exact evidence yet
    hand = base.commit(f"Back out rounding\n\nThis reverts commit {sha[:10]}.", date="2026-03-08T08:00:00Z")
    outcomes.check(core, base.root, gh=False)
    assert outcome(core, base, doc.title)[-1] == f'Reverted: "feat" was undone in {hand[:7]}, 2026-03-08'


def test_revert_after_thirty_days_is_not_counted(core: Core, base: Repo) -> None:
    doc = decide(core, base)
    core.use([doc.memory_ref], session="s1", branch="feat")
    feature(base, "feat")
    sha = merge(base, "feat")
    base.git("revert", "--no-edit", "-m", "1", sha, date="2026-04-10T08:00:00Z")
    outcomes.check(core, base.root, gh=False)
    assert outcome(core, base, doc.title) == (f'Shipped in "feat" ({sha[:7]}), 2026-03-04',)


def test_outcomes_check_at_most_hourly(core: Core, base: Repo, clock: FixedClock) -> None:
    doc = decide(core, base)
    core.use([doc.memory_ref], session="s1", branch="feat")
    assert outcomes.maybe_check_outcomes(core, base.root) is not None
    feature(base, "feat")
    merge(base, "feat")
    clock.advance(minutes=59)
    assert outcomes.maybe_check_outcomes(core, base.root) is None
    assert outcome(core, base, doc.title) == (PENDING,)
    clock.advance(minutes=1)
    report = outcomes.maybe_check_outcomes(core, base.root)
    assert report is not None and doc.title in report.lines


def test_odd_folders_give_no_error(core: Core, repo: Repo, tmp_path: Path) -> None:
    doc = decide(core, repo)  # a repository with no commits
    core.use([doc.memory_ref], session="s1", branch="feat")
    assert outcomes.check(core, repo.root, gh=False).lines == {}
    assert outcomes.check(core, tmp_path / "nowhere", gh=False).skipped == ["not a git repository"]
    assert outcomes.maybe_check_outcomes(core, tmp_path) is None


# ---- gh: recorded JSON, and a stand-in gh executable that prints it -----------------------

MERGED = [{
    "number": 12, "title": "Fix the invoice rounding", "url": "https://github.com/acme/widget/pull/12",
    "state": "MERGED", "createdAt": "2026-03-03T09:00:00Z", "mergedAt": "2026-03-04T16:02:11Z",
    "closedAt": "2026-03-04T16:02:11Z", "mergeCommit": {"oid": "9f1c0e3b7a6d5c4b3a2918273645546372819fab"},
    "headRefName": "fix/rounding", "body": "Rounds half-up.",
}]
CLOSED = [{
    "number": 13, "title": "Try banker's rounding", "url": "https://github.com/acme/widget/pull/13",
    "state": "CLOSED", "createdAt": "2026-03-03T09:00:00Z", "mergedAt": None, "closedAt": "2026-03-05T10:00:00Z",
    "mergeCommit": None, "headRefName": "try/bankers", "body": "",
}]
REVERT = [{
    "number": 15, "title": 'Revert "Fix the invoice rounding"', "url": "https://github.com/acme/widget/pull/15",
    "state": "MERGED", "createdAt": "2026-03-10T09:00:00Z", "mergedAt": "2026-03-10T11:00:00Z",
    "closedAt": "2026-03-10T11:00:00Z", "mergeCommit": {"oid": "1111111111111111111111111111111111111111"},
    "headRefName": "revert-12-fix/rounding", "body": "Reverts acme/widget#12",
}]


def test_parse_recorded_gh_json() -> None:
    merged, closed = parse_pulls(json.dumps(MERGED))[0], parse_pulls(json.dumps(CLOSED))[0]
    assert merged.state == "MERGED" and merged.merge_commit.startswith("9f1c0e3")
    assert merged.merged_at is not None and merged.merged_at.day == 4
    assert closed.merged_at is None and closed.merge_commit == ""
    assert parse_pulls("not json") == [] and parse_pulls('{"a": 1}') == [] and parse_pulls('[{"x": 1}]') == []
    zero = dict(CLOSED[0], mergedAt="0001-01-01T00:00:00Z")
    assert parse_pulls(json.dumps([zero]))[0].merged_at is None
    revert = parse_pulls(json.dumps(REVERT))[0]
    assert reverts(revert, merged) and not reverts(revert, closed)


def fake_gh(tmp_path: Path) -> Path:
    (tmp_path / "gh-data").mkdir()
    (tmp_path / "gh-data" / "fix_rounding.json").write_text(json.dumps(MERGED))
    (tmp_path / "gh-data" / "try_bankers.json").write_text(json.dumps(CLOSED))
    (tmp_path / "gh-data" / "revert.json").write_text(json.dumps(REVERT))
    script = tmp_path / "gh"
    script.write_text(f"""#!/bin/sh
# A stand-in for gh that replays recorded --json output.
data={tmp_path / "gh-data"}
case "$1 $2" in
  "auth status") exit 0 ;;
  "pr list")
    case "$*" in
      *"--head fix/rounding"*) cat "$data/fix_rounding.json" ;;
      *"--head try/bankers"*) cat "$data/try_bankers.json" ;;
      *"Reverts #12"*) cat "$data/revert.json" ;;
      *) echo "[]" ;;
    esac ;;
  *) exit 1 ;;
esac
""")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_pull_requests_through_gh(core: Core, base: Repo, tmp_path: Path) -> None:
    doc = decide(core, base)
    core.use([doc.memory_ref], session="s1", branch="fix/rounding")
    core.use([doc.memory_ref], session="s2", branch="try/bankers")
    client = GhClient(base.root, str(fake_gh(tmp_path)))
    report = outcomes.check(core, base.root, gh=client)
    assert report.used_gh
    assert outcome(core, base, doc.title) == (
        'Shipped in "Fix the invoice rounding" (https://github.com/acme/widget/pull/12), 2026-03-04',
        'Reverted: "Fix the invoice rounding" was undone in https://github.com/acme/widget/pull/15, 2026-03-10',
        'Not shipped: "Try banker\'s rounding" (https://github.com/acme/widget/pull/13) was closed without merging',
    )
    outcomes.check(core, base.root, gh=client)
    assert len(outcome(core, base, doc.title)) == 3


def test_without_gh_the_pr_path_is_skipped(base: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert GhClient.detect(base.root) is None


def test_branch_that_moved_on_after_its_merge_still_ships(core: Core, base: Repo) -> None:
    doc = decide(core, base)
    core.use([doc.memory_ref], session="s1", branch="feat")
    feature(base, "feat")
    sha = merge(base, "feat")
    base.git("checkout", "-q", "feat")
    base.commit("more work after the merge", date="2026-03-05T09:00:00Z", more="1\n")
    base.git("checkout", "-q", "main")
    outcomes.check(core, base.root, gh=False)
    assert outcome(core, base, doc.title) == (f'Shipped in "feat" ({sha[:7]}), 2026-03-04',)
