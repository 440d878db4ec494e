"""``kenning eval``: how well recall finds what questions need (kenning.core.evaluation)."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from kenning.cli.common import core_of, json_option
from kenning.cli.context import CliContext, emit_json, pass_ctx
from kenning.core import evaluation
from kenning.errors import Invalid


@click.command("eval")
@click.argument("folder", required=False, type=click.Path(path_type=Path))
@click.option("--history", is_flag=True, help="Measure on your own history: the queries sessions gave recall "
              "and the memories they then cited (from captured sessions).")  # fmt: skip
@click.option("--half", type=click.Choice(["tune", "report", "all", "both"]), default=None,
              help="Which half of the questions (split by a stable hash): tune on one, report the other. "
                   "Default: all of a labelled set; both halves, side by side, of your history.")  # fmt: skip
@click.option("--details", is_flag=True, help="With --json: every question, its answer and its scores.")
@json_option
@pass_ctx
def eval_cmd(ctx: CliContext, folder: Path | None, history: bool, half: str | None, details: bool,
             as_json: bool) -> None:  # fmt: skip
    """Measure recall: recall@5 and MRR per question kind.

    FOLDER holds a labelled set: memories.jsonl (id, project, kind, text, and optionally
    reason, rejected, subject, trigger, tags) and queries.jsonl (id, project, type, query,
    relevant: {memory id: 2 for what it needs most, 1 for also useful}, {} when memory cannot
    answer it). Each project's memories go into a throwaway store; your own store is not
    touched. With --history, the questions are the recalls your captured sessions made and
    the memories they cited afterwards, asked again of your store as of that moment (nothing
    is written). recall@5: share of the relevant memories in the first 5; MRR: 1/rank of the
    first one most needed; empty: answers with nothing (for `none` questions, abstained).

    \b
    Example:
      kenning eval ./recall-eval/dev
      kenning eval --history --half report --json
    """
    if history == (folder is not None):
        raise Invalid("give either a FOLDER with a labelled set or --history",
                      fix="kenning eval ./my-set  (memories.jsonl + queries.jsonl), or kenning eval --history")  # fmt: skip
    halves = _halves(half, history)
    if history:
        core = core_of(ctx)
        reports = [evaluation.run_history(core, half=h) for h in halves]
    else:
        assert folder is not None
        reports = [_labelled(folder, ctx, h, quiet=as_json) for h in halves]
    if as_json:
        emit_json([r.as_dict(details=details) for r in reports] if len(reports) > 1 else reports[0].as_dict(details=details))
        return
    for report in reports:
        _print(report)


def _halves(half: str | None, history: bool) -> list[str]:
    if half == "both" or (half is None and history):
        return list(evaluation.HALVES)
    return [half or evaluation.ALL]


def _labelled(folder: Path, ctx: CliContext, half: str, *, quiet: bool) -> evaluation.Report:
    if quiet:
        return evaluation.run_labelled(folder, ctx.clock, half=half)
    with Progress(TextColumn("[bold]eval[/] {task.description}"), BarColumn(), MofNCompleteColumn(),
                  console=Console(stderr=True), transient=True) as bar:  # fmt: skip
        task = bar.add_task(str(folder), total=None)
        return evaluation.run_labelled(folder, ctx.clock, half=half,
                                       progress=lambda done, total: bar.update(task, completed=done, total=total))  # fmt: skip


def _print(report: evaluation.Report) -> None:
    click.echo(f"{report.source} ({report.half} half)" if report.half != evaluation.ALL else report.source)
    if not report.scores:
        click.echo("  no questions" + (": " + report.notes[0] if report.notes else ""))
        return
    click.echo(f"  {'kind':<12} {'n':>4} {'recall@5':>9} {'MRR':>6}  empty")
    for s in report.scores:
        if s.recall_at_5 is None:
            click.echo(f"  {s.kind:<12} {s.n:>4} {'':>9} {'':>6}  {s.empty:.0%} abstained")
        else:
            assert s.mrr is not None
            click.echo(f"  {s.kind:<12} {s.n:>4} {s.recall_at_5:>9.3f} {s.mrr:>6.3f}  {s.empty:.0%} false-empty")
    for note in report.notes[:10]:
        click.echo(f"  note: {note}")
