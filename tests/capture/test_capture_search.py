"""Session search, show and context, through the functions and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from capture_fixtures import CLAUDE_SESSION, build_home

from kenning.capture.search import context, evidence, search, show
from kenning.core.capture_job import sync_all
from kenning.core.service import Core
from kenning.errors import Invalid, NotFound
from kenning.store.protocol import CaptureStore

NOW = datetime(2026, 8, 20, tzinfo=UTC)


@pytest.fixture
def synced(core: Core, home: Path) -> CaptureStore:
    """The capture store after one sync of the sample home (workspace "local")."""
    sync_all(core, home)
    return core.stores.capture


def test_search_finds_stemmed_words_and_returns_the_evidence_sentence(synced: CaptureStore) -> None:
    hits = search(synced, "local", "rotating signing keys", now=NOW)
    assert hits and hits[0].session == "gemini:c0ffee00-1111-4222-8333-444455556666"
    assert hits[0].evidence == "How do I rotate the signing key?"
    hit = next(h for h in search(synced, "local", "postgres sessions table", now=NOW))
    assert hit.type == "decision" and hit.importance >= 4
    assert hit.evidence.startswith("We decided to use Postgres for the sessions table")


def test_evidence_is_the_best_sentence_not_the_start() -> None:
    body = "Some preamble here. Another unrelated line. The burst is now 20 in the rate limiter. Done."
    assert evidence(body, ["burst", "limiter"]) == "The burst is now 20 in the rate limiter."


def test_filters(synced: CaptureStore) -> None:
    assert {h.tool for h in search(synced, "local", "login test", tool="codex", now=NOW)} == {"codex"}
    assert all(h.type == "decision" for h in search(synced, "local", "postgres", type="decision", now=NOW))
    assert search(synced, "local", "login", since="2027-01-01", now=NOW) == []
    assert search(synced, "local", "login", until="2026-08-10", now=NOW)  # the whole day counts
    assert search(synced, "local", "login", since="2026-08-10", until="2026-08-10", now=NOW)
    with pytest.raises(Invalid):
        search(synced, "local", "login", since="last tuesday")
    assert search(synced, "local", "login", project="nope", now=NOW) == []


def test_importance_lifts_ties() -> None:
    from kenning.capture.search import IMPORTANCE_WEIGHT, RECENCY_WEIGHT

    assert 0 < IMPORTANCE_WEIGHT < 0.2 and 0 < RECENCY_WEIGHT < 0.2  # small lifts, BM25 leads


def test_bad_queries_say_how_to_fix(synced: CaptureStore) -> None:
    with pytest.raises(Invalid) as err:
        search(synced, "local", "the of and")
    assert "kenning sessions search" in err.value.fix
    with pytest.raises(Invalid):
        search(synced, "local", "login", type="gossip")
    # Words FTS5 would read as operators are searched as words.
    search(synced, "local", 'NEAR AND "OR" login:', now=NOW)


def test_show_and_context(synced: CaptureStore) -> None:
    view = show(synced, "local", CLAUDE_SESSION[:8])
    assert view["session"]["id"] == f"claude:{CLAUDE_SESSION}"
    texts = [t["text"] for t in view["turns"]]
    assert "«Why does the login test fail on CI but not locally?»" in texts  # a transcript is data: quoted
    assert not any("sk_live_" in t for t in texts)
    hit = search(synced, "local", "root cause test_expiry", now=NOW)[0]
    around = context(synced, "local", hit.session, hit.chunk, radius=1)
    assert len(around["turns"]) == 3 and around["turns"][1]["turn"] == hit.turn
    with pytest.raises(NotFound):
        show(synced, "local", "no-such-session")
    with pytest.raises(NotFound):
        context(synced, "local", hit.session, 999_999)


def _cli(kenning_home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).parent / "kenning"
    env = {**os.environ, "KENNING_HOME": str(kenning_home)}
    return subprocess.run([str(exe), *args], env=env, capture_output=True, text=True, timeout=120)


def test_cli_sync_search_show_context(tmp_path: Path) -> None:
    home = build_home(tmp_path / "home")
    kh = tmp_path / "kh"
    out = _cli(kh, "sessions", "sync", "--user-home", str(home), "--json")
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["turns_added"] > 20 and summary["secrets_redacted"] >= 2
    text = _cli(kh, "sessions", "sync", "--user-home", str(home), "--quiet")
    assert "captured 0 new turns" in text.stdout
    found = _cli(kh, "sessions", "search", "--json", "cache", "headers")
    hits = json.loads(found.stdout)
    assert hits[0]["tool"] == "opencode"
    shown = _cli(kh, "sessions", "show", hits[0]["session"])
    assert "Set long cache headers on the static assets" in shown.stdout
    ctx = _cli(kh, "sessions", "context", hits[0]["session"], str(hits[0]["chunk"]), "--json")
    assert json.loads(ctx.stdout)["chunk"] == hits[0]["chunk"]
    missing = _cli(kh, "sessions", "show", "nope")
    assert missing.returncode == 1 and "fix:" in missing.stderr
    bad = _cli(kh, "sessions", "search", "the")
    assert bad.returncode == 1 and "fix:" in bad.stderr


def test_cli_watch_stops_after_rounds(tmp_path: Path) -> None:
    home = build_home(tmp_path / "home")
    out = _cli(tmp_path / "kh", "sessions", "watch", "--user-home", str(home), "--rounds", "2", "--interval", "0.2")
    assert out.returncode == 0, out.stderr
    assert "turns" in out.stdout


def test_watch_keeps_up_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    import signal
    import time

    home = build_home(tmp_path / "home")
    exe = Path(sys.executable).parent / "kenning"
    env = {**os.environ, "KENNING_HOME": str(tmp_path / "kh"), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([str(exe), "sessions", "watch", "--user-home", str(home), "--interval", "0.3"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert "turns" in first
        transcript = home / ".claude" / "projects" / "-home-alice-src-shop" / f"{CLAUDE_SESSION}.jsonl"
        rec = {"type": "user", "uuid": "w-1", "sessionId": CLAUDE_SESSION, "cwd": "/home/alice/src/shop",
               "timestamp": "2026-08-10T14:00:00.000Z", "message": {"role": "user", "content": "watch picks me up"}}
        with transcript.open("a") as fh:
            fh.write("\n" + json.dumps(rec) + "\n")  # ends the half-written line, then a new turn
        deadline = time.monotonic() + 60
        line = ""
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if "+" in line and "+0" not in line:
                break
        assert line.split()[1].startswith("+") and line.split()[1] != "+0"
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "stopped watching" in out


def test_watch_says_when_watchfiles_is_missing_and_polls(tmp_path: Path) -> None:
    home = build_home(tmp_path / "home")
    env = {**os.environ, "KENNING_HOME": str(tmp_path / "kh")}
    args = ["sessions", "watch", "--user-home", str(home), "--rounds", "2", "--interval", "0.2"]
    # As on an install without the `watch` extra: importing watchfiles fails.
    code = "import sys; sys.modules['watchfiles'] = None; from kenning.cli.main import cli; cli(sys.argv[1:])"
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "watchfiles is not installed" in done.stderr and "pip install 'kenning[watch]'" in done.stderr
    assert "checks for new turns every 0.2 s" in done.stderr and "turns" in done.stdout
    with_extra = _cli(tmp_path / "kh2", *args)  # the dev install has the extra
    assert with_extra.returncode == 0 and "watchfiles is not installed" not in with_extra.stderr
