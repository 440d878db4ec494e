"""`kenning memory place` and `kenning memory placements`: where a memory goes, as you decide
it — always give it here, not relevant here, never for agent runs — each with an undo."""

from __future__ import annotations

from pathlib import Path

import click

from kenning.cli.common import core_of, json_option, place_of, where_options
from kenning.cli.context import CliContext, emit_json, pass_ctx
from kenning.clock import to_iso
from kenning.core import placements
from kenning.core.service import Core
from kenning.model import Placement, Placing

DECISIONS = [p.value for p in Placing]


def as_dict(p: Placement) -> dict[str, object]:
    return {"ref": p.ref, "decision": p.decision.value, "place": p.place, "words": placements.describe(p),
            "at": to_iso(p.created_at), "by": p.by,
            "undo": f"kenning memory place {p.ref} {p.decision.value}{_where_flag(p.place)} --undo"}  # fmt: skip


def _where_flag(key: str) -> str:
    if not key:
        return ""
    if key.startswith("group:"):
        return f" --group {key.removeprefix('group:')}"
    return f" --project {key}"


def _key(core: Core, decision: Placing, cwd: Path | None, project: str | None, group: str | None) -> str:
    if decision is Placing.NO_AGENT_RUNS:
        return ""
    if group:
        return group if group.startswith("group:") else f"group:{group}"
    return place_of(core, cwd, project).project


@click.command("place")
@click.argument("ref")
@click.argument("decision", type=click.Choice(DECISIONS))
@click.option("--group", default=None, help="A group's name (see: kenning projects): the decision holds in all its projects.")
@click.option("--undo", is_flag=True, help="Take the decision back.")
@where_options
@json_option
@pass_ctx
def place_cmd(ctx: CliContext, ref: str, decision: str, group: str | None, undo: bool, cwd: Path | None,
              project: str | None, as_json: bool) -> None:  # fmt: skip
    """Decide where a memory goes: always give it here, not relevant here, or never for agent runs.

    always: first in this project's (or --group's) memory index. not-here: never reaches this
    project or group (index, lessons, task cards, recall). no-agent-runs: kept out of every task
    card. Each decision is listed on the memory (kenning memory placements REF) and --undo takes
    it back. A memory that replaces this one keeps its placements.

    \b
    Example:
      kenning memory place m:7f3a2b1c always
      kenning memory place m:7f3a2b1c not-here --group web
      kenning memory place m:7f3a2b1c no-agent-runs --undo
    """
    core = core_of(ctx)
    chosen = placements.parse(decision)
    key = _key(core, chosen, cwd, project, group)
    if undo:
        done = core.unplace_memory(ref, chosen, key)
    else:
        done = core.place_memory(ref, chosen, key, by="cli")
    if as_json:
        emit_json({**as_dict(done), "undone": undo})
        return
    if undo:
        click.echo(f"undone: {done.ref} is no longer '{placements.describe(done)}'")
    else:
        click.echo(f"placed: {done.ref} {placements.describe(done)} (undo: {as_dict(done)['undo']})")


@click.command("placements")
@click.argument("ref")
@json_option
@pass_ctx
def placements_cmd(ctx: CliContext, ref: str, as_json: bool) -> None:
    """List where you decided a memory goes, each with the command that undoes it.

    \b
    Example:
      kenning memory placements m:7f3a2b1c
    """
    core = core_of(ctx)
    found = core.placements(ref)
    if as_json:
        emit_json([as_dict(p) for p in found])
        return
    if not found:
        click.echo("no placements: the memory goes wherever its project's sessions look")
    for p in found:
        click.echo(f"{placements.describe(p)} (since {to_iso(p.created_at)[:10]}; undo: {as_dict(p)['undo']})")
