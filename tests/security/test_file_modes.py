"""Files only the user can read: the data folder 0700, the database, its WAL and shared memory,
the logs, markers, the trigger file and install backups 0600 — made so when they are created,
and tightened when an older version left them looser. A backup keeps at least the original's
restrictions; a symlinked agent config is edited through its link."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from kenning.install.files import Ledger, backup, keep_original, write_atomic
from kenning.store.sqlite.schema import open_database

pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_everything_a_session_leaves_in_the_data_folder_is_private(tmp_path: Path) -> None:
    home = tmp_path / "kenning-home"
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    env = {**os.environ, "KENNING_HOME": str(home), "KENNING_HOLDOUT": "off", "KENNING_BACKGROUND": "off"}
    base = {"session_id": "s-modes", "transcript_path": "", "cwd": str(repo)}
    for event, extra in (("SessionStart", {"source": "startup"}), ("UserPromptSubmit", {"prompt": "fix the deploy script"}),
                         ("PreToolUse", {"tool_name": "Edit", "tool_input": {"file_path": str(repo / "a.py")}}),
                         ("Stop", {"stop_hook_active": False, "last_assistant_message": "Done."})):  # fmt: skip
        subprocess.run([sys.executable, "-m", "kenning.hooks.main", "claude-code", event],
                       input=json.dumps({**base, "hook_event_name": event, **extra}).encode(), env=env,
                       capture_output=True, timeout=60, check=True)  # fmt: skip
    subprocess.run([sys.executable, "-m", "kenning.cli", "remember", "Deploys go through the release script",
                    "--cwd", str(repo)], env=env, capture_output=True, timeout=60, check=True)  # fmt: skip
    files = [p for p in home.rglob("*") if p.is_file()]
    assert {"kenning.db", "hook-runs.log"} <= {p.name for p in files}
    assert mode(home) == 0o700
    for folder in (p for p in home.rglob("*") if p.is_dir()):
        assert mode(folder) == 0o700, folder
    for file in files:
        assert mode(file) & 0o077 == 0, (file, oct(mode(file)))


def test_an_older_stores_loose_modes_are_tightened_on_open(tmp_path: Path) -> None:
    home = tmp_path / "old"
    open_database(home / "kenning.db").close()
    os.chmod(home, 0o755)
    for name in ("kenning.db", "kenning.db-wal", "kenning.db-shm"):
        if (home / name).exists():
            os.chmod(home / name, 0o644)
    db = open_database(home / "kenning.db")
    try:
        db.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')")
        assert mode(home) == 0o700
        for name in ("kenning.db", "kenning.db-wal", "kenning.db-shm"):
            if (home / name).exists():
                assert mode(home / name) == 0o600, name
    finally:
        db.close()


def test_backups_are_private_even_of_a_readable_config(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    state = tmp_path / "kenning-home"
    config = tmp_path / ".claude.json"
    config.write_text('{"primaryApiKey": "not-a-real-key"}\n')
    os.chmod(config, 0o600)
    copy = backup(state, config, datetime(2026, 3, 2, tzinfo=UTC))
    assert copy is not None and mode(copy) == 0o600 and mode(copy.parent) == 0o700
    os.chmod(config, 0o644)
    original = Path(keep_original(state, config, config.read_bytes()))
    assert mode(original) == 0o600
    ledger = Ledger(state)
    ledger.save()
    assert mode(ledger.path) == 0o600


def test_a_symlinked_config_is_edited_through_its_link(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text("{}\n")
    os.chmod(dotfiles, 0o640)
    link = tmp_path / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(dotfiles)
    write_atomic(link, b'{"hooks": {}}\n')
    assert link.is_symlink() and link.resolve() == dotfiles.resolve()
    assert dotfiles.read_text() == '{"hooks": {}}\n' and mode(dotfiles) == 0o640
