"""The redaction migrations: a store that earlier versions filled with raw words (a secret in a
session's stored prompt, a memory, a note, a captured turn, a graph fact, ...) comes out of its
next open with every secret masked, in every table and in every byte of its files, still
searchable by its other words; and running the redaction again changes nothing."""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from kenning.store.protocol import MemoryFilter
from kenning.store.sqlite import capture_schema, graph_schema, hooks_schema, memory_schema, memory_search
from kenning.store.sqlite.db import connect, migrate
from kenning.store.sqlite.memories import SqliteMemoryStore
from kenning.store.sqlite.schema import all_sets, open_database
from kenning.text import index_text

SECRET = "ghp_" + "Q7vK2mX9pL4sR8tN1wY6zB3cD5fG0hJ2kM4n"
AWS = "AKIA" + "QW3RTY7UIOP4ASDF"
REDACT_STEPS = {"memory": "m003_redact", "hooks": "m002_redact", "capture": "m003_redact", "graph": "m002_redact"}
T = "2026-03-01T09:00:00.000000Z"


def old_store(path: Path) -> None:
    """A store at the schema before the redaction steps, written raw the way older versions did."""
    conn = connect(path)
    migrate(conn, all_sets(), stop_before=REDACT_STEPS)
    raw = f"deploy with token {SECRET} to staging"
    conn.execute("BEGIN")
    cur = conn.execute(
        "INSERT INTO memories (ref, workspace, scope, text, kind, reason, confidence, origin, session, tags,"
        " created_at, confirmed_at) VALUES ('m:0000aaaa', 'local', 'p', ?, 'fact', ?, 0.7, 'agent', ?, ?, ?, ?)",
        (raw, f"because {AWS} is the key", f"s-{SECRET}", "deploy", T, T),
    )
    fields = [index_text(raw), index_text(f"because {AWS} is the key"), index_text("deploy"), ""]
    conn.execute("INSERT INTO memory_terms (id, text, reason, tags, citation) VALUES (?, ?, ?, ?, ?)",
                 [cur.lastrowid, *fields])  # fmt: skip
    memory_search.stats_add(conn, fields)
    conn.execute("INSERT INTO memory_events (ref, at, event, detail) VALUES ('m:0000aaaa', ?, 'created', ?)",
                 (T, SECRET))  # fmt: skip
    conn.execute(
        "INSERT INTO decision_docs (workspace, scope, title, decision, reason, confidence, outcome, created_at,"
        " updated_at) VALUES ('local', 'p', ?, ?, 'r', 0.9, ?, ?, ?)",
        (f"Rotate {SECRET}", raw, json.dumps([f"Shipped in {SECRET}"]), T, T),
    )
    conn.execute("INSERT INTO reviews (workspace, scope, kind, payload, created_at) VALUES ('local', 'p', 'merge', ?, ?)",
                 (json.dumps({"text": raw, "why": "dup"}), T))  # fmt: skip
    conn.execute("INSERT INTO meta (key, value) VALUES ('gh.waiting.p', ?)",
                 (json.dumps({"items": [{"title": f"Leak {SECRET}"}]}),))  # fmt: skip
    conn.execute(
        "INSERT INTO hook_sessions (session, tool, workspace, project, started_at, last_seen, opening, last_message)"
        " VALUES ('claude-code:s1', 'claude-code', 'local', 'p', ?, ?, ?, ?)",
        (T, T, f"use {SECRET} for the push", f"I exported AWS_SECRET_ACCESS_KEY={AWS}x9Kq2 to the env"),
    )
    conn.execute("INSERT INTO work_items (workspace, project, branch, text, created_at) VALUES ('local', 'p', 'main', ?, ?)",
                 (raw, T))  # fmt: skip
    conn.execute("INSERT INTO work_goals (workspace, project, branch, goal, set_at) VALUES ('local', 'p', 'main', ?, ?)",
                 (raw, T))  # fmt: skip
    conn.execute("INSERT INTO work_handoffs (workspace, project, text, created_at) VALUES ('local', 'p', ?, ?)",
                 (raw, T))  # fmt: skip
    conn.execute("INSERT INTO work_progress (workspace, project, branch, summary, decisions, at)"
                 " VALUES ('local', 'p', 'main', ?, ?, ?)", (raw, json.dumps([raw]), T))  # fmt: skip
    conn.execute("INSERT INTO capture_sessions (id, workspace, tool, title) VALUES ('claude:s1', 'local', 'claude-code', ?)",
                 (raw,))  # fmt: skip
    turn = conn.execute(
        "INSERT INTO capture_turns (session, uid, source, role, text, tool_calls) VALUES ('claude:s1', 'u1', 'f', 'user', ?, ?)",
        (raw, json.dumps([{"name": "Bash", "input": f"curl -H 'x: {SECRET}'"}])),
    ).lastrowid
    chunk = conn.execute(
        "INSERT INTO capture_chunks (session, turn, role, body, context) VALUES ('claude:s1', ?, 'user', ?, '')",
        (turn, raw),
    ).lastrowid
    conn.execute("INSERT INTO capture_fts (rowid, body, context) VALUES (?, ?, '')", (chunk, raw))
    conn.execute("INSERT INTO graph_entities (workspace, id, name, created_at) VALUES ('local', 'shop', 'shop', ?)", (T,))
    conn.execute("INSERT INTO graph_facts (workspace, project, subject, predicate, object, object_kind, valid_from,"
                 " evidence, created_at) VALUES ('local', 'p', 'shop', 'decided', ?, 'text', ?, ?, ?)",
                 (raw, T, raw, T))  # fmt: skip
    conn.execute("INSERT INTO notes_diary (workspace, project, at, text) VALUES ('local', 'p', ?, ?)", (T, raw))
    conn.execute("INSERT INTO notes_values (workspace, project, key, value, updated_at) VALUES ('local', 'p', 'k', ?, ?)",
                 (raw, T))  # fmt: skip
    conn.execute("COMMIT")
    conn.close()


