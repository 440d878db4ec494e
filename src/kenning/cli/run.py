"""`kenning status` and `kenning run` (the main job behind `make run`)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import click

from kenning.cli.common import core_of, json_option, resolve_user_home, user_home_option
from kenning.cli.context import CliContext, emit_json, pass_ctx
from kenning.config import Settings
from kenning.core.capture_job import run_capture_job
from kenning.core.remember import RememberRequest
from kenning.core.render import memory_line
from kenning.core.report import status
from kenning.core.service import Core
from kenning.model import Origin


def size(count: int) -> str:
    """Bytes as a person reads them: 0 B, 812 B, 14 KiB, 3.2 MiB."""
    if count < 1024:
        return f"{count} B"
    if count < 1024 * 1024:
        return f"{count / 1024:.0f} KiB"
    return f"{count / (1024 * 1024):.1f} MiB"


def _print_status(report: dict[str, Any]) -> None:
    kinds = report["active_by_kind"]
    total = sum(kinds.values())
    captured = report["captured"]
    click.echo(f"store: {report['db_path']}")
    detail = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "none yet"
    click.echo(f"active memories: {total} ({detail}); {size(report['memory_text_bytes'])} of text in all")
    click.echo(f"captured: {captured['turns']} turns in {captured['sessions']} sessions "
               f"({size(captured['text_bytes'])} of transcript text)")
    empty = not report["by_status"] and not captured["turns"]
    disk = f"on disk: {size(report['db_bytes_in_use'])} in use"
    if report["db_bytes"] > report["db_bytes_in_use"]:
        disk += f" ({size(report['db_bytes'])} with the write-ahead log and free pages)"
    click.echo(disk + ("; an empty store is this much schema and indexes" if empty else ""))
    flags = report["flags"]
    assert isinstance(flags, dict)
    if flags:
        click.echo("marks: " + ", ".join(f"{n} {k}" for k, n in sorted(flags.items())))
    click.echo(f"waiting for review: {report['needs_review']}")


@click.command("status")
@json_option
@pass_ctx
def status_cmd(ctx: CliContext, as_json: bool) -> None:
    """What the store holds: memories by kind, marks, reviews waiting, size.

    \b
    Example:
      kenning status
      kenning --home /tmp/kenning-demo status --json
    """
    report = status(core_of(ctx))
    if as_json:
        emit_json(report)
    else:
        _print_status(report)


def _demo_memory_round_trip() -> list[str]:
    """Remember and recall a sample memory in a throwaway store (never the user's)."""
    lines = []
    with tempfile.TemporaryDirectory(prefix="kenning-demo-") as tmp:
        core = Core.open(Settings(home=Path(tmp)))
        try:
            place = core.place(project="example.org/demo/app")
            stored = core.remember(place, RememberRequest(
                text="We pin TZ=UTC in the test suite because CI runs with no time zone set",
                origin=Origin.PERSON, source="demo"))  # fmt: skip
            assert stored.memory is not None
            lines.append(f"remembered  {memory_line(stored.memory)}")
            found = core.recall(place, "why do the tests pin the time zone")
            lines.extend(f"recalled    {memory_line(hit.memory)}" for hit in found.hits)
        finally:
            core.close()
    return lines


@click.command("run")
@user_home_option("agent transcripts to capture")
@pass_ctx
def run_cmd(ctx: CliContext, user_home: Path | None) -> None:
    """The main job: open the store, capture this machine's agent transcripts, show status.

    What `make run` runs. It also does a remember/recall round trip in a throwaway store
    (never yours) and says what to run next.

    \b
    Example:
      kenning run
    """
    core = core_of(ctx)
    click.echo(f"kenning data folder: {ctx.settings.home}")
    run_capture_job(core, resolve_user_home(user_home), ctx.env, say=click.echo)
    _print_status(status(core))
    click.echo("")
    click.echo("A round trip in a throwaway store:")
    for line in _demo_memory_round_trip():
        click.echo(f"  {line}")
    click.echo("")
    click.echo("Next:")
    click.echo("  kenning install            register kenning's MCP server and hooks in your agent tools")
    click.echo('  kenning recall "<task>"    look up what memory holds for a task')
    click.echo('  kenning remember "<fact>"  keep a decision, preference, fact or lesson')
    click.echo("  kenning --help             every command")
