"""The work commands and `kenning hook`, through the real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hookrun_helper import claude


def kenning(repo: Path, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "kenning.cli", *args], cwd=repo, input=stdin,
                          capture_output=True, timeout=120, check=False)  # fmt: skip


def test_goal_open_progress_and_handoff(repo: Path) -> None:
    assert b"No goal written down" in kenning(repo, "work", "goal").stdout
    assert kenning(repo, "work", "goal", "Make checkout work offline.").returncode == 0
    assert json.loads(kenning(repo, "work", "goal", "--json").stdout)["goal"] == "Make checkout work offline."
    kenning(repo, "work", "open", "Decide the retry policy")
    assert json.loads(kenning(repo, "work", "open", "--json").stdout) == ["#1 Decide the retry policy"]
    kenning(repo, "work", "open", "--done", "1")
    assert json.loads(kenning(repo, "work", "open", "--json").stdout) == []
    for i in range(23):
        kenning(repo, "work", "progress", f"Step {i} landed on the trunk.")
    entries = json.loads(kenning(repo, "work", "progress", "--json").stdout)
    assert len(entries) == 20  # main is a trunk branch: the latest 20 are kept
    bad = kenning(repo, "work", "handoff", "I'm working on the cart right now.")
    assert bad.returncode == 1 and b"fix:" in bad.stderr


def test_task_start_prints_the_card_and_rules_commands(repo: Path) -> None:
    kenning(repo, "work", "task", "add", "Fix the login test", "--goal", "CI has no TZ.")
    card = kenning(repo, "work", "task", "start", "1")
    assert card.returncode == 0, card.stderr
    assert card.stdout.decode().startswith("kenning task #1: Fix the login test")
    assert json.loads(kenning(repo, "work", "task", "list", "--json").stdout)[0]["status"] == "started"
    assert kenning(repo, "work", "task", "done", "1").returncode == 0
    assert kenning(repo, "memory", "rules", "add", "unused", "--n", "30").returncode == 0
    kenning(repo, "memory", "rules", "write", "Never push to main.")
    listed = json.loads(kenning(repo, "memory", "rules", "list", "--json").stdout)
    assert {r["kind"] for r in listed} == {"unused", "sentence"}
    assert kenning(repo, "memory", "rules", "off", str(listed[0]["id"])).returncode == 0
    missing = kenning(repo, "memory", "rules", "off", "99")
    assert missing.returncode == 1 and b"kenning memory rules list" in missing.stderr


def test_kenning_hook_runs_the_hook(repo: Path) -> None:
    payload = json.dumps(claude(repo, "SessionStart", "cli-1")).encode()
    done = kenning(repo, "hook", "claude-code", "SessionStart", stdin=payload)
    assert done.returncode == 0
    assert json.loads(done.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
