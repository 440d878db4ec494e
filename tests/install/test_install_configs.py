"""install / uninstall on temp homes holding the user's own configs (Installer API)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from install_support import SPEC, read_json, realistic_home, write_json

from kenning.errors import Refused
from kenning.install.agents import AGENTS, agent, chosen
from kenning.install.hooks import codex_hook_hash
from kenning.install.installer import Installer

EXE = "/opt/kenning/bin/kenning"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "kenning-data"


def installer(home: Path, state: Path, minutes: int = 0) -> Installer:
    return Installer(home, state, T0 + timedelta(minutes=minutes))


def install_all(home: Path, state: Path, minutes: int = 0) -> None:
    inst = installer(home, state, minutes)
    for a in AGENTS:
        inst.install(a, EXE, {}, hooks=SPEC.get(a.name, {}))


def test_round_trip_restores_the_original_bytes(home: Path, state: Path) -> None:
    original = realistic_home(home)
    install_all(home, state)
    assert all(p.read_bytes() != b for p, b in original.items())  # every file got kenning's part
    inst = installer(home, state, 1)
    for a in AGENTS:
        inst.uninstall(a)
    assert {p: p.read_bytes() for p in original} == original
    assert not (home / ".codex" / "hooks.json.bak").exists()


def test_round_trip_on_an_empty_home_leaves_no_files(home: Path, state: Path) -> None:
    home.mkdir()
    install_all(home, state)
    assert (home / ".cursor" / "mcp.json").exists()
    inst = installer(home, state, 1)
    for a in AGENTS:
        inst.uninstall(a)
    assert [p for p in home.rglob("*") if p.is_file()] == []


def test_entries_land_beside_the_users_own(home: Path, state: Path) -> None:
    realistic_home(home)
    install_all(home, state)
    claude = read_json(home / ".claude.json")
    servers: Any = claude["mcpServers"]
    assert set(servers) == {"github", "kenning"}
    assert servers["kenning"] == {"type": "stdio", "command": EXE, "args": ["mcp", "--tools", "core"]}
    assert claude["numStartups"] == 41 and list(claude)[:2] == ["numStartups", "installMethod"]

    settings: Any = read_json(home / ".claude" / "settings.json")
    assert settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "~/.claude/hooks/guard.sh"
    assert settings["hooks"]["PreToolUse"][1]["hooks"][0]["command"] == f"{EXE} hook claude PreToolUse"
    assert settings["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"

    config = (home / ".codex" / "config.toml").read_text()
    assert config.startswith("# Alice's Codex config\n") and "# ask before running commands" in config
    doc = tomlkit.parse(config).unwrap()
    assert doc["mcp_servers"]["kenning"] == {
        "command": EXE, "args": ["mcp", "--tools", "core"], "startup_timeout_sec": 20,
        "env_vars": ["KENNING_HOME", "KENNING_WORKSPACE", "KENNING_NOW"]
    }
    assert doc["mcp_servers"]["github"]["env"] == {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_placeholder"}

    gemini_text = (home / ".gemini" / "settings.json").read_text()
    assert '\n    "theme"' in gemini_text  # the user's 4-space indent is kept
    gemini: Any = json.loads(gemini_text)
    assert gemini["mcpServers"]["kenning"] == {"command": EXE, "args": ["mcp", "--tools", "core"]}
    assert gemini["hooks"]["AfterAgent"][0]["hooks"][0]["timeout"] == 3000
    assert gemini["hooks"]["AfterAgent"][1]["hooks"][0]["timeout"] == 10_000  # seconds became ms

    cursor: Any = read_json(home / ".cursor" / "mcp.json")
    assert set(cursor["mcpServers"]) == {"linear", "kenning"}
    opencode: Any = read_json(home / ".config" / "opencode" / "opencode.json")
    assert opencode["mcp"]["kenning"] == {"type": "local", "command": [EXE, "mcp", "--tools", "core", "--point-at-recall"], "enabled": True}
    assert opencode["$schema"] == "https://opencode.ai/config.json"


def test_codex_hooks_are_written_and_trusted(home: Path, state: Path) -> None:
    realistic_home(home)
    installer(home, state).install(agent("codex"), EXE, {}, hooks=SPEC["codex"])
    hooks_file = home / ".codex" / "hooks.json"
    hooks: Any = read_json(hooks_file)
    start = hooks["hooks"]["SessionStart"]
    assert start[0]["hooks"][0]["command"] == "/home/alice/bin/notify" and len(start) == 2
    trust = tomlkit.parse((home / ".codex" / "config.toml").read_text()).unwrap()["hooks"]["state"]
    assert trust == {
        f"{hooks_file}:session_start:1:0": {"trusted_hash": codex_hook_hash("SessionStart", start[1], start[1]["hooks"][0])},
        f"{hooks_file}:stop:0:0": {"trusted_hash": codex_hook_hash("Stop", hooks["hooks"]["Stop"][0], hooks["hooks"]["Stop"][0]["hooks"][0])},
    }


def test_uninstall_keeps_the_users_later_edits(home: Path, state: Path) -> None:
    realistic_home(home)
    install_all(home, state)
    claude: Any = read_json(home / ".claude.json")
    claude["numStartups"] = 42
    claude["mcpServers"]["sentry"] = {"type": "http", "url": "https://mcp.sentry.dev/mcp"}
    write_json(home / ".claude.json", claude)
    settings: Any = read_json(home / ".claude" / "settings.json")
    settings["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": "afplay done.aiff"}]})
    write_json(home / ".claude" / "settings.json", settings)
    config = home / ".codex" / "config.toml"
    config.write_text(config.read_text() + '\n[mcp_servers.notion]\ncommand = "notion-mcp"\n')

    inst = installer(home, state, 5)
    for a in AGENTS:
        inst.uninstall(a)
    claude_after: Any = read_json(home / ".claude.json")
    assert claude_after["numStartups"] == 42 and set(claude_after["mcpServers"]) == {"github", "sentry"}
    settings_after: Any = read_json(home / ".claude" / "settings.json")
    assert settings_after["hooks"] == {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/.claude/hooks/guard.sh", "timeout": 5}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "afplay done.aiff"}]}],
    }
    codex = tomlkit.parse(config.read_text()).unwrap()
    assert set(codex["mcp_servers"]) == {"github", "notion"} and "hooks" not in codex
    assert config.read_text().startswith("# Alice's Codex config\n")


def test_a_hand_written_kenning_entry_is_never_overwritten(home: Path, state: Path) -> None:
    realistic_home(home)
    cursor = home / ".cursor" / "mcp.json"
    mine = {"mcpServers": {"kenning": {"command": "/home/alice/dev/kenning/run.sh", "args": ["mcp"]}}}
    write_json(cursor, mine)
    before = cursor.read_bytes()
    with pytest.raises(Refused, match="did not write") as refused:
        installer(home, state).install(agent("cursor"), EXE, {})
    assert "--force" in refused.value.fix
    assert cursor.read_bytes() == before
    installer(home, state, 1).install(agent("cursor"), EXE, {}, force=True)
    assert read_json(cursor)["mcpServers"] == {"kenning": {"command": EXE, "args": ["mcp", "--tools", "core", "--point-at-recall"]}}


def test_an_entry_edited_after_install_is_left_on_uninstall(home: Path, state: Path) -> None:
    realistic_home(home)
    installer(home, state).install(agent("gemini"), EXE, {}, hooks={})
    path = home / ".gemini" / "settings.json"
    data: Any = read_json(path)
    data["mcpServers"]["kenning"]["trust"] = True
    write_json(path, data, indent=4)
    report = installer(home, state, 1).uninstall(agent("gemini"))
    assert any("edited by hand" in line for line in report.lines)
    assert read_json(path)["mcpServers"]["kenning"]["trust"] is True  # type: ignore[index]


def test_reinstall_changes_nothing_and_moves_the_command(home: Path, state: Path) -> None:
    original = realistic_home(home)
    install_all(home, state)
    first = {p: p.read_bytes() for p in original}
    install_all(home, state, 1)
    assert {p: p.read_bytes() for p in original} == first
    installer(home, state, 2).install(agent("claude"), "/usr/local/bin/kenning", {}, hooks=SPEC["claude-code"])
    claude: Any = read_json(home / ".claude.json")
    assert claude["mcpServers"]["kenning"]["command"] == "/usr/local/bin/kenning"
    settings: Any = read_json(home / ".claude" / "settings.json")
    commands = [h["command"] for gs in settings["hooks"].values() for g in gs for h in g["hooks"]]
    assert not any(c.startswith(EXE) for c in commands) and len(commands) == 4
    installer(home, state, 3).uninstall(agent("claude"))
    assert (home / ".claude.json").read_bytes() == original[home / ".claude.json"]
    assert (home / ".claude" / "settings.json").read_bytes() == original[home / ".claude" / "settings.json"]


def test_backups_keep_the_five_newest(home: Path, state: Path) -> None:
    realistic_home(home)
    path = home / ".cursor" / "mcp.json"
    seen = []
    for i in range(8):
        seen.append(path.read_bytes())
        inst = installer(home, state, 2 * i)
        inst.install(agent("cursor"), EXE if i % 2 == 0 else f"{EXE}-{i}", {})
    backups = sorted((state / "install-backups").glob("mcp.json-*/*.bak"))
    assert len(backups) == 5
    assert [b.read_bytes() for b in backups] == seen[-5:]


def test_jsonc_with_comments_is_refused_untouched(home: Path, state: Path) -> None:
    folder = home / ".config" / "opencode"
    folder.mkdir(parents=True)
    path = folder / "opencode.jsonc"
    path.write_text('{\n  // my servers\n  "mcp": {}\n}\n')
    with pytest.raises(Refused, match="comments"):
        installer(home, state).install(agent("opencode"), EXE, {})
    assert path.read_text() == '{\n  // my servers\n  "mcp": {}\n}\n'


def test_detection_by_config_folder_or_binary(home: Path, tmp_path: Path) -> None:
    (home / ".codex").mkdir(parents=True)
    (home / ".config" / "opencode").mkdir(parents=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gemini = bin_dir / "gemini"
    gemini.write_text("#!/bin/sh\n")
    gemini.chmod(0o755)
    assert [a.name for a in chosen((), home, str(bin_dir))] == ["codex", "gemini-cli", "opencode"]
    assert [a.name for a in chosen(("claude", "cursor"), home, "")] == ["claude-code", "cursor"]
