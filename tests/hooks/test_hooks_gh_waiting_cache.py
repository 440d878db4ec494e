"""The gh waiting cache with a set clock: 24 hours and no more, the brief trims the list (never
another section) to stay within 1,500 characters, the card shows it, and the hourly outcomes
check refreshes it."""

from __future__ import annotations

import json
from pathlib import Path

import fakegh_helper as fakegh
import pytest
from hookrun_helper import git

from kenning import gitinfo
from kenning.clock import FixedClock
from kenning.context import brief, card
from kenning.core import outcomes, rules, waiting, work
from kenning.core.service import Core
from kenning.ghinfo import GhClient, Waiting, parse_waiting

ITEMS = [
    Waiting("PR", 12, "Fix rounding", "https://github.com/acme/shop/pull/12", "review requested"),
    Waiting("issue", 40, "Flaky login test", "https://github.com/acme/shop/issues/40", ""),
]


@pytest.fixture
def github_repo(repo: Path) -> Path:
    git(repo, "remote", "add", "origin", "https://github.com/acme/shop.git")
    gitinfo.clear_cache()
    return repo


def test_parse_recorded_json() -> None:
    mine = parse_waiting(json.dumps(fakegh.MINE, indent=2), "PR")
    assert mine is not None and [(w.number, w.why) for w in mine] == [(17, "changes requested"), (19, "yours")]
    asked = parse_waiting(json.dumps(fakegh.REVIEW_REQUESTED), "PR", "review requested")
    assert asked is not None and asked[0].line == "PR #12 Fix rounding (review requested)"
    issues = parse_waiting(json.dumps(fakegh.ASSIGNED), "issue")
    assert issues is not None and issues[0].line == "issue #40 Flaky login test"
    assert parse_waiting("[]", "issue") == []
    assert parse_waiting("not json", "PR") is None and parse_waiting('{"message": "Bad credentials"}', "PR") is None
    assert parse_waiting('[{"title": "no number"}, {"number": true}, 3]', "PR") == []


def test_shown_for_24_hours_then_ignored(core: Core, clock: FixedClock, github_repo: Path) -> None:
    place = core.place(github_repo)
    assert brief.build(core, place).count("#") == 0
    waiting.save(core, place.project, ITEMS)
    assert "Open: PR #12 «Fix rounding» (review requested); issue #40 «Flaky login test»" in brief.build(core, place)
    clock.advance(hours=24)
    assert "PR #12" in brief.build(core, place)
    clock.advance(seconds=1)
    assert "PR #12" not in brief.build(core, place) and waiting.cached(core, place.project) == []


def test_unreadable_cache_is_ignored(core: Core, github_repo: Path) -> None:
    place = core.place(github_repo)
    for raw in ("not json", "[]", '{"read_at": "yesterday", "items": []}', '{"read_at": "2026-03-02T08:00:00Z"}',
                '{"read_at": "2026-03-02T08:00:00Z", "items": [{"kind": "PR"}]}'):  # fmt: skip
        core.store.set_meta(core.workspace, waiting.cache_key(place.project), raw)
        assert waiting.cached(core, place.project) == []
        assert "kenning · Project shop" in brief.build(core, place)


def test_the_list_is_trimmed_to_keep_the_brief_whole(core: Core, github_repo: Path) -> None:
    git(github_repo, "checkout", "-q", "-b", "feat/checkout")
    gitinfo.clear_cache()
    place = core.place(github_repo)
    work.set_goal(core, place, "Make the checkout page survive a payment provider outage. " * 5)
    for n in range(6):
        work.add_open_item(core, place, f"Open question {n}: " + "what the retry budget should be " * 3)
    long_rules = [f"Rule {n}: " + "always run the payment sandbox tests before pushing anything " * 3 for n in range(3)]
    for text in long_rules:
        rules.add_sentence(core, text, project=place.project)
    without = brief.build(core, place)
    assert len(without) <= brief.LIMIT
    many = [Waiting("PR", n, f"A fairly long pull request title number {n} about the payments", "", "review requested")
            for n in range(100, 106)]  # fmt: skip
    waiting.save(core, place.project, many)
    text = brief.build(core, place)
    assert len(text) <= brief.LIMIT
    # Every other line is kept whole; only the gh list gave way.
    assert [line for line in text.splitlines() if not line.startswith("Open:")] == [
        line for line in without.splitlines() if not line.startswith("Open:")
    ]
    open_line = next(line for line in text.splitlines() if line.startswith("Open:"))
    old_open = next(line for line in without.splitlines() if line.startswith("Open:"))
    assert open_line.startswith(old_open + " | PR #100")
    assert 1 <= open_line.count("PR #") < 3 and "more on GitHub)" in open_line


def test_the_card_shows_what_waits(core: Core, github_repo: Path) -> None:
    place = core.place(github_repo)
    task_id = work.add_task(core, place, "Fix the rounding in invoices")
    task = work.start_task(core, task_id, cwd=str(github_repo))
    waiting.save(core, place.project, ITEMS)
    text = card.build(core, place, task)
    assert "PR #12 «Fix rounding» (review requested); issue #40 «Flaky login test»" in text


def test_failed_refresh_keeps_the_cache(core: Core, github_repo: Path, tmp_path: Path) -> None:
    data = fakegh.install(tmp_path)
    client = GhClient(github_repo, str(tmp_path / "bin" / "gh"))
    first = waiting.refresh(core, github_repo, gh=client)
    assert first.skipped == "" and len(first.items) == 4
    saved = core.store.get_meta(core.workspace, waiting.cache_key(first.project))
    (data / "offline").touch()
    assert waiting.refresh(core, github_repo, gh=client).skipped == waiting.FAILED
    assert core.store.get_meta(core.workspace, waiting.cache_key(first.project)) == saved
    assert waiting.refresh(core, github_repo, gh=False).skipped == waiting.NOT_SIGNED_IN
    assert waiting.refresh(core, tmp_path / "nowhere", gh=client).skipped == "not a git repository"


def test_the_hourly_outcomes_check_refreshes_it(core: Core, clock: FixedClock, github_repo: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    data = fakegh.install(tmp_path)
    monkeypatch.setenv("PATH", fakegh.path_with_gh(tmp_path))
    place = core.place(github_repo)
    assert outcomes.maybe_check_outcomes(core, github_repo) is not None
    assert [w.number for w in waiting.cached(core, place.project)] == [12, 17, 19, 40]
    (data / "assigned.json").write_text("[]\n")
    clock.advance(minutes=30)
    assert outcomes.maybe_check_outcomes(core, github_repo) is None  # not yet an hour
    assert 40 in [w.number for w in waiting.cached(core, place.project)]
    clock.advance(minutes=30)
    outcomes.maybe_check_outcomes(core, github_repo)
    assert [w.number for w in waiting.cached(core, place.project)] == [12, 17, 19]


def test_the_hourly_check_without_gh_writes_nothing(core: Core, github_repo: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setenv("PATH", fakegh.path_without_gh(tmp_path))
    place = core.place(github_repo)
    assert outcomes.maybe_check_outcomes(core, github_repo) is not None
    assert core.store.get_meta(core.workspace, waiting.cache_key(place.project)) is None
