"""One session lookup everywhere: every command and tool that takes a session accepts its full
id, the id without its tool prefix, a prefix of it, or `last` (the 0.1 `escalate 9f1c2a7e` said
"no captured session" where `show` and `resume` accepted the same short id)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from capture_fixtures import CLAUDE_SESSION, build_home
from click.testing import CliRunner

from kenning.capture.lookup import find_session
from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.capture_job import sync_all
from kenning.core.service import Core
from kenning.errors import Invalid, NotFound

FULL = f"claude:{CLAUDE_SESSION}"
TWIN = "9f1c2a7e-0000-4000-8000-000000000000"  # shares the first 8 characters


def cli(home: Path, *args: str) -> tuple[int, str, str]:
    from kenning.cli.main import cli as group

    done = CliRunner().invoke(group, list(args), env={"KENNING_HOME": str(home)}, prog_name="kenning")
    if done.exception and not isinstance(done.exception, SystemExit):
        raise done.exception
    return done.exit_code, done.stdout, done.stderr


@pytest.fixture
def captured(tmp_path: Path) -> Path:
    """A data folder that captured every tool's sample sessions."""
    user_home = build_home(tmp_path / "home")
    data = tmp_path / "kenning"
    core = Core.open(Settings(home=data), FixedClock())
    try:
        sync_all(core, user_home)
    finally:
        core.close()
    return data


@pytest.mark.parametrize("name", [FULL, CLAUDE_SESSION, "9f1c2a7e", "claude:9f1c2a7e"])
def test_every_session_command_accepts_each_way_of_naming_it(captured: Path, name: str) -> None:
    code, out, err = cli(captured, "sessions", "show", name, "--json")
    assert code == 0, err
    assert json.loads(out)["session"]["id"] == FULL
    code, out, err = cli(captured, "sessions", "escalate", name, "--json")
    assert code == 0, err
    assert json.loads(out)["session"] == FULL
    code, out, err = cli(captured, "sessions", "resume", name, "--json")
    assert code == 0, err
    assert json.loads(out)["session"] == FULL


def test_last_is_the_newest_captured_session(captured: Path) -> None:
    core = Core.open(Settings(home=captured), FixedClock())
    try:
        newest = core.stores.capture.sessions(core.workspace)[0].id
        assert find_session(core.stores.capture, core.workspace, "last").id == newest
    finally:
        core.close()
    code, out, _ = cli(captured, "sessions", "show", "last", "--json")
    assert code == 0 and json.loads(out)["session"]["id"] == newest


def test_an_ambiguous_prefix_is_refused_with_the_candidates(tmp_path: Path) -> None:
    user_home = build_home(tmp_path / "home")
    folder = user_home / ".claude" / "projects" / "-home-alice-src-shop"
    data = (folder / f"{CLAUDE_SESSION}.jsonl").read_bytes()  # holds invalid UTF-8 on purpose
    (folder / f"{TWIN}.jsonl").write_bytes(data.replace(CLAUDE_SESSION.encode(), TWIN.encode()))
    core = Core.open(Settings(home=tmp_path / "kenning"), FixedClock())
    store, ws = core.stores.capture, core.workspace
    try:
        sync_all(core, user_home)
        with pytest.raises(Invalid) as several:
            find_session(store, ws, "9f1c2a7e")
        assert FULL in several.value.message and f"claude:{TWIN}" in several.value.message
        assert find_session(store, ws, "9f1c2a7e-3b4d").id == FULL
        assert find_session(store, ws, CLAUDE_SESSION).id == FULL  # whole, though a prefix of nothing else
        with pytest.raises(NotFound) as missing:
            find_session(store, ws, "0badf00d")
        assert "kenning sessions sync" in (missing.value.fix or "")
        with pytest.raises(NotFound):
            find_session(store, "another", FULL)
    finally:
        core.close()
