"""Projects and groups: `kenning projects` lists them, `kenning projects group NAME FOLDER`
registers a group folder (0.1's `kenning group add`)."""

from __future__ import annotations

from pathlib import Path

import click

from kenning.cli.common import core_of, json_option
from kenning.cli.context import CliContext, emit_json, pass_ctx
from kenning.core.scopes import add_group


def _add_group(ctx: CliContext, name: str, folder: Path) -> None:
    core = core_of(ctx)
    row = add_group(core.store, core.workspace, name, folder, core.now())
    click.echo(f"group {row.key} holds projects under {row.root}")


@click.group("projects", invoke_without_command=True)
@json_option
@click.pass_context
def projects(click_ctx: click.Context, as_json: bool) -> None:
    """List known projects and groups; register a group folder.

    A project is a git repository (its remote names it); a group is a folder holding
    projects, whose policy reaches the projects below it.

    \b
    Example:
      kenning projects --json
      kenning projects group acme ~/src/acme
    """
    if click_ctx.invoked_subcommand is not None:
        return
    ctx = click_ctx.find_object(CliContext)
    assert ctx is not None
    core = core_of(ctx)
    rows = core.store.list_scopes(core.workspace)
    if as_json:
        emit_json([{"key": r.key, "kind": r.kind, "name": r.name, "root": r.root or None, "group": r.parent or None} for r in rows])
        return
    if not rows:
        click.echo("no projects yet: kenning learns a project when something is remembered or captured in it")
    for r in rows:
        extra = f" in {r.parent}" if r.parent else ""
        click.echo(f"{r.kind:8} {r.key}{extra}  {r.root}".rstrip())


@projects.command("group")
@click.argument("name")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@pass_ctx
def projects_group(ctx: CliContext, name: str, folder: Path) -> None:
    """Register FOLDER as group NAME; known projects inside it join the group.

    \b
    Example:
      kenning projects group acme ~/src/acme
    """
    _add_group(ctx, name, folder)


@click.group("group")
def group() -> None:
    """Groups: folders that hold projects (0.1; now `kenning projects group`)."""


@group.command("add")
@click.argument("name")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@pass_ctx
def group_add(ctx: CliContext, name: str, folder: Path) -> None:
    """Register FOLDER as group NAME (now `kenning projects group NAME FOLDER`)."""
    _add_group(ctx, name, folder)
