"""The git commands, run as the real `kenning` command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from gitrepo_helper import Repo


def kenning(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(sys.executable).parent / "kenning"), "--home", str(home), *args],
                          capture_output=True, text=True, check=False)  # fmt: skip


def test_refresh_outcomes_and_health(repo: Repo, tmp_path: Path) -> None:
    home = tmp_path / "home"
    repo.commit("init", a="1\n")
    repo.git("checkout", "-q", "-b", "feature/x")
    repo.write("a", "2\n")
    done = kenning(home, "work", "refresh", "--cwd", str(repo.root), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert len(data["written"]) == 1 and data["citations"][0]["checked"] == 0
    listed = kenning(home, "memory", "list", "--cwd", str(repo.root), "--json")
    assert "branch.proj.feature/x.state" in listed.stdout
    text = kenning(home, "work", "refresh", "--cwd", str(repo.root))
    assert "feature/x unchanged since the last reading" in text.stdout

    done = kenning(home, "work", "outcomes", "--cwd", str(repo.root), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["added"] == {}

    shown = kenning(home, "memory", "health", "--show")
    assert shown.returncode == 0 and "active memories looked at" in shown.stdout
    assert "never returned by recall: 1" in shown.stdout
    report = json.loads(kenning(home, "memory", "health", "--json").stdout)
    assert report["moves"] == [] and report["applied"] is False


def test_commands_in_a_folder_that_is_no_repository(tmp_path: Path) -> None:
    home, plain = tmp_path / "home", tmp_path / "plain"
    plain.mkdir()
    done = kenning(home, "work", "refresh", "--cwd", str(plain))
    assert done.returncode == 0 and "not a git repository" in done.stdout
    done = kenning(home, "work", "outcomes", "--cwd", str(plain))
    assert done.returncode == 0 and "not a git repository" in done.stdout
