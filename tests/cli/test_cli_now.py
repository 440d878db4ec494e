"""`--now` / $KENNING_NOW move the clock of every entry point, so the time rules (shelf life,
resting) can be tried by hand; `memory list` marks a stale state in its text."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from cli_runner import make_shop_repo, run

STATE = ["remember", "The invoice export is half moved to the worker queue", "--kind", "state",
         "--subject", "branch.shop.export.state", "--json"]  # fmt: skip


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_shop_repo(tmp_path)


def test_now_makes_a_state_stale_after_its_shelf_life(repo: Path, kenning_home: Path) -> None:
    ref = json.loads(run(["--now", "2026-03-01T09:00:00Z", *STATE], repo, kenning_home).stdout)["memory"]["ref"]
    fresh = run(["--now", "2026-03-10T09:00:00Z", "memory", "list"], repo, kenning_home).stdout
    assert ref in fresh and "stale" not in fresh
    found = json.loads(run(["--now", "2026-03-10", "recall", "invoice export worker queue", "--json"],
                           repo, kenning_home).stdout)  # fmt: skip
    assert [r["ref"] for r in found["results"]] == [ref]

    later = run(["--now", "2026-03-16T09:00:00Z", "memory", "list"], repo, kenning_home).stdout
    line = next(x for x in later.splitlines() if x.startswith(ref))
    assert "stale" in line and "shelf life" in line
    listed = json.loads(run(["--now", "2026-03-16T09:00:00Z", "memory", "list", "--json"], repo, kenning_home).stdout)
    assert listed[0]["stale"] is True
    gone = json.loads(run(["--now", "2026-03-16T09:00:00Z", "recall", "invoice export worker queue", "--json"],
                          repo, kenning_home).stdout)  # fmt: skip
    assert gone["results"] == []


def test_kenning_now_in_the_environment_is_the_same_clock(repo: Path, kenning_home: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setenv("KENNING_NOW", "2026-03-01T09:00:00Z")
    stored = json.loads(run(STATE, repo, kenning_home).stdout)["memory"]
    assert stored["created_at"].startswith("2026-03-01T09:00:00")
    monkeypatch.setenv("KENNING_NOW", "2026-04-01T09:00:00Z")
    assert "stale" in run(["memory", "list"], repo, kenning_home).stdout


def test_a_bad_now_is_refused_with_a_fix(repo: Path, kenning_home: Path) -> None:
    bad = run(["--now", "next tuesday", "memory", "list"], repo, kenning_home, ok=False)
    assert bad.returncode == 1 and "not an ISO time" in bad.stderr and "fix:" in bad.stderr


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_mcp_server_reads_kenning_now(repo: Path, kenning_home: Path, anyio_backend: str) -> None:
    run(["--now", "2026-03-01T09:00:00Z", *STATE], repo, kenning_home)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(repo.parent), "KENNING_HOME": str(kenning_home),
           "CLAUDE_PROJECT_DIR": str(repo), "KENNING_NOW": "2026-03-20T09:00:00Z"}  # fmt: skip
    params = StdioServerParameters(command=str(Path(sys.executable).parent / "kenning"), args=["mcp"], env=env)
    async with Client(params) as client:
        listed = (await client.call_tool("list_memories", {})).structured_content
        assert listed is not None
        assert listed["memories"][0]["stale"] is True and "stale" in listed["memories"][0]["line"]
        found = (await client.call_tool("recall", {"query": "invoice export worker queue"})).structured_content
        assert found is not None and found["results"] == []
