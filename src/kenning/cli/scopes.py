"""Groups and projects: `kenning group add|list`, `kenning projects`."""

from __future__ import annotations

from pathlib import Path

import click

from kenning.cli.common import core_of, json_option
from kenning.cli.context import CliContext, emit_json, pass_ctx
from kenning.core.scopes import add_group


@click.group("group")
def group() -> None:
    """Groups: folders that hold projects (a group's policy reaches the projects below it)."""


@group.command("add")
@click.argument("name")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@pass_ctx
def group_add(ctx: CliContext, name: str, folder: Path) -> None:
    """Register FOLDER as group NAME; known projects inside it join the group."""
    core = core_of(ctx)
    row = add_group(core.store, core.workspace, name, folder, core.now())
    click.echo(f"group {row.key} holds projects under {row.root}")


@click.command("projects")
@json_option
@pass_ctx
def projects(ctx: CliContext, as_json: bool) -> None:
    """List known projects and groups."""
    core = core_of(ctx)
    rows = core.store.list_scopes(core.workspace)
    if as_json:
        emit_json([{"key": r.key, "kind": r.kind, "name": r.name, "root": r.root or None, "group": r.parent or None} for r in rows])
        return
    for r in rows:
        extra = f" in {r.parent}" if r.parent else ""
        click.echo(f"{r.kind:8} {r.key}{extra}  {r.root}".rstrip())


def register(cli: click.Group) -> None:
    cli.add_command(group)
    cli.add_command(projects)
