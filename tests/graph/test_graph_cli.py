"""The graph and notes commands as a person uses them (in-process through CliRunner)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from graph_sessions import CLAUDE_SESSION, install

from cli_runner import make_shop_repo, run


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_shop_repo(tmp_path)


def test_kg_add_query_timeline_end(repo: Path, kenning_home: Path) -> None:
    add = json.loads(run(["graph", "add", "shop", "uses", "MySQL", "--from", "2026-01-01T00:00:00Z", "--json"],
                         repo, kenning_home).stdout)
    assert add["added"] and add["fact"]["object_id"] == "mysql"
    run(["graph", "add", "shop", "uses", "Redis", "--from", "2026-02-01T00:00:00Z"], repo, kenning_home)
    out = run(["graph", "add", "shop", "uses", "PostgreSQL", "--replace", "--from", "2026-03-01T00:00:00Z"],
              repo, kenning_home).stdout
    assert "closed f:1" in out and "closed f:2" in out
    again = run(["graph", "add", "shop", "uses", "postgres"], repo, kenning_home).stdout
    assert again.startswith("already known")
    feb = json.loads(run(["graph", "query", "shop", "--as-of", "2026-02-15", "--json"], repo, kenning_home).stdout)
    assert sorted(f["object_id"] for f in feb) == ["mysql", "redis"]
    march = json.loads(run(["graph", "query", "shop", "--as-of", "2026-03-01", "--json"], repo, kenning_home).stdout)
    assert [f["object_id"] for f in march] == ["postgres"]
    timeline = json.loads(run(["graph", "timeline", "shop", "--json"], repo, kenning_home).stdout)
    assert [f["object_id"] for f in timeline] == ["mysql", "redis", "postgres"]
    run(["graph", "end", "f:3"], repo, kenning_home)
    now = json.loads(run(["graph", "query", "shop", "--json"], repo, kenning_home).stdout)
    assert not any(f["current"] for f in now)


def test_bad_input_exits_1_with_a_fix(repo: Path, kenning_home: Path) -> None:
    bad = run(["graph", "query", "shop", "--as-of", "last tuesday"], repo, kenning_home, ok=False)
    assert bad.returncode == 1 and "fix:" in bad.stderr
    bad = run(["graph", "end", "nonsense"], repo, kenning_home, ok=False)
    assert bad.returncode == 1 and "f:42" in bad.stderr
    bad = run(["graph", "value", "get", "missing"], repo, kenning_home, ok=False)
    assert bad.returncode == 1 and "fix:" in bad.stderr


def test_decision_record_diary_value_wake_up(repo: Path, kenning_home: Path) -> None:
    run(["memory", "decision", "record", "Use Postgres for the job queue", "--area", "queue", "--reason", "we run it"],
        repo, kenning_home)
    out = json.loads(run(["memory", "decision", "record", "Use Redis streams for the job queue", "--area", "queue",
                          "--reason", "polling was slow", "--json"], repo, kenning_home).stdout)
    assert out["fact"]["area"] == "queue" and len(out["closed"]) == 1
    run(["graph", "diary", "write", "Moved the queue to Redis streams.", "--agent", "claude-code"], repo, kenning_home)
    entries = json.loads(run(["graph", "diary", "read", "--json"], repo, kenning_home).stdout)
    assert entries[0]["text"] == "«Moved the queue to Redis streams.»"
    run(["graph", "value", "set", "deploy.target", "fly.io"], repo, kenning_home)
    assert run(["graph", "value", "get", "deploy.target"], repo, kenning_home).stdout.strip() == "fly.io"
    text = run(["sessions", "wake-up"], repo, kenning_home).stdout
    assert "Use Redis streams for the job queue" in text and "Use Postgres for the job queue" not in text


def test_sync_then_escalate_and_resume(repo: Path, kenning_home: Path, tmp_path: Path) -> None:
    user_home = tmp_path / "user-home"
    install(user_home, repo, which=("claude",))
    run(["sessions", "sync"], repo, kenning_home, user_home=user_home)
    out = json.loads(run(["sessions", "escalate", CLAUDE_SESSION, "--json"], repo, kenning_home).stdout)
    assert any(x["predicate"] == "decided" for x in out["learnings"])
    again = json.loads(run(["sessions", "escalate", CLAUDE_SESSION, "--json"], repo, kenning_home).stdout)
    assert again["added"] == []
    state = json.loads(run(["sessions", "resume", "--json"], repo, kenning_home).stdout)
    assert state["todos_open"] == ["«Move the export to a task»", "«Add a retry policy»"]
    bad = run(["sessions", "escalate", "no-such-session"], repo, kenning_home, ok=False)
    assert bad.returncode == 1 and "sync" in bad.stderr


def test_a_project_is_found_by_the_name_it_prints(repo: Path, kenning_home: Path, tmp_path: Path) -> None:
    """Facts extracted from sessions hang on the project key (github.com/acme/shop) and print
    its name ("shop"); `graph query shop` finds them, as does the key."""
    user_home = tmp_path / "user-home"
    install(user_home, repo, which=("claude",))
    run(["sessions", "sync"], repo, kenning_home, user_home=user_home)
    by_key = json.loads(run(["graph", "query", "github.com/acme/shop", "--json"], repo, kenning_home).stdout)
    assert by_key and {f["subject"] for f in by_key if f["subject_id"] == "github.com/acme/shop"} == {"shop"}
    by_name = json.loads(run(["graph", "query", "shop", "--json"], repo, kenning_home).stdout)
    assert by_name == by_key
    assert json.loads(run(["graph", "timeline", "Shop", "--json"], repo, kenning_home).stdout)
    # A name two projects share asks for the full key.
    run(["graph", "add", "gitlab.com/other/shop", "uses", "Go", "--json"], repo, kenning_home)
    both = run(["graph", "query", "shop"], repo, kenning_home, ok=False)
    assert both.returncode == 1 and "github.com/acme/shop" in both.stderr and "fix:" in both.stderr
