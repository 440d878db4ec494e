"""``kenning config``: settings a person chooses, per project or for all projects."""

from __future__ import annotations

import os
from pathlib import Path

import click

from kenning import userconfig
from kenning.cli.common import core_of, json_option
from kenning.cli.context import CliContext, emit_json, pass_ctx


def _scope_options(fn: click.decorators.FC) -> click.decorators.FC:
    fn = click.option("--global", "for_all", is_flag=True,
                      help="All projects (a project's own value still wins).")(fn)  # fmt: skip
    fn = click.option("--project", "project", default=None,
                      help="Project key (e.g. github.com/acme/app); default: the current folder's project.")(fn)  # fmt: skip
    return fn


def _project(ctx: CliContext, project: str | None, for_all: bool) -> str:
    """The project key the command acts on; "" for --global."""
    if project and for_all:
        raise click.UsageError("give --project or --global, not both")
    if for_all:
        return ""
    if project:
        return project.strip()
    core = core_of(ctx)
    return core.place(Path(os.getcwd())).project


def _show(setting: userconfig.Setting) -> str:
    where = {"project": "set for this project", "global": "set for all projects", "default": "default"}[setting.source]
    return f"{setting.key.name} = {'on' if setting.value else 'off'}  ({where})"


@click.group("config")
def config() -> None:
    """Settings you choose, kept in config.json in the data folder.

    A setting holds for one project (the current folder's, or --project KEY) or for all of
    them (--global); a project's own value wins over the global one, which wins over the
    default.

    \b
    Example:
      kenning config set start.wakeup on
      kenning config list

    The first makes this project's sessions start with the wake-up bundle after the brief.
    """


@config.command("list")
@_scope_options
@json_option
@pass_ctx
def config_list(ctx: CliContext, project: str | None, for_all: bool, as_json: bool) -> None:
    """Every setting, its value here and where the value comes from.

    \b
    Example:
      kenning config list --json
    """
    key = _project(ctx, project, for_all)
    settings = userconfig.listing(str(ctx.settings.home), key)
    if as_json:
        emit_json({"project": key or None, "settings": [s.as_dict() for s in settings]})
        return
    click.echo(f"settings for {key or 'all projects'}:")
    for s in settings:
        click.echo(f"  {_show(s)}")
        click.echo(f"      {s.key.help}")


@config.command("get")
@click.argument("name")
@_scope_options
@json_option
@pass_ctx
def config_get(ctx: CliContext, name: str, project: str | None, for_all: bool, as_json: bool) -> None:
    """The value of setting NAME here, and where it comes from.

    \b
    Example:
      kenning config get start.wakeup
    """
    userconfig.key(name)  # an unknown name is refused before any project lookup
    key = _project(ctx, project, for_all)
    setting = userconfig.value(userconfig.load(str(ctx.settings.home)), name, key)
    if as_json:
        emit_json({"project": key or None, **setting.as_dict()})
        return
    click.echo(_show(setting))


@config.command("set")
@click.argument("name")
@click.argument("value")
@_scope_options
@json_option
@pass_ctx
def config_set(ctx: CliContext, name: str, value: str, project: str | None, for_all: bool, as_json: bool) -> None:
    """Set NAME to VALUE (on or off) for this project, or for all with --global.

    \b
    Example:
      kenning config set start.wakeup on
      kenning config set start.wakeup off --global
    """
    userconfig.key(name).parse(value)  # refuse a bad name or value before any project lookup
    key = _project(ctx, project, for_all)
    setting = userconfig.set_value(str(ctx.settings.home), name, value, key)
    if as_json:
        emit_json({"project": key or None, **setting.as_dict()})
        return
    click.echo(f"{_show(setting)} — {key or 'all projects'}")


@config.command("unset")
@click.argument("name")
@_scope_options
@json_option
@pass_ctx
def config_unset(ctx: CliContext, name: str, project: str | None, for_all: bool, as_json: bool) -> None:
    """Remove NAME's own value for this project (or --global); the next level then holds.

    \b
    Example:
      kenning config unset start.wakeup
    """
    userconfig.key(name)
    key = _project(ctx, project, for_all)
    setting = userconfig.unset(str(ctx.settings.home), name, key)
    if as_json:
        emit_json({"project": key or None, **setting.as_dict()})
        return
    click.echo(f"{_show(setting)} — {key or 'all projects'}")

