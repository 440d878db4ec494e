"""Sync: incremental by offset, re-read when a file changed under the reader, idempotent,
redacted before the first write, and honouring the project's capture switch."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from capture_fixtures import CLAUDE_SESSION, SECRETS, copy_real_fixture

from kenning.capture.classify import RULES_VERSION
from kenning.config import Settings
from kenning.core.capture_job import sync_all
from kenning.core.service import Core
from kenning.store.sqlite.db import Database


def _turns(db: Database, session: str | None = None) -> list[tuple[str, str]]:
    sql = "SELECT role, text FROM capture_turns" + (" WHERE session = ?" if session else "") + " ORDER BY at, id"
    return [(r["role"], r["text"]) for r in db.query(sql, (session,) if session else ())]


def _claude_file(home: Path) -> Path:
    return home / ".claude" / "projects" / "-home-alice-src-shop" / f"{CLAUDE_SESSION}.jsonl"


def _line(uid: str, text: str, role: str = "user") -> bytes:
    rec = {"type": role, "uuid": uid, "sessionId": CLAUDE_SESSION, "cwd": "/home/alice/src/shop",
           "timestamp": f"2026-08-10T13:{len(uid) % 60:02d}:00.000Z", "message": {"role": role, "content": text}}
    if role == "assistant":
        rec["message"] = {"role": "assistant", "content": [{"type": "text", "text": text}]}
    return json.dumps(rec).encode() + b"\n"


def test_sync_captures_every_tool_once(core: Core, db: Database, settings: Settings, home: Path) -> None:
    first = sync_all(core, home)
    assert first.errors == []
    tools = {r["tool"] for r in db.query("SELECT tool FROM capture_sessions")}
    assert tools == {"claude-code", "codex", "gemini", "opencode"}
    assert first.turns_added == db.one("SELECT count(*) AS n FROM capture_turns")["n"] > 20
    assert first.secrets_redacted >= 2
    again = sync_all(core, home)
    assert again.turns_added == 0 and again.files_read <= 2  # only the two half-written files are looked at
    session = db.one("SELECT * FROM capture_sessions WHERE id = ?", (f"claude:{CLAUDE_SESSION}",))
    assert session["project_name"] == "shop" and session["branch"] == "fix/login-tz"
    assert session["title"].startswith("Why does the login test fail")
    # The subagent's turns are part of its parent session.
    assert ("assistant", "The session cookie is set in shop/auth/cookies.py by set_session_cookie().") in _turns(
        db, f"claude:{CLAUDE_SESSION}")


def test_secrets_are_redacted_before_storage(core: Core, db: Database, settings: Settings, home: Path) -> None:
    sync_all(core, home)
    texts = " ".join(t for _r, t in _turns(db))
    assert "[secret]" in texts
    for value in SECRETS.values():
        assert value not in texts
    db.execute("PRAGMA wal_checkpoint(PASSIVE)")
    for suffix in ("", "-wal"):
        path = Path(str(settings.db_path) + suffix)
        if path.exists():
            raw = path.read_bytes()
            for value in SECRETS.values():
                assert value.encode() not in raw


def test_appended_turns_are_added_incrementally(core: Core, db: Database, settings: Settings, home: Path) -> None:
    sync_all(core, home)
    before = len(_turns(db))
    path = _claude_file(home)
    with path.open("ab") as fh:
        fh.write(b'ten"}, "uuid": "ffff0000-0000-4000-8000-000000000001", "sessionId": "' + CLAUDE_SESSION.encode()
                 + b'"}\n')
        fh.write(_line("ffff0000-0000-4000-8000-000000000002", "Please also add a regression test."))
        fh.write(_line("ffff0000-0000-4000-8000-000000000003", "Added tests/test_tz.py.", "assistant"))
        fh.write(b'{"type": "user", "uuid": "ffff0000-0000-4000-8000-0000000000')  # being written
    summary = sync_all(core, home)
    assert summary.turns_added == 3 and summary.files_rewritten == 0
    texts = [t for _r, t in _turns(db)]
    assert len(texts) == before + 3
    assert "half written" in texts and "Please also add a regression test." in texts


def test_file_rewritten_under_the_reader_is_read_again(core: Core, db: Database, settings: Settings, home: Path) -> None:
    sync_all(core, home)
    path = _claude_file(home)
    # Truncated and rewritten: shorter, different content.
    path.write_bytes(_line("eeee0000-0000-4000-8000-000000000001", "A fresh start after a rewrite."))
    summary = sync_all(core, home)
    assert summary.files_rewritten == 1
    main = [t for _r, t in _turns(db, f"claude:{CLAUDE_SESSION}")]
    assert "A fresh start after a rewrite." in main
    assert "Why does the login test fail on CI but not locally?" not in main
    # Same size, different first bytes: also noticed.
    data = path.read_bytes()
    path.write_bytes(data.replace(b"A fresh start", b"A fresh stArt"))
    assert sync_all(core, home).files_rewritten == 1
    assert "A fresh stArt after a rewrite." in [t for _r, t in _turns(db, f"claude:{CLAUDE_SESSION}")]


def test_gemini_file_changing_in_place_replaces_its_turns(core: Core, db: Database, settings: Settings, home: Path) -> None:
    sync_all(core, home)
    path = next((home / ".gemini" / "tmp" / "shop" / "chats").glob("*.jsonl"))
    with path.open("a") as fh:
        fh.write(json.dumps({"id": "g3", "timestamp": "2026-08-12T10:03:02.000Z", "type": "gemini",
                             "content": "Set the burst to 25 in shop/ratelimit.py."}) + "\n")
    sync_all(core, home)
    texts = [t for _r, t in _turns(db, "gemini:d00dfeed-aaaa-4bbb-8ccc-ddddeeeeffff")]
    assert "Set the burst to 25 in shop/ratelimit.py." in texts
    assert "Set the burst to 20 in shop/ratelimit.py." not in texts
    assert len(texts) == 4


def test_capture_switch_is_honoured(core: Core, db: Database, tmp_path: Path) -> None:
    repo = tmp_path / "work" / "secret-project"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    home = tmp_path / "home"
    folder = home / ".claude" / "projects" / "p"
    folder.mkdir(parents=True)
    rec = {"type": "user", "uuid": "u-1", "sessionId": "s-1", "cwd": str(repo), "timestamp": "2026-08-10T10:00:00Z",
           "message": {"role": "user", "content": "do not keep this"}}
    (folder / "s-1.jsonl").write_text(json.dumps(rec) + "\n")
    place = core.place(repo)
    core.set_policy(place, "project", "capture", "off")
    summary = sync_all(core, home)
    assert summary.capture_off_turns == 1 and _turns(db) == []
    core.set_policy(place, "project", "capture", "on")
    (folder / "s-1.jsonl").write_text(json.dumps(rec) + "\n" + json.dumps({**rec, "uuid": "u-2",
                                      "message": {"role": "user", "content": "keep this one"}}) + "\n")
    sync_all(core, home)
    assert [t for _r, t in _turns(db)] == ["keep this one"]


def test_changed_rules_version_reclassifies_old_chunks(core: Core, db: Database, settings: Settings, home: Path) -> None:
    sync_all(core, home)
    db.execute("UPDATE capture_chunks SET rules_version = 0, type = 'general', importance = 0 WHERE role != 'tool'")
    summary = sync_all(core, home)
    assert summary.reclassified > 0
    stale = db.one("SELECT count(*) AS n FROM capture_chunks WHERE rules_version != ? AND role != 'tool'",
                   (RULES_VERSION,))
    assert stale["n"] == 0
    row = db.one("SELECT type, importance FROM capture_chunks WHERE body LIKE 'We decided to use Postgres%'")
    assert row["type"] == "decision" and row["importance"] >= 4


def test_real_fixture_redacted_and_no_injected_context(core: Core, db: Database, settings: Settings, tmp_path: Path) -> None:
    home = tmp_path / "home"
    copy_real_fixture(home)
    summary = sync_all(core, home)
    assert summary.secrets_redacted == 2
    users = [t for r, t in _turns(db) if r == "user"]
    assert len(users) == 1 and "We decided to pin TZ" in users[0]
    everything = " ".join(t for _r, t in _turns(db))
    assert "Sup3rS3cretPass" not in everything and "AKIAIOSFODNN7EXAMPLE" not in everything
    assert "postgres://shop:[secret]@db.internal:5432/shop" in everything
    assert "system-reminder" not in everything and "You are powered by" not in everything
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw = settings.db_path.read_bytes()
    assert b"Sup3rS3cretPass" not in raw and b"AKIAIOSFODNN7EXAMPLE" not in raw
    decision = db.one("SELECT type, importance FROM capture_chunks WHERE role = 'user'")
    assert decision["type"] == "decision" and decision["importance"] >= 4


@pytest.mark.slow
def test_a_50_mb_session(core: Core, db: Database, settings: Settings, tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = home / ".claude" / "projects" / "-big"
    folder.mkdir(parents=True)
    path = folder / "big.jsonl"
    filler = "The cache layer keeps sessions warm; we measured the hit rate on the staging cluster. " * 20
    count = 0
    with path.open("wb") as fh:
        while fh.tell() < 50 * 1024 * 1024:
            fh.write(_line(f"u-{count:08d}", f"turn {count}: {filler}", "user" if count % 2 == 0 else "assistant"))
            count += 1
    summary = sync_all(core, home)
    assert summary.turns_added == count
    assert summary.bytes_read == os.path.getsize(path)
    assert core.stores.capture.counts(core.workspace).turns == count


def test_run_job_uses_samples_only_when_the_machine_has_none(core: Core, db: Database, settings: Settings, tmp_path: Path,
                                                              home: Path) -> None:
    from kenning.core.capture_job import run_capture_job

    said: list[str] = []
    empty = tmp_path / "empty-home"
    empty.mkdir()
    demo = run_capture_job(core, empty, env={}, say=said.append)
    assert demo.turns_added >= 8 and "demo store" in said[0]
    assert core.stores.capture.counts(core.workspace).turns == 0  # the real store is untouched
    assert (settings.home / "demo-capture" / "kenning.db").exists()
    said.clear()
    real = run_capture_job(core, home, env={}, say=said.append)
    assert real.turns_added > 20 and core.stores.capture.counts(core.workspace).turns == real.turns_added
    assert "demo" not in said[0]


def test_a_session_spans_its_first_to_its_last_turn_after_one_sync(core: Core, home: Path, settings: Settings, db: Database) -> None:
    sync_all(core, home)
    for row in db.query("SELECT id, first_at, last_at FROM capture_sessions"):
        span = db.one("SELECT min(at) AS a, max(at) AS b FROM capture_turns WHERE session = ? AND at != ''", (row["id"],))
        assert (row["first_at"], row["last_at"]) == (span["a"], span["b"]), row["id"]
    claude = db.one("SELECT first_at, last_at FROM capture_sessions WHERE id = ?", (f"claude:{CLAUDE_SESSION}",))
    assert claude["first_at"] < claude["last_at"]


def test_stores_written_by_0_1_get_the_first_turn_time_back(core: Core, home: Path, settings: Settings) -> None:
    from kenning.store.sqlite.schema import open_database

    db = open_database(settings.db_path)
    sync_all(core, home)
    db.execute("UPDATE capture_sessions SET first_at = last_at")  # what 0.1's sync left
    db.execute("DELETE FROM _migrations WHERE migration_set = 'capture' AND name = 'm004_session_first_at'")
    db.close()
    db = open_database(settings.db_path)
    try:
        row = db.one("SELECT first_at, last_at FROM capture_sessions WHERE id = ?", (f"claude:{CLAUDE_SESSION}",))
        first = db.one("SELECT min(at) AS a FROM capture_turns WHERE session = ? AND at != ''", (f"claude:{CLAUDE_SESSION}",))
        assert row["first_at"] == first["a"] < row["last_at"]
    finally:
        db.close()
