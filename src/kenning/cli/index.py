"""`kenning index`: the memory index an automation or an in-app agent is given."""

from __future__ import annotations

from pathlib import Path

import click

from kenning.cli.common import core_of, json_option, place_of, where_options
from kenning.cli.context import CliContext, emit_json, pass_ctx
from kenning.context import index as index_mod
from kenning.core.render import memory_dict


@click.command("index")
@click.option("--for", "for_", type=click.Choice(index_mod.FOR), default="agent", show_default=True,
              help="agent: the index for an in-app agent's system prompt. automation: the index, then the "
                   "memories sessions leave to search, newest first.")  # fmt: skip
@click.option("--also", type=click.IntRange(0, 500), default=None,
              help=f"With --for automation: how many more memories after the index (default {index_mod.ALSO}).")
@click.option("--session", default="", help="The session or run it is given to, so the memory report can tell whether it was used.")
@where_options
@json_option
@pass_ctx
def index_cmd(ctx: CliContext, for_: str, also: int | None, session: str, cwd: Path | None, project: str | None,
              as_json: bool) -> None:  # fmt: skip
    """The memory index: up to 12 lines, one memory each with its ref, for an AI that runs
    without a task (an automation, an in-app agent).

    Chosen, not matched to words: what you placed 'always give this here', then pinned
    memories, then memories used in the last 30 days, then lessons, preferences and decisions,
    newest first. Hidden, held, stale, resting and changed-citation memories never appear, nor
    lessons with a trigger (they arrive on their command or file).

    \b
    Example:
      kenning index
      kenning index --for automation --also 50 --json
    """
    core = core_of(ctx)
    place = place_of(core, cwd, project)
    built = index_mod.build(core, place, for_=for_, also=also)
    index_mod.given(core, built, session=session.strip(), tool="cli")
    if as_json:
        now = core.now()
        emit_json({
            "project": place.project, "for": for_,
            "lines": [{"line": x.text, "why": x.why, **memory_dict(x.memory, now)} for x in built.lines],
            "also": [{"line": x.text, **memory_dict(x.memory, now)} for x in built.also],
        })  # fmt: skip
        return
    click.echo(index_mod.render(built))
