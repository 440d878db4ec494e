"""`kenning export`, `import` and `forget` as a person uses them: a round trip through a file and
through a pipe, and a forget that deletes for real (not even the database file keeps the words)
and stays forgotten through a later sync and import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli_runner import make_shop_repo, run
from kenning.cli.main import cli

SECRETISH = "The quartermaster-lagoon rollout waits for the zebra-fjord schema change"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_shop_repo(tmp_path)


def on_disk(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(home.glob("kenning.db*")))


def test_export_then_import_into_another_home(repo: Path, kenning_home: Path, tmp_path: Path) -> None:
    ref = json.loads(run(["remember", "We pin TZ=UTC in the tests", "--kind", "decision", "--reason",
                          "CI has no time zone", "--json"], repo, kenning_home).stdout)["memory"]["ref"]  # fmt: skip
    run(["graph", "add", "shop", "uses", "postgres"], repo, kenning_home)
    run(["graph", "value", "set", "deploy.target", "fly.io"], repo, kenning_home)
    backup = tmp_path / "backup.jsonl"
    run(["export", "-o", str(backup)], repo, kenning_home)
    assert backup.stat().st_mode & 0o077 == 0  # owner only, like the store
    kinds = [json.loads(line)["type"] for line in backup.read_text().splitlines()]
    assert kinds[0] == "header" and {"memory", "event", "decision_doc", "fact", "value", "scope"} <= set(kinds)
    other = tmp_path / "other-home"
    report = json.loads(run(["--home", str(other), "import", str(backup), "--json"], repo, kenning_home).stdout)
    assert report["added"]["memory"] == 1 and report["added"]["fact"] == 1
    got = json.loads(run(["--home", str(other), "get", ref, "--json"], repo, kenning_home).stdout)[0]
    assert got["reason"] == "CI has no time zone" and got["history"]["events"][0]["event"] == "created"
    again = run(["--home", str(other), "import", str(backup)], repo, kenning_home).stdout
    assert "already here" in again
    # Through a pipe: kenning export | kenning --home X import -
    piped = CliRunner().invoke(cli, ["export"], env={"KENNING_HOME": str(kenning_home)}).stdout
    third = CliRunner().invoke(cli, ["--home", str(tmp_path / "third"), "import", "-", "--json"], input=piped)
    assert third.exit_code == 0 and json.loads(third.stdout)["added"]["memory"] == 1


def test_forget_asks_first_then_deletes_for_real(repo: Path, kenning_home: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    ref = json.loads(run(["remember", SECRETISH, "--json"], repo, kenning_home).stdout)["memory"]["ref"]
    run(["memory", "retire", ref, "--why", "moved"], repo, kenning_home)  # history to delete too
    backup = tmp_path / "before.jsonl"
    run(["export", "-o", str(backup)], repo, kenning_home)
    unasked = run(["forget", ref], repo, kenning_home, ok=False)  # no terminal and no --yes
    assert unasked.returncode == 1 and "nothing was deleted" in unasked.stderr and ref in unasked.stdout
    monkeypatch.setattr("kenning.cli.data._interactive", lambda: True)
    declined = run(["forget", ref], repo, kenning_home, ok=False)  # CliRunner answers with no input: abort
    assert declined.returncode == 1
    assert json.loads(run(["get", ref, "--json"], repo, kenning_home).stdout)[0]["ref"] == ref
    done = CliRunner().invoke(cli, ["forget", ref], input="y\n", env={"KENNING_HOME": str(kenning_home)})
    assert done.exit_code == 0 and "forgot 1 memory" in done.stdout
    missing = run(["get", ref], repo, kenning_home, ok=False)
    assert missing.returncode == 1 and "no memory" in missing.stderr
    assert json.loads(run(["recall", "quartermaster lagoon rollout", "--json"], repo, kenning_home).stdout)["results"] == []
    raw = on_disk(kenning_home)
    assert b"quartermaster" not in raw and b"zebra-fjord" not in raw and b"zebra" not in raw
    report = json.loads(run(["import", str(backup), "--json"], repo, kenning_home).stdout)
    assert report["forgotten"] == [ref] and b"quartermaster" not in on_disk(kenning_home)


def test_forget_refuses_what_it_cannot_name(repo: Path, kenning_home: Path) -> None:
    nothing = run(["forget", "--yes"], repo, kenning_home, ok=False)
    assert nothing.returncode == 1 and "fix:" in nothing.stderr
    unknown = run(["forget", "m:0badf00d", "--yes"], repo, kenning_home, ok=False)
    assert unknown.returncode == 1 and "no memory m:0badf00d" in unknown.stderr
    both = run(["forget", "m:0badf00d", "--session", "last"], repo, kenning_home, ok=False)
    assert both.returncode == 1 and "not both" in both.stderr
