"""Running `kenning` in a test, and a git folder to run it in.

:func:`run` calls the CLI in-process through click's CliRunner (the same argument parsing,
command functions and store as the executable, without a Python start-up per call);
:func:`run_process` starts the real command, for the few smoke tests that need a process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from kenning.cli.main import cli

KENNING = [sys.executable, "-m", "kenning.cli"]


@dataclass(frozen=True)
class Ran:
    """What a command did, shaped like subprocess.CompletedProcess."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str


def run(args: list[str], cwd: Path, home: Path, ok: bool = True, user_home: Path | None = None) -> Ran:
    """`kenning ARGS` in ``cwd`` with data folder ``home``; asserts success unless ``ok=False``."""
    env = {"KENNING_HOME": str(home)}
    if user_home is not None:
        env["HOME"] = str(user_home)
    before = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(cli, args, env=env, prog_name="kenning")
    finally:
        os.chdir(before)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    done = Ran(args, result.exit_code, result.stdout, result.stderr)
    if ok:
        assert done.returncode == 0, done.stderr
    return done


def run_process(args: list[str], cwd: Path, home: Path, ok: bool = True, env: dict[str, str] | None = None
                ) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """The real `kenning` process (smoke tests: entry point, exit codes, environment)."""
    full = {**os.environ, "KENNING_HOME": str(home), **(env or {})}
    proc = subprocess.run([*KENNING, *args], cwd=cwd, env=full, capture_output=True, text=True, timeout=60)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


def make_shop_repo(parent: Path) -> Path:
    """A git repository whose remote makes its project key github.com/acme/shop."""
    path = parent / "shop"
    path.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=path, check=True)
    subprocess.run(["git", "remote", "add", "origin", "git@github.com:Acme/Shop.git"], cwd=path, check=True)
    return path
