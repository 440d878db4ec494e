"""Git awareness commands: ``kenning work refresh`` (parked work, citations, what waits on you
in gh), ``kenning work outcomes`` and ``kenning memory health``."""

from __future__ import annotations

import os
from pathlib import Path

import click

from kenning.cli.common import core_of, json_option
from kenning.cli.context import CliContext, emit_json, pass_ctx
from kenning.clock import to_iso
from kenning.core import citations, outcomes, parked, waiting
from kenning.core.health import health

_CWD = click.option(
    "--cwd", "cwd", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Working folder whose git project to use (default: the current folder).",
)  # fmt: skip


def _folder(cwd: Path | None) -> Path:
    return cwd if cwd is not None else Path(os.getcwd())


@click.command("refresh")
@_CWD
@json_option
@pass_ctx
def refresh_cmd(ctx: CliContext, cwd: Path | None, as_json: bool) -> None:
    """Re-read git: parked work on every branch, every citation of this project, and (where gh
    is installed and signed in) the pull requests and issues waiting on you, for the brief.

    Session start does this in the background; run it by hand after a merge or a rebase.

    \b
    Example:
      kenning work refresh --cwd ~/src/shop --json
    """
    core = core_of(ctx)
    report = parked.refresh(core, _folder(cwd))
    sweeps = citations.check_all(core, report.project) if report.project != "personal" else []
    gh = waiting.refresh(core, _folder(cwd)) if report.project != "personal" else None
    if as_json:
        emit_json({
            "project": report.project, "written": report.written, "unchanged": report.unchanged,
            "retired": report.retired, "retired_work": report.retired_work, "skipped": report.skipped,
            "citations": [{"scope": s.scope, "checked": s.checked, "not_judged": s.not_judged,
                           "changed": {k: v.value for k, v in s.changed.items()}} for s in sweeps],
            "waiting": None if gh is None else {
                "read": not gh.skipped, "skipped": gh.skipped,
                "items": [{"kind": i.kind, "number": i.number, "title": i.title, "url": i.url, "why": i.why}
                          for i in gh.items]},
        })  # fmt: skip
        return
    for why in report.skipped:
        click.echo(f"parked work: skipped ({why})")
    for ref in report.written:
        click.echo(f"parked work: {core.get(ref).text} [{ref}]")
    for branch in report.unchanged:
        click.echo(f"parked work: {branch} unchanged since the last reading")
    for ref, why in report.retired.items():
        click.echo(f"retired {ref}: {why} (bring it back with: kenning memory bring-back {ref})")
    for branch, what in report.retired_work.items():
        click.echo(f"retired {what} of branch {branch} (bring back with: kenning work goal --branch {branch} --bring-back)")
    for sweep in sweeps:
        if sweep.not_judged:
            click.echo(f"citations: {sweep.checked} not judged ({sweep.scope} is not on this machine)")
            continue
        click.echo(f"citations: {sweep.checked} checked, {len(sweep.changed)} moved")
        for ref, state in sweep.changed.items():
            click.echo(f"  {ref} now {state.value}")
    if gh is not None:
        _echo_waiting(gh)


def _echo_waiting(gh: waiting.WaitingReport) -> None:
    if gh.skipped:
        click.echo(f"waiting on you: skipped ({gh.skipped})")
        return
    click.echo(f"waiting on you: {len(gh.items)} pull requests and issues (shown in the brief for 24 hours)")
    for item in gh.items:
        click.echo(f"  {item.line}")


@click.group("outcomes")
def outcomes_group() -> None:
    """What came of decisions: shipped, not shipped, reverted.

    \b
    Example:
      kenning work outcomes
    """


@outcomes_group.command("check")
@_CWD
@json_option
@pass_ctx
def outcomes_check(ctx: CliContext, cwd: Path | None, as_json: bool) -> None:
    """Look for merges, pull requests and reverts of work that cited a decision.

    Adds a line under each decision's Outcome: shipped, not shipped or reverted.

    \b
    Example:
      kenning work outcomes --cwd ~/src/shop
    """
    core = core_of(ctx)
    report = outcomes.check(core, _folder(cwd))
    core.store.set_meta(core.workspace, outcomes.last_run_key(core, report.project), to_iso(core.now()))
    if as_json:
        emit_json({"project": report.project, "added": report.lines, "used_gh": report.used_gh,
                   "skipped": report.skipped})  # fmt: skip
        return
    for why in report.skipped:
        click.echo(f"skipped: {why}")
    if not report.lines and not report.skipped:
        click.echo("no new outcomes" + ("" if report.used_gh else " (git only: gh is not installed or signed in)"))
    for title, lines in report.lines.items():
        click.echo(f"{title}:")
        for line in lines:
            click.echo(f"  {line}")


@click.command("health")
@click.option("--project", default=None, help="Look at one scope key only (default: the whole workspace).")
@click.option("--repair", is_flag=True, help="Make the moves and drop the citations listed.")
@click.option("--dry-run", "--show", "dry_run", is_flag=True, help="Show what would change; change nothing.")
@json_option
@pass_ctx
def health_cmd(ctx: CliContext, project: str | None, repair: bool, dry_run: bool, as_json: bool) -> None:
    """Are memories reachable? Reports, and with --repair fixes, what recall cannot reach.

    \b
    Example:
      kenning memory health
      kenning memory health --repair
    """
    report = health(core_of(ctx), project, repair=repair and not dry_run)
    if as_json:
        emit_json(report.as_dict())
        return
    verb = "moved" if report.applied else "would move"
    click.echo(f"{report.checked} active memories looked at")
    for move in report.moves:
        click.echo(f"{verb} {move.ref} {move.from_scope} -> {move.to_scope} ({move.why}): {move.text}")
    for path in report.files_not_found:
        click.echo(f"file not found: {path}")
    for drop in report.drops:
        click.echo(f"{'dropped' if report.applied else 'would drop'} citation of {drop.ref}: {drop.source_ref}")
    for scope in report.not_judged:
        click.echo(f"not judged: {scope} (its folder is not on this machine)")
    click.echo(f"never returned by recall: {len(report.never_returned)}")
    click.echo(f"longer than a sentence: {len(report.long)}" + _refs(report.long))
    click.echo(f"without tags: {len(report.untagged)}")
    click.echo(f"exact duplicates: {len(report.duplicates)}" + _refs([" = ".join(g) for g in report.duplicates]))
    if (report.moves or report.drops) and not report.applied:
        click.echo("run `kenning memory health --repair` to make these changes")


def _refs(items: list[str], limit: int = 10) -> str:
    return f" ({', '.join(items[:limit])}{', …' if len(items) > limit else ''})" if items else ""
