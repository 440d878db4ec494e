"""`kenning config`: get, set, unset and list settings per project or for all projects, with
--json and clear refusals; the start hook's wake-up bundle is one such setting, off by default."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from cli_runner import make_shop_repo, run

SHOP = "github.com/acme/shop"


def _json(args: list[str], cwd: Path, home: Path) -> dict[str, object]:
    data = json.loads(run([*args, "--json"], cwd, home).stdout)
    assert isinstance(data, dict)
    return data


def test_off_by_default_then_on_for_this_project_only(tmp_path: Path, kenning_home: Path) -> None:
    repo = make_shop_repo(tmp_path)
    got = _json(["config", "get", "start.wakeup"], repo, kenning_home)
    assert got == {"project": SHOP, "key": "start.wakeup", "value": False, "source": "default", "default": False,
                   "help": got["help"]}  # fmt: skip
    assert "on" in run(["config", "set", "start.wakeup", "on"], repo, kenning_home).stdout
    assert _json(["config", "get", "start.wakeup"], repo, kenning_home)["value"] is True
    assert _json(["config", "get", "start.wakeup"], repo, kenning_home)["source"] == "project"
    other = tmp_path / "other"
    other.mkdir()
    assert _json(["config", "get", "start.wakeup"], other, kenning_home)["value"] is False
    # The file is the person's own: readable by its owner only.
    assert stat.S_IMODE((kenning_home / "config.json").stat().st_mode) == 0o600


def test_global_value_and_the_project_value_wins(tmp_path: Path, kenning_home: Path) -> None:
    repo = make_shop_repo(tmp_path)
    run(["config", "set", "start.wakeup", "on", "--global"], repo, kenning_home)
    assert _json(["config", "get", "start.wakeup"], repo, kenning_home)["source"] == "global"
    run(["config", "set", "start.wakeup", "off", "--project", SHOP], tmp_path, kenning_home)
    here = _json(["config", "get", "start.wakeup"], repo, kenning_home)
    assert here["value"] is False and here["source"] == "project"
    run(["config", "unset", "start.wakeup"], repo, kenning_home)
    assert _json(["config", "get", "start.wakeup"], repo, kenning_home)["value"] is True
    listed = _json(["config", "list", "--global"], repo, kenning_home)
    assert listed["project"] is None
    assert [s["key"] for s in listed["settings"]] == ["start.wakeup"]  # type: ignore[index,union-attr]


def test_unknown_names_and_bad_values_are_refused_and_nothing_is_written(tmp_path: Path, kenning_home: Path) -> None:
    repo = make_shop_repo(tmp_path)
    bad = run(["config", "set", "start.wakeupp", "on"], repo, kenning_home, ok=False)
    assert bad.returncode == 1 and "unknown setting 'start.wakeupp'" in bad.stderr and "start.wakeup" in bad.stderr
    bad = run(["config", "set", "start.wakeup", "maybe"], repo, kenning_home, ok=False)
    assert bad.returncode == 1 and "takes on or off" in bad.stderr
    assert run(["config", "get", "nope"], repo, kenning_home, ok=False).returncode == 1
    both = run(["config", "get", "start.wakeup", "--global", "--project", SHOP], repo, kenning_home, ok=False)
    assert both.returncode == 2 and "not both" in both.stderr
    assert not (kenning_home / "config.json").exists()


def test_help_explains_with_an_example(tmp_path: Path, kenning_home: Path) -> None:
    out = run(["config", "--help"], tmp_path, kenning_home).stdout
    assert "Example:" in out and "kenning config set start.wakeup on" in out
    text = run(["config", "list"], tmp_path, kenning_home).stdout
    assert "start.wakeup = off  (default)" in text and "wake-up bundle" in text
