"""A SIGKILL of `kenning sync` at any point loses nothing and duplicates nothing."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kenning.store.sqlite.schema import open_database

FILLER = ("We measured the cache hit rate on staging and decided to keep Redis for sessions; "
          "the export job still fails on large tenants. ") * 6


def _append(path: Path, session: str, start: int, count: int, expected: set[tuple[str, str]]) -> None:
    with path.open("ab") as fh:
        for i in range(start, start + count):
            uid = f"{session}-{i:06d}"
            role = "user" if i % 2 == 0 else "assistant"
            content: object = f"turn {i} of {session}: {FILLER}"
            if role == "assistant":
                content = [{"type": "text", "text": content}]
            rec = {"type": role, "uuid": uid, "sessionId": session, "cwd": "/nowhere/shop",
                   "timestamp": f"2026-08-10T12:00:{i % 60:02d}.000Z", "message": {"role": role, "content": content}}
            fh.write(json.dumps(rec).encode() + b"\n")
            expected.add((f"claude:{session}", uid))


@pytest.mark.slow
def test_sigkill_at_random_points_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    rng = random.Random(1234)
    home = tmp_path / "home"
    kenning_home = tmp_path / "kenning"
    folder = home / ".claude" / "projects" / "-nowhere-shop"
    folder.mkdir(parents=True)
    sessions = [f"s{n:02d}" for n in range(8)]
    written = dict.fromkeys(sessions, 0)
    expected: set[tuple[str, str]] = set()
    for s in sessions:
        _append(folder / f"{s}.jsonl", s, 0, 1500, expected)
        written[s] = 1500
    env = {**os.environ, "KENNING_HOME": str(kenning_home)}
    if not (Path(sys.executable).parent / "kenning").exists():
        pytest.skip("kenning is not installed in this interpreter")
    cmd = [str(Path(sys.executable).parent / "kenning"), "sessions", "sync", "--user-home", str(home), "--quiet"]
    kills = 0
    for _round in range(14):
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.4, 3.0))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
        # The transcripts keep growing between runs, so later kills land mid-work too.
        for s in rng.sample(sessions, 3):
            n = rng.randint(50, 400)
            _append(folder / f"{s}.jsonl", s, written[s], n, expected)
            written[s] += n
    assert kills >= 5, "the kills should land while sync is working"
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    db = open_database(kenning_home / "kenning.db")
    try:
        rows = db.query("SELECT session, uid FROM capture_turns")
        keys = [(r["session"], r["uid"]) for r in rows]
        assert len(keys) == len(set(keys))
        assert set(keys) == expected
        dup_chunks = db.query("SELECT turn, part, count(*) AS n FROM capture_chunks GROUP BY turn, part HAVING n > 1")
        assert dup_chunks == []
        missing = db.one("SELECT count(*) AS n FROM capture_turns t WHERE NOT EXISTS"
                         " (SELECT 1 FROM capture_chunks c WHERE c.turn = t.id)")
        assert missing["n"] == 0
        db.execute("INSERT INTO capture_fts (capture_fts) VALUES ('integrity-check')")
        counts = db.one("SELECT count(*) AS n FROM capture_fts WHERE capture_fts MATCH 'redis'")
        assert counts["n"] == len(expected)
        ledger = db.query("SELECT key, offset FROM capture_ledger")
        assert {Path(r["key"]).stem: r["offset"] for r in ledger} == {
            s: (folder / f"{s}.jsonl").stat().st_size for s in sessions}
    finally:
        db.close()
