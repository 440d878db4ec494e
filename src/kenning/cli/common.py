"""Options and helpers shared by the memory command groups."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from kenning.cli.context import CliContext
from kenning.core.scopes import Place
from kenning.core.service import Core

F = TypeVar("F", bound=Callable[..., Any])


def core_of(ctx: CliContext) -> Core:
    """The command's core (opened on first use)."""
    return ctx.core


def where_options(fn: F) -> F:
    """--cwd / --project: which project a command acts on (default: the current folder's)."""
    fn = click.option("--project", "project", default=None, help="Project key (e.g. github.com/acme/app) instead of a folder.")(fn)
    fn = click.option(
        "--cwd",
        "cwd",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Working folder whose git project to use (default: the current folder).",
    )(fn)
    return fn


def place_of(core: Core, cwd: Path | None, project: str | None) -> Place:
    if project:
        return core.place(project=project)
    return core.place(cwd if cwd is not None else Path(os.getcwd()))


def json_option(fn: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(fn)


def user_home_option(what: str) -> Callable[[F], F]:
    """--user-home: the person's home folder (agent configs and transcripts live under it).

    One meaning per name: ``kenning --home`` is always kenning's data folder."""

    def decorate(fn: F) -> F:
        return click.option(
            "--user-home",
            "user_home",
            type=click.Path(file_okay=False, path_type=Path),
            default=None,
            help=f"The home folder whose {what} (default: your home folder).",
        )(fn)

    return decorate


def resolve_user_home(given: Path | None) -> Path:
    """The folder --user-home names, else the running user's home."""
    return (given or Path.home()).expanduser().absolute()
