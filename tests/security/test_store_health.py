"""A store that is locked, corrupt or unreadable, and a data folder that is a file: every command
says so with a fix and a non-zero exit, never a traceback; ``kenning doctor`` names the state."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest


def kenning(home: Path | None, *args: str, env_home: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "KENNING_HOME"}
    if env_home is not None:
        env["KENNING_HOME"] = env_home
    cmd = [sys.executable, "-m", "kenning.cli", *(["--home", str(home)] if home else []), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120, check=False)


def test_kenning_home_pointing_at_a_file_names_the_variable(tmp_path: Path) -> None:
    afile = tmp_path / "notes.txt"
    afile.write_text("not a folder\n")
    for value in (str(afile), str(afile / "kenning")):
        done = kenning(None, "status", env_home=value)
        assert done.returncode == 1 and "Traceback" not in done.stderr
        assert "KENNING_HOME" in done.stderr and "is a file, not a folder" in done.stderr and "fix:" in done.stderr
    done = kenning(afile, "status")
    assert done.returncode == 1 and "--home" in done.stderr and "Traceback" not in done.stderr


def test_a_corrupt_store_gets_a_message_and_doctor_says_corrupt(tmp_path: Path) -> None:
    home = tmp_path / "data"
    home.mkdir()
    (home / "kenning.db").write_bytes(b"SQLite format 3\x00" + os.urandom(8192))
    done = kenning(home, "status")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "cannot be opened" in done.stderr and "kenning doctor" in done.stderr
    doctor = kenning(home, "doctor", "--user-home", str(tmp_path / "user"), "--json")
    assert doctor.returncode == 0, doctor.stderr
    store = json.loads(doctor.stdout)[0]
    assert store["tool"] == "store" and store["state"] == "corrupt" and store["fix"]


def test_a_locked_store_still_answers_status_and_doctor_says_locked(tmp_path: Path) -> None:
    home = tmp_path / "data"
    assert kenning(home, "remember", "Releases are tagged from main only").returncode == 0
    holder = sqlite3.connect(home / "kenning.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # a sync or a migration writing
    try:
        status = kenning(home, "status")
        doctor = kenning(home, "doctor", "--user-home", str(tmp_path / "user"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert status.returncode == 0 and "active memories: 1" in status.stdout, status.stderr
    first = doctor.stdout.splitlines()[0]
    assert first.startswith("Store: locked") and "fix:" in doctor.stdout
    after = kenning(home, "doctor", "--user-home", str(tmp_path / "user")).stdout.splitlines()[0]
    assert after.startswith("Store: ok (1 memories)")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_store_is_reported(tmp_path: Path) -> None:
    home = tmp_path / "data"
    assert kenning(home, "status").returncode == 0
    os.chmod(home / "kenning.db", 0)
    try:
        doctor = kenning(home, "doctor", "--user-home", str(tmp_path / "user"))
        status = kenning(home, "status")
    finally:
        os.chmod(home / "kenning.db", 0o600)
    assert doctor.stdout.startswith("Store: unreadable")
    assert status.returncode == 1 and "Traceback" not in status.stderr
