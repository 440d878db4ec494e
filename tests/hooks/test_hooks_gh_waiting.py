"""Pull requests and issues waiting on you: `kenning refresh` reads them through a stand-in
`gh` replaying recorded JSON and caches them; the SessionStart hook (a real subprocess, no
network) shows them on the brief's Open line for 24 hours."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import fakegh_helper as fakegh
import pytest
from hookrun_helper import claude, git, run_hook

from kenning.clock import to_iso
from kenning.context.brief import LIMIT as BRIEF_LIMIT

SESSION = "5b0c7a1e-0000-4000-8000-0000000000a1"
SHOWN = ("PR #12 «Fix rounding» (review requested)", "PR #17 «Add CSV export» (changes requested)", "issue #40 «Flaky login test»")


def kenning(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(sys.executable).parent / "kenning"), *args], capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip


def start_brief(repo: Path, now: datetime, session: str = SESSION) -> str:
    run = run_hook("claude-code", "SessionStart", claude(repo, "SessionStart", session), now=to_iso(now))
    assert run.code == 0 and run.stderr == "", run.stderr
    assert len(run.context) <= BRIEF_LIMIT
    return run.context


@pytest.fixture
def github_repo(repo: Path) -> Path:
    git(repo, "remote", "add", "origin", "git@github.com:acme/shop.git")
    return repo


def test_refresh_caches_what_gh_says_and_the_brief_shows_it(github_repo: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    data = fakegh.install(tmp_path)
    monkeypatch.setenv("PATH", fakegh.path_with_gh(tmp_path))
    before = datetime.now(UTC)
    done = kenning("work", "refresh", "--cwd", str(github_repo), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["waiting"]
    assert report["read"] is True and report["skipped"] == ""
    assert [(i["kind"], i["number"], i["why"]) for i in report["items"]] == [
        ("PR", 12, "review requested"), ("PR", 17, "changes requested"), ("PR", 19, "yours"), ("issue", 40, ""),
    ]  # fmt: skip
    calls = (data / "calls.log").read_text()
    assert "pr list --search review-requested:@me --state open --json number,title,url" in calls
    assert "pr list --author @me --state open --json number,title,url,reviewDecision" in calls
    assert "issue list --assignee @me --state open --json number,title,url" in calls

    brief = start_brief(github_repo, before + timedelta(minutes=5))
    open_line = next(line for line in brief.splitlines() if line.startswith("Open:"))
    for shown in SHOWN:
        assert shown in open_line
    assert "(+1 more on GitHub)" in open_line  # at most 3: the draft waits behind the rest
    assert "Draft: new cart page" not in brief

    text = kenning("work", "refresh", "--cwd", str(github_repo)).stdout
    assert "waiting on you: 4 pull requests and issues" in text and "  PR #12 Fix rounding (review requested)" in text


def test_a_cache_older_than_a_day_is_ignored(github_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fakegh.install(tmp_path)
    monkeypatch.setenv("PATH", fakegh.path_with_gh(tmp_path))
    before = datetime.now(UTC)
    assert kenning("work", "refresh", "--cwd", str(github_repo)).returncode == 0
    assert SHOWN[0] in start_brief(github_repo, before + timedelta(hours=23))
    stale = start_brief(github_repo, before + timedelta(hours=25), session=SESSION[:-2] + "b2")
    assert "PR #" not in stale and "issue #" not in stale
    assert "Project shop · branch main" in stale  # the rest of the brief is there


def test_without_gh_nothing_is_read_and_nothing_fails(github_repo: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setenv("PATH", fakegh.path_without_gh(tmp_path))
    done = kenning("work", "refresh", "--cwd", str(github_repo), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["waiting"] == {"read": False, "skipped": "gh is not installed or not signed in",
                                                   "items": []}  # fmt: skip
    text = kenning("work", "refresh", "--cwd", str(github_repo))
    assert text.returncode == 0 and text.stderr == ""
    assert "waiting on you: skipped (gh is not installed or not signed in)" in text.stdout
    brief = start_brief(github_repo, datetime.now(UTC))
    assert "PR #" not in brief and "issue #" not in brief and "GitHub" not in brief


def test_signed_out_gh_is_not_asked(github_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = fakegh.install(tmp_path)
    (data / "signed-out").touch()
    monkeypatch.setenv("PATH", fakegh.path_with_gh(tmp_path))
    done = kenning("work", "refresh", "--cwd", str(github_repo), "--json")
    assert json.loads(done.stdout)["waiting"]["skipped"] == "gh is not installed or not signed in"
    assert "pr list" not in (data / "calls.log").read_text()


def test_gh_failing_keeps_the_previous_list(github_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = fakegh.install(tmp_path)
    monkeypatch.setenv("PATH", fakegh.path_with_gh(tmp_path))
    before = datetime.now(UTC)
    assert kenning("work", "refresh", "--cwd", str(github_repo)).returncode == 0
    (data / "review.json").write_text("[]\n")  # gh would now say something else...
    (data / "offline").touch()  # ...but it cannot reach GitHub
    done = kenning("work", "refresh", "--cwd", str(github_repo), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["waiting"]["skipped"] == "gh failed; the previous list is kept"
    assert SHOWN[0] in start_brief(github_repo, before + timedelta(minutes=5))


def test_one_failing_call_keeps_the_whole_previous_list(github_repo: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    data = fakegh.install(tmp_path)
    monkeypatch.setenv("PATH", fakegh.path_with_gh(tmp_path))
    before = datetime.now(UTC)
    assert kenning("work", "refresh", "--cwd", str(github_repo)).returncode == 0
    (data / "review.json").write_text("[]\n")
    (data / "assigned.json").write_text("gh: Could not resolve to a Repository\n")  # not JSON: a failed read
    done = kenning("work", "refresh", "--cwd", str(github_repo), "--json")
    assert json.loads(done.stdout)["waiting"]["skipped"] == "gh failed; the previous list is kept"
    assert SHOWN[0] in start_brief(github_repo, before + timedelta(minutes=5))
