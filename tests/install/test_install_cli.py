"""``kenning install / uninstall / doctor`` as real subprocesses on a temp home."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from install_support import read_json, realistic_home, write_json

KENNING = Path(sys.executable).parent / "kenning"


def run(home: Path, data: Path, *args: str, path_env: str = "/usr/bin:/bin") -> subprocess.CompletedProcess[str]:
    env = {"PATH": path_env, "HOME": str(home), "KENNING_HOME": str(data), "LANG": "C.UTF-8"}
    return subprocess.run([str(KENNING), *args], env=env, capture_output=True, text=True, timeout=120)


def test_install_doctor_uninstall_round_trip(tmp_path: Path) -> None:
    home, data = tmp_path / "home", tmp_path / "data"
    original = realistic_home(home)
    done = run(home, data, "install", "--user-home", str(home))  # every tool detected by its config folder
    assert done.returncode == 0, done.stderr
    for label in ("Claude Code", "Codex", "Gemini CLI", "Cursor", "OpenCode"):
        assert f"{label}:" in done.stdout
    claude: Any = read_json(home / ".claude.json")
    assert claude["mcpServers"]["kenning"]["command"] == str(KENNING)  # the running executable, absolute
    ledger = json.loads((data / "installed.json").read_text())
    assert set(ledger["tools"]) == {"claude-code", "codex", "gemini-cli", "cursor", "opencode"}

    doctor = run(home, data, "doctor", "--user-home", str(home), "--json")
    assert doctor.returncode == 0, doctor.stderr
    report = json.loads(doctor.stdout)
    assert report[0]["tool"] == "store" and report[0]["state"] == "missing"  # doctor looks at the store first
    checks = {c["tool"]: c for c in report[1:]}
    assert all(c["registered"] and c["ours"] and c["runs"] for c in checks.values()), checks
    # The hook spec (kenning.install.hooks_spec) is written for the tools that have hooks.
    assert all(checks[t]["hooks"] > 0 for t in ("claude-code", "codex", "gemini-cli")), checks
    assert checks["cursor"]["hooks"] == 0
    gemini: Any = read_json(home / ".gemini" / "settings.json")
    assert all(h["timeout"] >= 1000 for gs in gemini["hooks"].values() for g in gs for h in g["hooks"])
    text = run(home, data, "doctor", "--user-home", str(home)).stdout.splitlines()
    assert text[0].startswith("Store: missing")
    assert len(text) == 6 and all("registered, command runs" in line for line in text[1:])

    gone = run(home, data, "uninstall", "--user-home", str(home))
    assert gone.returncode == 0, gone.stderr
    assert {p: p.read_bytes() for p in original} == original
    assert json.loads((data / "installed.json").read_text())["tools"] == {}


def test_doctor_reports_a_command_that_does_not_run(tmp_path: Path) -> None:
    home, data = tmp_path / "home", tmp_path / "data"
    write_json(home / ".cursor" / "mcp.json", {"mcpServers": {"kenning": {"command": str(tmp_path / "gone" / "kenning"), "args": ["mcp"]}}})
    doctor = run(home, data, "doctor", "--user-home", str(home), "--json")
    cursor = next(c for c in json.loads(doctor.stdout) if c["tool"] == "cursor")
    assert cursor["registered"] and not cursor["ours"] and cursor["runs"] is False
    line = next(x for x in run(home, data, "doctor", "--user-home", str(home)).stdout.splitlines() if x.startswith("Cursor"))
    assert "written by hand" in line and "FAILS" in line


def test_install_refuses_a_hand_written_entry_with_a_fix(tmp_path: Path) -> None:
    home, data = tmp_path / "home", tmp_path / "data"
    write_json(home / ".claude.json", {"mcpServers": {"kenning": {"command": "/home/alice/kenning-dev", "args": ["mcp"]}}})
    before = (home / ".claude.json").read_bytes()
    done = run(home, data, "install", "claude", "--user-home", str(home))
    assert done.returncode == 1
    assert "did not write" in done.stderr and "--force" in done.stderr
    assert (home / ".claude.json").read_bytes() == before
    forced = run(home, data, "install", "claude", "--user-home", str(home), "--force")
    assert forced.returncode == 0, forced.stderr


def test_unknown_tool_is_an_error(tmp_path: Path) -> None:
    done = run(tmp_path / "home", tmp_path / "data", "install", "vscode", "--user-home", str(tmp_path / "home"))
    assert done.returncode == 1 and "unknown agent tool" in done.stderr and "claude" in done.stderr


def test_nothing_detected_changes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    done = run(home, tmp_path / "data", "install", "--user-home", str(home), path_env="/nonexistent")
    assert done.returncode == 0 and "no agent tool found" in done.stdout
    assert list(home.iterdir()) == []


def test_install_says_what_changed_and_where_the_backups_went(tmp_path: Path) -> None:
    home, data = tmp_path / "home", tmp_path / "data"
    write_json(home / ".claude.json", {"theme": "dark"})  # an existing file: rewritten, so backed up
    first = run(home, data, "install", "claude", "--user-home", str(home))
    assert first.returncode == 0, first.stderr
    assert f"MCP server added: {home / '.claude.json'}" in first.stdout
    assert "hooks added:" in first.stdout and f"created {home / '.claude' / 'settings.json'}" in first.stdout
    backup_line = next(x for x in first.stdout.splitlines() if "backed up" in x)
    copy = Path(backup_line.split(" to ", 1)[1])
    assert copy.is_file() and str(data / "install-backups") in str(copy)
    assert json.loads(copy.read_text()) == {"theme": "dark"}

    again = run(home, data, "install", "claude", "--user-home", str(home))
    assert again.returncode == 0, again.stderr
    assert "MCP server unchanged:" in again.stdout and "hooks unchanged:" in again.stdout
    assert "backed up" not in again.stdout and "created" not in again.stdout
    assert "nothing changed" in again.stdout
    report = json.loads(run(home, data, "install", "claude", "--user-home", str(home), "--json").stdout)
    assert report == [{"tool": "claude-code", "lines": report[0]["lines"], "changed": [], "backups": {}}]

    gone = json.loads(run(home, data, "uninstall", "--user-home", str(home), "--json").stdout)
    assert set(gone[0]["changed"]) == {str(home / ".claude.json"), str(home / ".claude" / "settings.json")}
    assert all(Path(p).is_file() for p in gone[0]["backups"].values())
