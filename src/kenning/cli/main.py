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
from kenning.errors import Invalid, KenningError, Refused


class KenningGroup(LazyGroup):
    """Turns kenning's own errors into a message with a fix and exit code 1, never a traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except KenningError as error:
            fail(error)
            return None
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise  # click's own (--help, usage errors): it answers them
        except Exception as error:
            from kenning import store

            if not store.unusable(error):
                raise
            # Locked or corrupt mid-command: a message, no traceback.
            fail(Refused(f"the store could not be used ({error})",
                         fix="run kenning doctor: it says whether the store is locked, corrupt or unreadable"))  # fmt: skip
            return None


@click.group(cls=KenningGroup, entries=ROOT, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kenning")
@click.option(
    "--home",
    type=click.Path(path_type=Path),
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
    blocked = _not_a_folder(settings.home)
    if blocked is not None:
        source = ctx.get_parameter_source("home")
        named = ("KENNING_HOME" if source is click.core.ParameterSource.ENVIRONMENT
                 else "--home" if source is click.core.ParameterSource.COMMANDLINE else "the data folder")  # fmt: skip
        fail(Invalid(f"{named} is {settings.home}, but {blocked} is a file, not a folder",
                     fix=f"point {named if named != 'the data folder' else 'KENNING_HOME'} at a folder "
                     "(it is made if it does not exist), or unset it for the default"))  # fmt: skip
    ctx.obj = CliContext(settings, env=dict(os.environ), clock=clock)
    ctx.call_on_close(ctx.obj.close)


def _not_a_folder(home: Path) -> Path | None:
    """The first part of ``home`` that exists and is not a folder (None when it can be one)."""
    for part in [home, *home.parents]:
        if part.exists():
            return None if part.is_dir() else part
    return None


def main() -> None:
    cli(prog_name="kenning")
