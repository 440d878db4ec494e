"""Session start refreshes git-derived memory in a detached process: parked work appears
without the start hook waiting for it, and at most once per folder in ten minutes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from kenning.config import Settings
from kenning.store.sqlite.schema import open_database


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x"}
    subprocess.run(["git", *args], cwd=repo, check=True, env=env, capture_output=True)


def _states(home: Path) -> list[str]:
    db = open_database(Settings(home=home).db_path)
    try:
        return [r["subject"] for r in db.query("SELECT subject FROM memories WHERE kind = 'state' AND status = 'active'")]
    finally:
        db.close()


def test_session_start_refreshes_parked_work_in_the_background(tmp_path: Path, kenning_home: Path) -> None:
    repo = tmp_path / "shop"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("one\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "first")
    _git(repo, "checkout", "-qb", "feature/cart")
    (repo / "a.txt").write_text("two\n")  # uncommitted work on feature/cart
    payload = {"session_id": "bg-1", "transcript_path": "", "cwd": str(repo), "hook_event_name": "SessionStart",
               "source": "startup"}  # fmt: skip
    env = {**os.environ, "KENNING_HOME": str(kenning_home), "KENNING_BACKGROUND": "on"}
    cmd = [sys.executable, "-m", "kenning.hooks.main", "claude-code", "SessionStart"]
    proc = subprocess.run(cmd, input=json.dumps(payload), capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0 and "feature/cart" in proc.stdout
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any("feature/cart" in s for s in _states(kenning_home)):
        time.sleep(0.2)
    assert any(s.endswith("feature/cart.state") for s in _states(kenning_home))
    # The refresh logs its run when all of it is done (citations and outcomes follow parked work).
    log = kenning_home / "hook-runs.log"
    while time.monotonic() < deadline and "\trefresh\tkenning\t" not in log.read_text():
        time.sleep(0.2)
    assert "\trefresh\tkenning\t" in log.read_text()
    # A second start within ten minutes does not start another refresh.
    subprocess.run(cmd, input=json.dumps({**payload, "session_id": "bg-2"}), capture_output=True, text=True, env=env, timeout=60)
    time.sleep(1.0)
    assert (kenning_home / "hook-runs.log").read_text().count("\trefresh\t") == 1
