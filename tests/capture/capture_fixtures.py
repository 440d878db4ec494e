"""Helpers for capture tests: a home folder holding every tool's transcripts where the tools
write them. (A uniquely named module: several test folders have a conftest.py.)"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

DATA = Path(__file__).parent / "data"
# Vendored from the recorded Claude Code 2.1.328 run (tests/fixtures/README.md says where it came from).
REAL_FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "claude-code-2.1.328" / "session.jsonl"

# Built by concatenation so secret scanners do not flag this file; fake values.
SECRETS = {
    "@@SECRET_STRIPE@@": "sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dcTYooMQauvdEDq54NiTph",
    "@@SECRET_GITHUB@@": "gh" + "p_" + "wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx",
}
CLAUDE_SESSION = "9f1c2a7e-3b4d-4e5f-8a6b-7c8d9e0f1a2b"
CODEX_ROLLOUT = "rollout-2026-08-10T13-02-51-0199a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b.jsonl"


def fill(src: Path, dst: Path) -> Path:
    data = src.read_bytes()
    for placeholder, value in SECRETS.items():
        data = data.replace(placeholder.encode(), value.encode())
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(data)
    return dst


def build_home(home: Path) -> Path:
    project = home / ".claude" / "projects" / "-home-alice-src-shop"
    fill(DATA / "claude" / f"{CLAUDE_SESSION}.jsonl", project / f"{CLAUDE_SESSION}.jsonl")
    fill(DATA / "claude" / "agent-a1b2c3.jsonl", project / CLAUDE_SESSION / "subagents" / "agent-a1b2c3.jsonl")
    (project / CLAUDE_SESSION / "tool-results").mkdir(parents=True)
    (project / CLAUDE_SESSION / "tool-results" / "big.txt").write_text("spilled tool output")
    fill(DATA / "codex" / CODEX_ROLLOUT, home / ".codex" / "sessions" / "2026" / "08" / "10" / CODEX_ROLLOUT)
    chats = home / ".gemini" / "tmp" / "shop" / "chats"
    for f in (DATA / "gemini").iterdir():
        fill(f, chats / f.name)
    (home / ".gemini" / "tmp" / "shop" / ".project_root").write_text("/home/alice/src/shop\n")
    db_path = home / ".local" / "share" / "opencode" / "opencode.db"
    db_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(db_path)
    conn.executescript((DATA / "opencode" / "opencode.sql").read_text())
    conn.commit()
    conn.close()
    return home


def copy_real_fixture(home: Path) -> Path:
    dst = home / ".claude" / "projects" / "-home-dev-src-shop" / "afc9f6a0-f85f-4b43-a086-90d0c0b1f29b.jsonl"
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(REAL_FIXTURE, dst)
    return dst
