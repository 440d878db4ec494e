"""The agents' own memory files: one file is one memory citing it; changed replaces, deleted retires."""

from __future__ import annotations

import json
from pathlib import Path

from kenning.capture.memory_files import split_memory_file
from kenning.capture.sync import sync_all
from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.store.sqlite.db import Database


def _memories(db: Database) -> list[dict[str, str]]:
    return [dict(r) for r in db.query("SELECT ref, text, reason, status, scope, source_ref FROM memories ORDER BY id")]


def _home(tmp_path: Path) -> tuple[Path, Path, Path]:
    home = tmp_path / "home"
    project = home / ".claude" / "projects" / "-home-alice-src-shop"
    (project / "memory").mkdir(parents=True)
    rec = {"type": "user", "uuid": "u1", "sessionId": "s1", "cwd": str(tmp_path), "timestamp": "2026-08-10T10:00:00Z",
           "message": {"role": "user", "content": "hello"}}
    (project / "s1.jsonl").write_text(json.dumps(rec) + "\n")
    claude_md = project / "memory" / "testing.md"
    claude_md.write_text("---\nname: testing\ndescription: Tests use a real SQLite file, never mocks, because mocks hid "
                         "a migration bug\ntype: feedback\n---\n\nWhy: a mocked store passed while the real one failed.\n")
    (project / "memory" / "MEMORY.md").write_text("- [testing](testing.md)\n")
    codex_dir = home / ".codex" / "memories"
    codex_dir.mkdir(parents=True)
    codex_md = codex_dir / "style.md"
    codex_md.write_text("# Prefer pathlib over os.path in new code because it reads better\n\nApplies to all repos.\n")
    return home, claude_md, codex_md


def test_import_change_and_delete(db: Database, settings: Settings, tmp_path: Path) -> None:
    home, claude_md, codex_md = _home(tmp_path)
    first = sync_all(db, settings, home, FixedClock())
    assert first.memory_files["added"] == 2, first
    mems = _memories(db)
    assert {m["source_ref"] for m in mems} == {str(claude_md), str(codex_md)}
    assert not any("MEMORY.md" in m["source_ref"] for m in mems)
    codex_mem = next(m for m in mems if m["source_ref"] == str(codex_md))
    assert codex_mem["scope"] == "global" and codex_mem["text"].startswith("Prefer pathlib")
    assert "Tests use a real SQLite file" in next(m for m in mems if m["source_ref"] == str(claude_md))["text"]
    again = sync_all(db, settings, home, FixedClock())
    assert again.memory_files["unchanged"] == 2 and len(_memories(db)) == 2
    codex_md.write_text("# Prefer pathlib over os.path everywhere because mixed styles confuse readers\n")
    changed = sync_all(db, settings, home, FixedClock())
    assert changed.memory_files["replaced"] == 1
    active = [m for m in _memories(db) if m["status"] == "active"]
    assert any("everywhere" in m["text"] for m in active)
    assert not any("reads better" in m["text"] for m in active)
    claude_md.unlink()
    gone = sync_all(db, settings, home, FixedClock())
    assert gone.memory_files["retired"] == 1
    assert not any(m["source_ref"] == str(claude_md) and m["status"] == "active" for m in _memories(db))
    assert claude_md.parent.joinpath("MEMORY.md").exists()  # read-only: nothing of the tool's is touched


def test_split_memory_file() -> None:
    assert split_memory_file("---\ndescription: \"Use uv\"\n---\nbody") == ("Use uv", "body")
    assert split_memory_file("\n# Title line\n\nmore") == ("Title line", "# Title line\n\nmore")
