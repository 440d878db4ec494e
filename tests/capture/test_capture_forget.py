"""`kenning forget --session`: a captured session deleted for real (turns, chunks, their
full-text entries; not even the database file keeps its words), and a later sync, even of a
rewritten transcript, does not capture it again."""

from __future__ import annotations

import json
from pathlib import Path

from capture_fixtures import CLAUDE_SESSION, build_home

from cli_runner import run


def on_disk(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(home.glob("kenning.db*")))


def test_forget_a_session_and_sync_does_not_bring_it_back(tmp_path: Path, kenning_home: Path) -> None:
    home = build_home(tmp_path / "user-home")
    run(["sessions", "sync", "--user-home", str(home), "--quiet"], tmp_path, kenning_home)
    words = "Postgres for the sessions table"
    found = json.loads(run(["sessions", "search", words, "--json"], tmp_path, kenning_home).stdout)
    assert any(h["session"] == f"claude:{CLAUDE_SESSION}" for h in found)
    plan = json.loads(run(["forget", "--session", CLAUDE_SESSION[:8], "--json"], tmp_path, kenning_home,
                          ok=False).stdout)  # fmt: skip
    assert plan["applied"] is False and plan["session"] == f"claude:{CLAUDE_SESSION}" and plan["turns"] > 0
    done = json.loads(run(["forget", "--session", CLAUDE_SESSION[:8], "--yes", "--json"], tmp_path,
                          kenning_home).stdout)  # fmt: skip
    assert done["applied"] is True
    gone = run(["sessions", "show", CLAUDE_SESSION], tmp_path, kenning_home, ok=False)
    assert gone.returncode == 1 and "no captured session" in gone.stderr
    hits = json.loads(run(["sessions", "search", words, "--json"], tmp_path, kenning_home).stdout)
    assert not any(h["session"] == f"claude:{CLAUDE_SESSION}" for h in hits)
    transcript = home / ".claude" / "projects" / "-home-alice-src-shop" / f"{CLAUDE_SESSION}.jsonl"
    transcript.write_bytes(transcript.read_bytes().replace(b"\n", b"\n", 1) + b"\n")  # touched: read again
    run(["sessions", "sync", "--user-home", str(home), "--quiet"], tmp_path, kenning_home)
    assert run(["sessions", "show", CLAUDE_SESSION], tmp_path, kenning_home, ok=False).returncode == 1
    raw = on_disk(kenning_home)
    assert b"sessions table" not in raw and b"test_expiry depends on local time" not in raw