def every_text(conn: sqlite3.Connection) -> str:
    """Every value of every table, as one string."""
    out = []
    for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        out += [repr(tuple(r)) for r in conn.execute(f'SELECT * FROM "{table}"')]
    return "\n".join(out)


def test_opening_an_old_store_masks_every_secret_it_holds(tmp_path: Path) -> None:
    path = tmp_path / "kenning.db"
    old_store(path)
    before = sqlite3.connect(path)
    assert SECRET in every_text(before)
    before.close()

    db = open_database(path)
    try:
        text = every_text(db.conn)
        assert SECRET not in text and AWS not in text and "[secret]" in text
        store = SqliteMemoryStore(db)
        memory = store.get("local", "m:0000aaaa")
        assert memory is not None and memory.text == "deploy with token [secret] to staging"
        assert memory.reason == "because [secret] is the key" and SECRET not in memory.session
        # Still found by its other words; no longer by the secret's (which left the index).
        flt = MemoryFilter("local", ["p"])
        assert [h.memory.ref for h in store.search(flt, ["deploy", "stage"], limit=5)] == ["m:0000aaaa"]
        assert store.search(flt, index_text(SECRET).split(), limit=5) == []
        assert db.query("SELECT rowid FROM capture_fts WHERE capture_fts MATCH ?", ['"' + SECRET.lower() + '"']) == []
        assert len(db.query("SELECT rowid FROM capture_fts WHERE capture_fts MATCH 'staging'")) == 1
    finally:
        db.close()
    for suffix in ("", "-wal", "-shm"):
        file = Path(f"{path}{suffix}")
        if file.exists():
            data = file.read_bytes()
            assert SECRET.encode() not in data and SECRET.lower().encode() not in data, file.name
            assert AWS.encode() not in data and AWS.lower().encode() not in data, file.name


