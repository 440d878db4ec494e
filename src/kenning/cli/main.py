"""Entry point of the ``kenning`` command. The only CLI module that reads the environment."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import click

from kenning import __version__
from kenning.cli.context import CliContext, fail
from kenning.config import load_settings
from kenning.errors import KenningError

# Each module exposes ``register(group: click.Group) -> None``.
COMMAND_MODULES = [
    "kenning.cli.capture",
    "kenning.cli.memory",
    "kenning.cli.mcp",
    "kenning.cli.install",
    "kenning.cli.curate",
    "kenning.cli.run",
    "kenning.cli.scopes",
    "kenning.cli.git",
    "kenning.cli.hooks",
    "kenning.cli.work",
    "kenning.cli.graph",
]


class KenningGroup(click.Group):
    """Turns kenning's own errors into a message with a fix and exit code 1, never a traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except KenningError as error:
            fail(error)
            return None


@click.group(cls=KenningGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kenning")
@click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="KENNING_HOME",
    help="Data folder (default: $KENNING_HOME, else the platform's user data folder).",
)
@click.pass_context
def cli(ctx: click.Context, home: Path | None) -> None:
    """kenning: memory for AI coding agents.

    Keeps decisions with their reasons, preferences, facts, lessons and where work stands,
    captures agent transcripts, and hands each session what it needs. Local SQLite, no
    model, no network.
    """
    settings = load_settings(home=home)
    ctx.obj = CliContext(settings, env=dict(os.environ))
    ctx.call_on_close(ctx.obj.close)


for _name in COMMAND_MODULES:
    importlib.import_module(_name).register(cli)


def main() -> None:
    cli(prog_name="kenning")
