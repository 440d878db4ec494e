"""Entry point of the ``kenning`` command. The only CLI module that reads the environment.

Commands are listed in :mod:`kenning.cli.tree` and imported only when one runs, so
``kenning --help`` and shell completion start fast.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from kenning import __version__
from kenning.cli.context import CliContext, clock_from, fail
from kenning.cli.lazy import LazyGroup
from kenning.cli.tree import ROOT
from kenning.config import load_settings
from kenning.errors import KenningError


class KenningGroup(LazyGroup):
    """Turns kenning's own errors into a message with a fix and exit code 1, never a traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except KenningError as error:
            fail(error)
            return None


@click.group(cls=KenningGroup, entries=ROOT, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kenning")
@click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="KENNING_HOME",
    help="kenning's data folder, for every command (default: $KENNING_HOME, else the platform's user data folder).",
)
@click.option(
    "--now",
    metavar="TIME",
    envvar="KENNING_NOW",
    default=None,
    help="Run as if it were this ISO time (e.g. 2026-03-20T09:00Z), to try the time rules: shelf life, "
    "resting, weekly asks. Also $KENNING_NOW, which the MCP server and hooks read too.",
)
@click.pass_context
def cli(ctx: click.Context, home: Path | None, now: str | None) -> None:
    """kenning: memory for AI coding agents.

    Keeps decisions with their reasons, preferences, facts, lessons and where work stands,
    captures agent transcripts, and hands each session what it needs. Local SQLite, no
    model, no network.

    \b
    Example:
      kenning remember "We pin TZ=UTC in tests because CI has no time zone" --kind decision
      kenning recall "why do the tests pin the time zone"
      kenning memory --help
    """
    try:
        clock = clock_from(now)
    except KenningError as error:
        fail(error)
    settings = load_settings(home=home)
    ctx.obj = CliContext(settings, env=dict(os.environ), clock=clock)
    ctx.call_on_close(ctx.obj.close)


def main() -> None:
    cli(prog_name="kenning")
