"""The command tree a person finds their way in: grouped, every command with an Example:, one
summary per command (the table `kenning --help` prints matches each command's own help), the
0.1 names still working for one release, and `--help` importing nothing heavy."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner

from kenning.cli.lazy import LazyGroup
from kenning.cli.main import cli
from kenning.cli.tree import ROOT


def walk(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every visible command below ``group``, depth first, with its path of names."""
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, (*path, name)
        if command.hidden:
            continue
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from walk(command, (*path, name))


COMMANDS = list(walk(cli))
PATHS = [" ".join(p) for p, _ in COMMANDS]


def first_paragraph(text: str | None) -> str:
    return " ".join((text or "").split("\n\n")[0].split())


def test_top_level_is_a_short_list_grouped_by_what_a_person_does() -> None:
    out = CliRunner().invoke(cli, ["--help"]).output
    for section in ("Memory:", "Sessions:", "Graph:", "Work:", "Setup:"):
        assert f"\n{section}\n" in out
    visible = [e.name for e in ROOT if not e.hidden]
    assert len(visible) <= 28, visible  # a screenful (0.1 listed 47); the team server added five, index and report one each
    # The curation verbs live under one group, not at the top.
    for verb in ("pin", "unpin", "hide", "give", "hold", "release", "protect", "retire", "bring-back"):
        assert verb not in visible and ("memory", verb) in [p for p, _ in COMMANDS]


@pytest.mark.parametrize("path", PATHS)
def test_every_command_has_an_example_and_a_summary_matching_its_help(path: str) -> None:
    result = CliRunner().invoke(cli, [*path.split(), "--help"], prog_name="kenning")
    assert result.exit_code == 0, result.output
    assert "\nExample:\n" in result.output or "\n  Example:\n" in result.output, result.output
    *parent_path, name = path.split()
    parent: click.Command = cli
    ctx = click.Context(cli)
    for part in parent_path:
        assert isinstance(parent, click.Group)
        found = parent.get_command(ctx, part)
        assert found is not None
        parent = found
    if isinstance(parent, LazyGroup) and name in parent.entries:
        command = dict(COMMANDS)[tuple(path.split())]
        assert parent.entries[name].summary == first_paragraph(command.help), path


def test_every_0_1_name_still_runs_and_says_where_it_lives_now(kenning_home: object) -> None:
    runner = CliRunner()
    moved = [e for e in ROOT if e.hidden]
    assert len(moved) >= 30
    for entry in moved:
        result = runner.invoke(cli, [entry.name, "--help"], prog_name="kenning")
        assert result.exit_code == 0, (entry.name, result.output)
        assert entry.name not in [line.split()[0] for line in runner.invoke(cli, ["--help"]).output.splitlines()
                                  if line.startswith("  ") and line.split()]  # fmt: skip
    stored = json.loads(runner.invoke(cli, ["remember", "Builds run on the shared runner pool", "--project",
                                            "github.com/acme/shop", "--json"]).output)["memory"]["ref"]  # fmt: skip
    old = runner.invoke(cli, ["pin", stored], prog_name="kenning")
    assert old.exit_code == 0 and f"pin: {stored}" in old.stdout
    assert "kenning memory pin" in old.stderr
    new = runner.invoke(cli, ["memory", "unpin", stored], prog_name="kenning")
    assert new.exit_code == 0 and new.stderr == ""


def test_help_and_completion_import_no_command_module() -> None:
    probe = (
        "import sys, os\n"
        "from kenning.cli.main import cli\n"
        "try:\n"
        "    cli.main(args=sys.argv[1:], prog_name='kenning')\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('kenning.core', 'kenning.store', 'kenning.capture', 'kenning.graph', 'kenning.context',\n"
        "         'kenning.mcp', 'kenning.install', 'mcp', 'pydantic', 'rich')\n"
        "print('LOADED', sorted(m for m in sys.modules if m.startswith(heavy)\n"
        "                       or m.startswith('kenning.cli.') and m not in\n"
        "                       ('kenning.cli.main', 'kenning.cli.lazy', 'kenning.cli.tree', 'kenning.cli.context')))\n"
    )
    for args, env in ((["--help"], {}), (["memory", "--help"], {}),
                      ([], {"_KENNING_COMPLETE": "bash_complete", "COMP_WORDS": "kenning mem", "COMP_CWORD": "1"}),
                      ([], {"_KENNING_COMPLETE": "bash_complete", "COMP_WORDS": "kenning memory p", "COMP_CWORD": "2"})):  # fmt: skip
        import os

        done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=60,
                              env={**os.environ, **env})  # fmt: skip
        loaded = next(line for line in done.stdout.splitlines() if line.startswith("LOADED"))
        assert loaded == "LOADED []", (args, env, loaded)
        if env:
            assert ("memory" in done.stdout) if env["COMP_CWORD"] == "1" else ("pin" in done.stdout), done.stdout


def examples(help_text: str) -> list[str]:
    """The command lines under ``Example:`` (continuation lines joined)."""
    lines, out, inside = help_text.splitlines(), [], False
    for line in lines:
        if line.strip() == "Example:":
            inside = True
            continue
        if inside and line.strip().startswith("kenning "):
            out.append(line.strip())
        elif inside and out and out[-1].endswith("\\"):
            out[-1] = out[-1][:-1] + line.strip()
        elif inside and line.strip():
            inside = False
    return out


@pytest.mark.parametrize("path", PATHS)
def test_every_example_parses_as_a_real_command_line(path: str) -> None:
    import shlex

    command = dict(COMMANDS)[tuple(path.split())]
    found = examples(command.help or "")
    assert found, path
    for line in found:
        words = shlex.split(line.split(" < ")[0], comments=True)[1:]  # a redirection is the shell's, not kenning's
        while words and words[0] in ("--home", "--now"):  # the root's own options
            words = words[2:]
        ctx = cli.make_context("kenning", ["--help"], resilient_parsing=True)
        current: click.Command = cli
        while isinstance(current, click.Group) and words and not words[0].startswith("-"):
            sub = current.get_command(ctx, words[0])
            if sub is None:
                break
            assert not sub.hidden, f"{line!r} uses a moved 0.1 name"
            ctx = sub.make_context(words[0], [], parent=ctx, resilient_parsing=True)
            current, words = sub, words[1:]
        if isinstance(current, click.Group) and not words:
            continue  # the group alone prints its list
        assert not isinstance(current, click.Group) or getattr(current, "invoke_without_command", False), line
        # Parses: every option exists and every value has its type (nothing runs).
        current.make_context(ctx.info_name or "", list(words), parent=ctx.parent)
