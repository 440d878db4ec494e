"""A few runs of the real `kenning` process (the rest of the CLI tests run in-process): the
entry point starts, exit codes and streams are a process's, and the environment reaches it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cli_runner import make_shop_repo, run_process

EXE = str(Path(sys.executable).parent / "kenning")


def test_the_executable_round_trips_a_memory(tmp_path: Path, kenning_home: Path) -> None:
    repo = make_shop_repo(tmp_path)
    stored = json.loads(run_process(["remember", "We pin TZ=UTC in tests because CI has no time zone", "--json"],
                                    repo, kenning_home).stdout)  # fmt: skip
    ref = stored["memory"]["ref"]
    found = json.loads(run_process(["recall", "why do tests pin the time zone", "--json"], repo, kenning_home).stdout)
    assert [r["ref"] for r in found["results"]] == [ref]
    assert (kenning_home / "kenning.db").is_file()


def test_errors_exit_1_on_stderr_and_usage_errors_exit_2(tmp_path: Path, kenning_home: Path) -> None:
    repo = make_shop_repo(tmp_path)
    refused = run_process(["get", "nonsense"], repo, kenning_home, ok=False)
    assert refused.returncode == 1 and refused.stdout == "" and "fix:" in refused.stderr
    usage = run_process(["memory", "no-such-verb"], repo, kenning_home, ok=False)
    assert usage.returncode == 2 and "No such command" in usage.stderr


def test_the_old_home_option_of_install_is_refused_with_the_new_names(tmp_path: Path, kenning_home: Path) -> None:
    done = run_process(["install", "--home", str(tmp_path)], tmp_path, kenning_home, ok=False)
    assert done.returncode == 2 and "--user-home" in done.stderr and "data folder" in done.stderr


def test_version_and_help_from_the_installed_script(tmp_path: Path, kenning_home: Path) -> None:
    import subprocess

    version = subprocess.run([EXE, "--version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.startswith("kenning, version ")
    helped = subprocess.run([EXE, "--help"], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "\nMemory:\n" in helped.stdout and "\nSetup:\n" in helped.stdout
