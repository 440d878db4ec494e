"""kenning installs the way Python tools do: a built wheel into a fresh virtual environment,
and `pipx install .`; either gives a `kenning` whose `--help` and `run` work. The project
metadata declares its license, its extras and its entry points.

These install from the package registry (PyPI) like a user would, so they are slow; they run
in `make test` and in CI all the same.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def source_copy(dest: Path) -> Path:
    """The checkout's files (tracked, and new ones not ignored) in ``dest``: a build there
    leaves nothing in the working tree, and two builds never share a build folder."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, check=True).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        src = REPO / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


def user_env(tmp: Path, **extra: str) -> dict[str, str]:
    """A user with an empty home and data folder: nothing of this machine's agents or store."""
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL",
                                                          "PIP_FIND_LINKS", "PIP_CACHE_DIR", "XDG_CACHE_HOME")}  # fmt: skip
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    keep.setdefault("XDG_CACHE_HOME", str(Path.home() / ".cache"))  # the pip cache, not the fake home's
    return {**keep, "HOME": str(home), "KENNING_HOME": str(tmp / "data"), "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            **extra}  # fmt: skip


def check_kenning(exe: Path, env: dict[str, str]) -> None:
    helped = subprocess.run([str(exe), "--help"], env=env, capture_output=True, text=True, timeout=120)
    assert helped.returncode == 0, helped.stderr
    assert "\nMemory:\n" in helped.stdout and "\nSetup:\n" in helped.stdout
    ran = subprocess.run([str(exe), "run"], env=env, capture_output=True, text=True, timeout=300,
                         stdin=subprocess.DEVNULL)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert f"kenning data folder: {env['KENNING_HOME']}" in ran.stdout
    assert "A round trip in a throwaway store:" in ran.stdout and "recalled" in ran.stdout
    assert (Path(env["KENNING_HOME"]) / "kenning.db").is_file()


def test_a_built_wheel_installs_into_a_fresh_venv_and_runs(tmp_path: Path) -> None:
    src = source_copy(tmp_path / "src")
    env = user_env(tmp_path)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"),
                            str(src)], env=env, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("kenning-*.whl")
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True, timeout=300)
    pip = tmp_path / "venv" / "bin" / "pip"
    done = subprocess.run([str(pip), "install", "-q", f"{wheel}[watch]"], env=env, capture_output=True, text=True,
                          timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stderr
    check_kenning(tmp_path / "venv" / "bin" / "kenning", env)
    # The license ships in the wheel, and the extra brought watchfiles.
    listed = subprocess.run([str(pip), "show", "-f", "kenning"], env=env, capture_output=True, text=True).stdout
    assert "License-Expression: Apache-2.0" in subprocess.run(
        [str(tmp_path / "venv" / "bin" / "python"), "-c",
         "import importlib.metadata as m; print(m.metadata('kenning'))"], capture_output=True, text=True).stdout  # fmt: skip
    assert "LICENSE" in listed
    assert subprocess.run([str(tmp_path / "venv" / "bin" / "python"), "-c", "import watchfiles"]).returncode == 0


def test_pipx_install_gives_a_working_kenning(tmp_path: Path) -> None:
    src = source_copy(tmp_path / "src")
    pipx = {"PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(tmp_path / "bin"),
            "PIPX_MAN_DIR": str(tmp_path / "man"), "PIPX_DEFAULT_PYTHON": sys.executable}  # fmt: skip
    env = user_env(tmp_path, **pipx)
    done = subprocess.run([sys.executable, "-m", "pipx", "install", str(src)], env=env, capture_output=True,
                          text=True, timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    check_kenning(tmp_path / "bin" / "kenning", env)
    assert (tmp_path / "bin" / "kenning-hook").exists()


def test_the_metadata_declares_license_extras_and_commands() -> None:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert meta["license"] == "Apache-2.0" and meta["license-files"] == ["LICENSE"]
    license_text = (REPO / "LICENSE").read_text()
    assert "Apache License" in license_text and "Version 2.0, January 2004" in license_text
    assert "END OF TERMS AND CONDITIONS" in license_text
    assert meta["optional-dependencies"]["watch"] == ["watchfiles>=0.21"]
    # Only extras that have code: no placeholder for features not built yet.
    assert set(meta["optional-dependencies"]) == {"watch", "postgres", "server", "dev"}
    assert (REPO / "src" / "kenning" / "store" / "postgres" / "memories.py").is_file()  # the postgres extra's code
    assert (REPO / "src" / "kenning" / "server" / "app.py").is_file()  # the server extra's (kenning serve)
    assert "kenning[postgres]" in meta["optional-dependencies"]["server"]
    assert meta["scripts"] == {"kenning": "kenning.cli.main:main", "kenning-hook": "kenning.hooks.main:main"}
    assert (REPO / "CHANGELOG.md").read_text().startswith("# Changelog")
