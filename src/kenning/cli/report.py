"""`kenning report`: does memory help? Sessions per tool and group, reach, given vs used per
channel, the holdout comparison and health, over a window; `--sample N` writes a sheet of
random deliveries for a person to judge."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from pathlib import Path

import click

from kenning.cli.common import core_of, json_option
from kenning.cli.context import CliContext, emit_json, pass_ctx
from kenning.context import memory_report, report_text
from kenning.core.service import Core
from kenning.errors import Invalid


@click.command("report")
@click.option("--window", "window_text", default=None, metavar="LENGTH",
              help=f"The window: the last N days (30, 30d) or weeks (6w); default {memory_report.DEFAULT_DAYS} days.")
@click.option("--since", default=None, help="The window instead: from this ISO date (or time) until now.")
@click.option("--project", default="", help="One project's key (default: every project).")
@click.option("--sample", "sample_count", type=int, default=None,
              help="Write a sheet of N random deliveries (what was given, to which session, its next turns) to judge.")  # fmt: skip
@click.option("--sheet", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where --sample writes its sheet (default: kenning-sample-DATE.md in the current folder).")
@click.option("--seed", type=int, default=None, help="With --sample: draw the same deliveries again.")
@json_option
@pass_ctx
def report_cmd(ctx: CliContext, window_text: str | None, since: str | None, project: str, sample_count: int | None,
               sheet: Path | None, seed: int | None, as_json: bool) -> None:  # fmt: skip
    """Does memory help? The memory report, from the hooks' records and captured transcripts.

    Per tool: sessions by group (pointed at memory, or the holdout) and reach (work sessions
    handed memory ÷ sessions captured). Per channel (brief, card, index, lesson, recall, note):
    memories given and the share used afterwards. The holdout comparison per session:
    corrections, repeated asks, recall calls, edits, reverted work, with the difference and a
    95% interval. Health: memories written ÷ memories cited, imports, per-project index and
    citations. docs/report.md says how each figure is computed.

    \b
    Example:
      kenning report
      kenning report --window 90d --project github.com/acme/shop --json
      kenning report --sample 24
    """
    core = core_of(ctx)
    days = memory_report.window_days(window_text) if window_text is not None else None
    win = memory_report.window(core.now(), days=days, since=since, project=project.strip())
    if sample_count is not None:
        _write_sheet(core, win, sample_count, sheet, seed, as_json)
        return
    if seed is not None or sheet is not None:
        raise Invalid("--seed and --sheet go with --sample", fix="add --sample N, e.g. --sample 24")
    with ExitStack() as stack:
        built = memory_report.build(core, win, progress=_bar(stack, as_json))
    if as_json:
        emit_json({**memory_report.as_dict(built), "empty": built.empty,
                   **({"note": report_text.NO_SESSIONS} if built.empty else {})})  # fmt: skip
        return
    click.echo(report_text.render(built))


def _bar(stack: ExitStack, quiet: bool) -> Callable[[Iterable[str]], Iterable[str]]:
    """A progress bar over captured sessions on a terminal (stderr) when there are many."""

    def wrap(items: Iterable[str]) -> Iterable[str]:
        listed = list(items)
        if quiet or len(listed) < 50 or not sys.stderr.isatty():
            return listed
        return stack.enter_context(click.progressbar(listed, label="reading captured sessions", file=sys.stderr))

    return wrap


def _write_sheet(core: Core, win: memory_report.Window, count: int, sheet: Path | None, seed: int | None,
                 as_json: bool) -> None:  # fmt: skip
    used_seed, items = memory_report.sample(core, win, count, seed=seed)
    if not items:
        raise Invalid("no deliveries to a session in this window, so there is nothing to judge",
                      fix="widen the window (--window 90d) or let sessions run with kenning's hooks first")  # fmt: skip
    path = sheet or Path.cwd() / f"kenning-sample-{core.now().date().isoformat()}.md"
    text = report_text.sheet(items, used_seed, core.now(), win.project or "all projects")
    # The sheet quotes sessions' words: readable by its owner only, like everything kenning keeps.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text + "\n")
    os.chmod(path, 0o600)
    if as_json:
        emit_json({"sheet": str(path), "seed": used_seed, "deliveries": len(items), "asked": count})
        return
    more = f" (only {len(items)} in the window)" if len(items) < count else ""
    click.echo(f"wrote {len(items)} deliveries to judge to {path}{more}; seed {used_seed}")
