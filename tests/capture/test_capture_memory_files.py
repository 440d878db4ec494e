"""The agents' own memory files: one file is one memory citing it; changed replaces, deleted retires."""

from __future__ import annotations

import json
from pathlib import Path

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.capture_job import sync_all
from kenning.core.memory_files import split_memory_file
from kenning.core.service import Core
from kenning.store.sqlite.db import Database
from kenning.store.sqlite.stores import SqliteStores


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


def test_import_change_and_delete(core: Core, db: Database, settings: Settings, tmp_path: Path) -> None:
    home, claude_md, codex_md = _home(tmp_path)
    first = sync_all(core, home)
    assert first.memory_files["added"] == 2, first
    mems = _memories(db)
    assert {m["source_ref"] for m in mems} == {str(claude_md), str(codex_md)}
    assert not any("MEMORY.md" in m["source_ref"] for m in mems)
    codex_mem = next(m for m in mems if m["source_ref"] == str(codex_md))
    assert codex_mem["scope"] == "global" and codex_mem["text"].startswith("Prefer pathlib")
    assert "Tests use a real SQLite file" in next(m for m in mems if m["source_ref"] == str(claude_md))["text"]
    again = sync_all(core, home)
    assert again.memory_files["unchanged"] == 2 and len(_memories(db)) == 2
    codex_md.write_text("# Prefer pathlib over os.path everywhere because mixed styles confuse readers\n")
    changed = sync_all(core, home)
    assert changed.memory_files["replaced"] == 1
    active = [m for m in _memories(db) if m["status"] == "active"]
    assert any("everywhere" in m["text"] for m in active)
    assert not any("reads better" in m["text"] for m in active)
    claude_md.unlink()
    gone = sync_all(core, home)
    assert gone.memory_files["retired"] == 1
    assert not any(m["source_ref"] == str(claude_md) and m["status"] == "active" for m in _memories(db))
    assert claude_md.parent.joinpath("MEMORY.md").exists()  # read-only: nothing of the tool's is touched


def test_split_memory_file() -> None:
    assert split_memory_file("---\ndescription: \"Use uv\"\n---\nbody") == ("Use uv", "body")
    assert split_memory_file("\n# Title line\n\nmore") == ("Title line", "# Title line\n\nmore")


def _git_project(root: Path) -> Path:
    import subprocess

    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run(["git", "remote", "add", "origin", "git@github.com:acme/shop.git"], cwd=root, check=True)
    return root


def _session_in(home: Path, cwd: Path) -> None:
    """A captured Claude session that ran in ``cwd`` (so kenning knows the project)."""
    folder = home / ".claude" / "projects" / "-shop"
    folder.mkdir(parents=True, exist_ok=True)
    rec = {"type": "user", "uuid": "u1", "sessionId": "s9", "cwd": str(cwd), "timestamp": "2026-08-10T10:00:00Z",
           "message": {"role": "user", "content": "hello"}}  # fmt: skip
    (folder / "s9.jsonl").write_text(json.dumps(rec) + "\n")


CLAUDE_MD = """# Shop

Read @AGENTS.md first.

## Testing
- Run `make test` before every commit.
- Tests use a real SQLite file,
  never mocks of our own parts.

## Style
- Prefer pathlib over os.path in new code.

```sh
- this is code, not a rule
```

<!-- kenning:begin -->
kenning · Project shop · branch main
- Remember m:7f3a2b1c when deploying the worker
<!-- kenning:end -->
"""
AGENTS_MD = """# Agents

- Prefer pathlib over os.path in new code.
- Never edit files under generated/ by hand.
"""


def _rules(db: Database) -> dict[str, dict[str, str]]:
    rows = db.query("SELECT ref, text, status, scope, source_ref, origin, origin_tool, tags FROM memories"
                    " WHERE origin_tool LIKE '%-memory-file' ORDER BY id")  # fmt: skip
    return {r["text"]: dict(r) for r in rows}


