"""Your data: ``kenning export``, ``kenning import`` and ``kenning forget``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from kenning.cli.common import core_of, json_option
from kenning.cli.context import CliContext, emit_json, pass_ctx
from kenning.errors import Invalid


@click.command("export")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write to this file (default: standard output).")
@pass_ctx
def export_cmd(ctx: CliContext, output: Path | None) -> None:
    """Write this workspace's memory as JSON Lines.

    One record a line: the projects, every memory with its history and uses, decision docs,
    the knowledge graph, diary entries, named values, and the tombstones of what was
    forgotten. `kenning import` reads it back; captured transcripts are not included (sync
    captures them again).

    \b
    Example:
      kenning export -o kenning-backup.jsonl
      kenning --home /tmp/other import kenning-backup.jsonl
    """
    from kenning import private
    from kenning.core.portable import export_records

    core = core_of(ctx)
    lines = [json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n"
             for r in export_records(core.stores, core.workspace, core.now())]  # fmt: skip
    if output is None:
        sys.stdout.write("".join(lines))
        return
    private.write(output, "".join(lines).encode())  # the export holds what the store holds: owner only
    click.echo(f"wrote {len(lines) - 1} records to {output}", err=True)


@click.command("import")
@click.argument("source", type=click.Path(dir_okay=False, allow_dash=True, path_type=str))
@json_option
@pass_ctx
def import_cmd(ctx: CliContext, source: str, as_json: bool) -> None:
    """Read a `kenning export` file into this workspace.

    All or nothing: a bad line changes nothing. A memory already here (same ref) is kept as it
    is; one forgotten here is not brought back; decision docs, facts, diary entries and values
    already here are not written twice.

    \b
    Example:
      kenning import kenning-backup.jsonl
      kenning --home /tmp/copy import - < kenning-backup.jsonl
    """
    from kenning.core.portable import import_records, parse_lines

    if source == "-":
        records = parse_lines(sys.stdin)
    else:
        try:
            with open(source, encoding="utf-8") as handle:
                records = parse_lines(handle)
        except OSError as exc:
            raise Invalid(f"cannot read {source}: {exc.strerror}", fix="give the path of a kenning export file") from exc
    core = core_of(ctx)
    report = import_records(core.stores, core.workspace, records)
    if as_json:
        emit_json(report.as_dict())
        return
    added = ", ".join(f"{n} {kind}" for kind, n in report.added.items()) or "nothing"
    click.echo(f"imported {added}")
    if report.already_there:
        click.echo("already here, kept as they are: " + ", ".join(f"{n} {k}" for k, n in report.already_there.items()))
    if report.forgotten:
        click.echo(f"not brought back (forgotten here): {', '.join(report.forgotten)}")


@click.command("forget")
@click.argument("refs", nargs=-1)
@click.option("--session", default=None, metavar="SESSION",
              help="Forget a captured session (id, its first characters, or last) instead of memories.")
@click.option("--with-memories", is_flag=True, help="With --session: also forget the memories that session wrote.")
@click.option("--yes", is_flag=True, help="Delete without asking.")
@json_option
@pass_ctx
def forget_cmd(ctx: CliContext, refs: tuple[str, ...], session: str | None, with_memories: bool, yes: bool,
               as_json: bool) -> None:  # fmt: skip
    """Delete memories, or a captured session, for real.

    Unlike retire and hide, nothing is kept: the rows, their full-text entries, history and
    uses go, and so do a session's turns and chunks. A tombstone (the ref and a hash of the
    text, or the session id) keeps a later sync or import from bringing them back. Shows what
    it would delete and asks first; --yes skips the question.

    \b
    Example:
      kenning forget m:7f3a2b1c
      kenning forget --session 9f1c2a7e --with-memories --yes
    """
    from kenning.core import forget

    if session is not None and refs:
        raise Invalid("give memory refs or --session, not both", fix="run kenning forget twice")
    if session is None and with_memories:
        raise Invalid("--with-memories goes with --session", fix="add --session SESSION")
    core = core_of(ctx)
    if session is not None:
        plan = forget.plan_session(core, session, memories=with_memories)
    else:
        plan = forget.plan_memories(core, list(refs))
    if not yes:
        if as_json or not _interactive():
            if as_json:
                emit_json(plan.as_dict())
            else:
                _say_plan(plan)
            raise Invalid("nothing was deleted", fix="run it again with --yes to delete these for real")
        _say_plan(plan)
        click.confirm("Delete these for real? This cannot be undone", abort=True)
    forget.apply(core, plan)
    if as_json:
        emit_json(plan.as_dict())
        return
    click.echo(f"forgot {_what(plan)}; a tombstone keeps sync and import from bringing it back")


def _what(plan: object) -> str:
    from kenning.core.forget import ForgetPlan

    assert isinstance(plan, ForgetPlan)
    parts = [f"{len(plan.memories)} memor{'y' if len(plan.memories) == 1 else 'ies'}"] if plan.memories else []
    if plan.session is not None:
        parts.insert(0, f"session {plan.session.id} ({plan.turns} turns)")
    if plan.facts:
        parts.append(f"{plan.facts} graph fact{'s' if plan.facts != 1 else ''}")
    return ", ".join(parts) or "nothing"


def _say_plan(plan: object) -> None:
    from kenning.core.forget import ForgetPlan
    from kenning.core.render import memory_line

    assert isinstance(plan, ForgetPlan)
    click.echo(f"would forget {_what(plan)}:")
    if plan.session is not None:
        s = plan.session
        click.echo(f"  session {s.id}  {s.tool}  {s.project_name or s.project}  "
                   f"{s.first_at[:16]} .. {s.last_at[:16]}  {plan.turns} turns")  # fmt: skip
    for m in plan.memories:
        click.echo(f"  {memory_line(m)}")


def _interactive() -> bool:
    """Whether a person can answer the question (a terminal on standard input)."""
    return sys.stdin.isatty()
