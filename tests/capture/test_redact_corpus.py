"""Redaction against the labelled corpus: every secret caught, ordinary text left alone."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from kenning.capture.sync import sync_all
from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.redact import MASK, find_secrets, redact
from kenning.store.sqlite.schema import open_database

DATA = Path(__file__).parent / "data"
SECRETS = [json.loads(base64.b64decode(line)) for line in (DATA / "secrets.b64").read_text().split()]
ORDINARY = (DATA / "ordinary.txt").read_text().splitlines()


def test_corpus_is_big_enough() -> None:
    assert len(SECRETS) >= 200 and len({s["provider"] for s in SECRETS}) >= 30
    assert len(ORDINARY) >= 2000


@pytest.mark.parametrize("row", SECRETS, ids=[f"{s['provider']}-{i}" for i, s in enumerate(SECRETS)])
def test_every_corpus_secret_is_redacted(row: dict[str, str]) -> None:
    out = redact(row["line"])
    assert row["secret"] not in out
    assert MASK in out


def test_ordinary_lines_are_left_alone() -> None:
    changed = [line for line in ORDINARY if redact(line) != line]
    assert len(changed) <= len(ORDINARY) * 0.005, changed[:10]


def test_rest_of_the_sentence_is_kept() -> None:
    text = "DATABASE_URL=postgres://shop:Sup3rS3cretPass@db.internal:5432/shop and AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE"
    assert redact(text) == "DATABASE_URL=postgres://shop:[secret]@db.internal:5432/shop and AWS_ACCESS_KEY_ID=[secret]"
    spans = find_secrets(text)
    assert [label for _s, _e, label in spans] == ["url-password", "aws-access-key"]


@pytest.mark.parametrize("text", [
    "commit 3f2c1d0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e",
    "request_id=550e8400-e29b-41d4-a716-446655440000",
    "md5 9e107d9d372bb6826bd81d3542a419d6 sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "echo SGVsbG8sIHdvcmxkISBUaGlzIGlzIGp1c3QgYmFzZTY0Lg== | base64 -d",
    "git checkout -b sk-fix-login-timeout",
    "NPM_TOKEN=${NPM_TOKEN}",
    "the token count was 128000",
])
def test_not_secrets(text: str) -> None:
    assert redact(text) == text


def test_linear_time_on_bait() -> None:
    bait = "-----BEGIN RSA PRIVATE KEY-----" + "A" * 200_000
    assert redact(bait).startswith(MASK)
    many = "password = " * 20_000
    assert redact(many) == many


def test_no_corpus_secret_reaches_the_database_file(tmp_path: Path) -> None:
    """Sync a transcript holding every corpus secret; then read the raw bytes of the database,
    its WAL and the FTS index tables: none of the secrets may be there."""
    home = tmp_path / "home"
    folder = home / ".claude" / "projects" / "-home-dev-app"
    folder.mkdir(parents=True)
    lines = []
    for i, row in enumerate(SECRETS):
        role = "user" if i % 3 == 0 else "assistant"
        content: object = row["line"]
        if role == "assistant":
            content = [{"type": "text", "text": row["line"]}]
        if i % 3 == 2:
            role, content = "user", [{"type": "tool_result", "tool_use_id": f"t{i}", "content": row["line"]}]
        lines.append(json.dumps({"type": role, "uuid": f"u{i}", "sessionId": "s1", "cwd": "/home/dev/app",
                                 "timestamp": "2026-08-10T12:00:00.000Z", "message": {"role": role, "content": content}}))
    (folder / "s1.jsonl").write_text("\n".join(lines) + "\n")
    settings = Settings(home=tmp_path / "kenning")
    db = open_database(settings.db_path)
    summary = sync_all(db, settings, home, FixedClock())
    assert summary.turns_added == len(SECRETS)
    fts_rows = db.query("SELECT block FROM capture_fts_data")
    fts_text = b"".join(bytes(r["block"]) for r in fts_rows if r["block"] is not None)
    stored = " ".join(r["body"] for r in db.query("SELECT body FROM capture_fts"))
    raw = b""
    for suffix in ("", "-wal"):
        path = Path(str(settings.db_path) + suffix)
        if path.exists():
            raw += path.read_bytes()
    db.close()
    assert len(raw) > 100_000
    for row in SECRETS:
        # Also pieces from the random part (the end and the middle; the lines of a PEM body):
        # the index holds tokens, not whole strings, and a prefix like "sk_live_" is no secret.
        secret = row["secret"]
        parts = [ln for ln in secret.splitlines() if len(ln) >= 40 and "-----" not in ln] or [secret]
        pieces = {secret} | {p[-16:] for p in parts} | {p[len(p) // 2:len(p) // 2 + 16] for p in parts if len(p) >= 40}
        for piece in pieces:
            if len(piece) < 12 or "\n" in piece:
                continue
            assert piece.encode() not in raw, row["provider"]
            assert piece.encode() not in fts_text and piece.lower().encode() not in fts_text, row["provider"]
            assert piece not in stored, row["provider"]