def test_claude_md_and_agents_md_become_one_memory_per_rule(core: Core, db: Database, settings: Settings, tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = _git_project(tmp_path / "src" / "shop")
    _session_in(home, project)
    (project / "CLAUDE.md").write_text(CLAUDE_MD)
    (project / "AGENTS.md").write_text(AGENTS_MD)
    sync_all(core, home)
    rules = _rules(db)
    assert set(rules) == {"Run `make test` before every commit.", "Tests use a real SQLite file, never mocks of our own parts.",
                          "Prefer pathlib over os.path in new code.", "Never edit files under generated/ by hand."}  # fmt: skip
    sqlite_rule = rules["Tests use a real SQLite file, never mocks of our own parts."]
    assert sqlite_rule["source_ref"] == "CLAUDE.md:7-8" and sqlite_rule["scope"] == "github.com/acme/shop"
    assert sqlite_rule["origin"] == "automation" and sqlite_rule["origin_tool"] == "claude-code-memory-file"
    assert "testing" in sqlite_rule["tags"]
    assert rules["Never edit files under generated/ by hand."]["origin_tool"] == "codex-memory-file"
    # A rule in both files is one memory; kenning's own block and code are not rules.
    assert not any("m:7f3a2b1c" in t or "kenning ·" in t or "this is code" in t for t in rules)

    again = sync_all(core, home)
    assert again.memory_files["added"] == 0 and _rules(db) == rules

    (project / "CLAUDE.md").write_text(CLAUDE_MD.replace("- Run `make test` before every commit.\n",
                                                         "- Run `make lint` before pushing a branch.\n"))  # fmt: skip
    (project / "AGENTS.md").write_text(AGENTS_MD.replace("- Prefer pathlib over os.path in new code.\n", ""))
    changed = sync_all(core, home)
    assert changed.memory_files["added"] == 1 and changed.memory_files["retired"] == 1, changed.memory_files
    after = _rules(db)
    assert after["Run `make test` before every commit."]["status"] == "retired"
    assert after["Run `make lint` before pushing a branch."]["status"] == "active"
    # Still in CLAUDE.md though gone from AGENTS.md: kept, and the same memory.
    assert after["Prefer pathlib over os.path in new code."]["status"] == "active"
    assert after["Prefer pathlib over os.path in new code."]["ref"] == rules["Prefer pathlib over os.path in new code."]["ref"]


def test_gemini_added_memories_are_the_bullets_not_the_headline(core: Core, db: Database, settings: Settings, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "GEMINI.md").write_text(
        "Be brief in replies to me.\n\n## Gemini Added Memories\n"
        "- The user's staging cluster is called blue-lagoon\n- The user prefers tabs over spaces in Go files\n")
    sync_all(core, home)
    texts = {m["text"]: m for m in _memories(db)}
    assert "Gemini Added Memories" not in texts
    assert {"The user's staging cluster is called blue-lagoon", "The user prefers tabs over spaces in Go files",
            "Be brief in replies to me."} == set(texts)  # fmt: skip
    assert {m["scope"] for m in texts.values()} == {"global"}


def test_the_memory_files_writer_policy_decides_whether_imports_are_kept(core: Core, db: Database, settings: Settings,
                                                                          tmp_path: Path) -> None:  # fmt: skip
    from kenning.core.service import Core

    home, claude_md, codex_md = _home(tmp_path)
    core = Core(SqliteStores(db), FixedClock(), settings)
    core.set_policy(core.place(None), "workspace", "writers", "agents,automations,apps")
    off = sync_all(core, home)
    assert off.memory_files["refused"] == 2 and off.memory_files["added"] == 0 and _memories(db) == []
    core.set_policy(core.place(None), "workspace", "writers", "agents,automations,apps,memory-files")
    on = sync_all(core, home)
    assert on.memory_files["added"] == 2 and len(_memories(db)) == 2
    # Imports are the memory-files writer, not automations: turning automations off keeps them.
    core.set_policy(core.place(None), "workspace", "writers", "agents,memory-files")
    codex_md.write_text("# Prefer pathlib over os.path everywhere because mixed styles confuse readers\n")
    assert sync_all(core, home).memory_files["replaced"] == 1


def test_a_forgotten_rule_is_not_imported_again(core: Core, db: Database, settings: Settings, tmp_path: Path) -> None:
    from kenning.core import forget
    from kenning.core.service import Core

    home = tmp_path / "home"
    project = _git_project(tmp_path / "src" / "shop")
    _session_in(home, project)
    (project / "AGENTS.md").write_text(AGENTS_MD)
    sync_all(core, home)
    rule = _rules(db)["Never edit files under generated/ by hand."]
    core = Core(SqliteStores(db), FixedClock(), settings)
    forget.apply(core, forget.plan_memories(core, [rule["ref"]]))
    (project / "AGENTS.md").write_text(AGENTS_MD + "- Keep the changelog in the same pull request.\n")
    again = sync_all(core, home)
    assert again.memory_files["added"] == 1, again.memory_files
    assert "Never edit files under generated/ by hand." not in _rules(db)
    # Even when its line moves (a new key for the same words), the tombstone keeps it out.
    (project / "AGENTS.md").write_text("# Moved\n\n" + AGENTS_MD)
    moved = sync_all(core, home)
    assert "Never edit files under generated/ by hand." not in _rules(db), moved.memory_files
