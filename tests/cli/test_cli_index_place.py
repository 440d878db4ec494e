"""`kenning index` and `kenning memory place/placements` as a person uses them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cli_runner import make_shop_repo, run


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_shop_repo(tmp_path)


def remember(repo: Path, home: Path, *args: str) -> str:
    out = json.loads(run(["remember", *args, "--json"], repo, home).stdout)
    return str(out["memory"]["ref"])


def test_index_text_json_and_the_pin_flag(repo: Path, kenning_home: Path) -> None:
    assert "nothing to give yet" in run(["index"], repo, kenning_home).stdout
    decision = remember(repo, kenning_home, "We chose pnpm because workspaces hoist predictably", "--kind", "decision",
                        "--reason", "npm hoists differently")  # fmt: skip
    fact = remember(repo, kenning_home, "The shop serves customers in Europe only", "--kind", "fact", "--index")
    text = run(["index"], repo, kenning_home).stdout.splitlines()
    assert text[0].startswith("Memory for shop") and text[1].startswith(f"- {fact}") and text[2].startswith(f"- {decision}")
    out = json.loads(run(["index", "--json", "--session", "run-42"], repo, kenning_home).stdout)
    assert [(x["ref"], x["why"]) for x in out["lines"]] == [(fact, "pinned"), (decision, "newest")]
    auto = run(["index", "--for", "automation"], repo, kenning_home).stdout
    assert auto.startswith("@memory for shop")
    with sqlite3.connect(kenning_home / "kenning.db") as conn:
        given = conn.execute("SELECT session, channel, tool FROM memory_deliveries WHERE session != ''").fetchall()
    assert given == [("run-42", "index", "cli"), ("run-42", "index", "cli")]
    bad = run(["index", "--for", "everyone"], repo, kenning_home, ok=False)
    assert bad.returncode == 2 and "everyone" in bad.stderr


def test_place_list_and_undo(repo: Path, kenning_home: Path) -> None:
    ref = remember(repo, kenning_home, "Feature flags live in the flags service", "--kind", "fact")
    said = run(["memory", "place", ref, "not-here"], repo, kenning_home).stdout
    assert said.startswith(f"placed: {ref} not relevant here in github.com/acme/shop")
    assert "--undo" in said
    assert run(["recall", "feature flags service"], repo, kenning_home).stdout.startswith("nothing in memory")
    run(["memory", "place", ref, "no-agent-runs"], repo, kenning_home)
    listed = json.loads(run(["memory", "placements", ref, "--json"], repo, kenning_home).stdout)
    assert [(p["decision"], p["place"]) for p in listed] == [("not-here", "github.com/acme/shop"), ("no-agent-runs", "")]
    assert listed[0]["undo"] == f"kenning memory place {ref} not-here --project github.com/acme/shop --undo"
    run(listed[0]["undo"].split()[1:], repo, kenning_home)
    assert run(["recall", "feature flags service"], repo, kenning_home).stdout.startswith(ref)
    text = run(["memory", "placements", ref], repo, kenning_home).stdout
    assert text.startswith("never for agent runs (since")
    missing = run(["memory", "place", ref, "always", "--group", "nope"], repo, kenning_home, ok=False)
    assert missing.returncode == 1 and "no project or group 'group:nope'" in missing.stderr and "kenning projects" in missing.stderr
    wrong = run(["memory", "place", ref, "sometimes"], repo, kenning_home, ok=False)
    assert wrong.returncode == 2 and "sometimes" in wrong.stderr