@pytest.mark.parametrize(
    "step", [memory_schema._m003_redact, hooks_schema._m002_redact, capture_schema._m003_redact, graph_schema._m002_redact],
    ids=lambda f: f.__module__.rsplit(".", 1)[-1],
)
def test_redacting_again_changes_nothing(step: object, tmp_path: Path) -> None:
    path = tmp_path / "kenning.db"
    old_store(path)
    open_database(path).close()
    conn = connect(path)
    try:
        before = every_text(conn)
        conn.execute("BEGIN IMMEDIATE")
        step(conn)  # type: ignore[operator]
        conn.execute("COMMIT")
        assert every_text(conn) == before
    finally:
        conn.close()


# A store written by the 0.1 code itself (tests/store/data/build_old_store.py ran the hooks and
# capture of commit b405fc8 on a Claude Code session holding these fake secrets).
OLD_STORE = Path(__file__).parent / "data" / "store-b405fc8.db.gz"
OLD_SECRETS = {
    "prompt": "ghp_Vq7Lx2Rk9Tz4Wm8Pn3Hs6Jd1Fb5Yc0Ga2Ne",
    "reply": "sk_live_51Hq8Zr2Lm4Vx7Kp9Tw3Ny6Bc0Df5Gj",
    "tool": "sk-ant-api03-Rm4Tq8Vz2Lx6Kp0Wn3Hs7Jd1Fb5Yc9Ga2Ne4Qt8Vz2Lx6Kp0Wn3Hs7Jd1Fb5Yc9Ga2Ne4Qt8Vz2Lx6Kp0Wn3AA",
    "dsn": "8f3c2b1a9e7d4c6b5a0f1e2d3c4b5a69",
    "sas": "Xq7Lm2Rk9Tz4Wm8Pn3Hs6Jd1Fb5Yc0Ga2NeQt8Vz2Lx",
}


def pieces_in(data: bytes) -> list[str]:
    """Which of the old secrets have 8 characters in a row of their random part in ``data``
    (as written, or lower-cased as the full-text index keeps words)."""
    found = []
    for name, secret in OLD_SECRETS.items():
        body = secret.split("_")[-1].removeprefix("api03-")
        windows = {body[i : i + 8] for i in range(len(body) - 7)}
        if any(w.encode() in data or w.lower().encode() in data for w in windows):
            found.append(name)
    return found


def test_a_store_written_by_the_old_hooks_and_capture_is_redacted_when_the_cli_opens_it(tmp_path: Path) -> None:
    home = tmp_path / "kenning-home"
    home.mkdir()
    (home / "kenning.db").write_bytes(gzip.decompress(OLD_STORE.read_bytes()))
    # What the old code left: the hooks' first prompt and last reply (each cut astride a
    # token), a tool output's token cut by capture, two formats its rules missed.
    assert pieces_in((home / "kenning.db").read_bytes()) == list(OLD_SECRETS)

    env = {**os.environ, "KENNING_HOME": str(home), "HOME": str(tmp_path), "KENNING_BACKGROUND": "off"}
    kenning = [sys.executable, "-m", "kenning.cli"]
    search = subprocess.run([*kenning, "sessions", "search", "staging", "--json"], capture_output=True, text=True,
                            env=env, cwd=tmp_path, timeout=120, check=True)  # fmt: skip
    hits = json.loads(search.stdout)
    assert hits, "the old captured session is still found by its other words"
    show = subprocess.run([*kenning, "sessions", "show", hits[0]["session"], "--json"], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=120, check=True)  # fmt: skip

    assert pieces_in((search.stdout + show.stdout).encode()) == []
    for path in sorted(p for p in home.rglob("*") if p.is_file()):
        assert pieces_in(path.read_bytes()) == [], path.name
    conn = sqlite3.connect(home / "kenning.db")
    try:
        opening, last = conn.execute("SELECT opening, last_message FROM hook_sessions").fetchone()
        assert opening.endswith("use token [secret]") and last.endswith("STRIPE_KEY=[secret]")
        turns = "\n".join(t for (t,) in conn.execute("SELECT text FROM capture_turns"))
        assert "https://[secret]@o450211.ingest.sentry.io/42" in turns and "&sig=[secret]" in turns
    finally:
        conn.close()
