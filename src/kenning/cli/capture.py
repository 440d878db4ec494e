"""Capture commands (`kenning sessions ...`): sync, watch, search, show, context."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from kenning.cli.common import core_of, resolve_user_home, user_home_option
from kenning.cli.context import CliContext, emit_json, pass_ctx
from kenning.errors import Invalid
from kenning.quoting import as_data, neutral


def _env(ctx: CliContext) -> dict[str, str]:
    from kenning.capture.sync import ENV_KEYS

    return {k: ctx.env[k] for k in ENV_KEYS if k in ctx.env}


@contextmanager
def _progress(enabled: bool) -> Iterator[Any]:
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    with Progress(TextColumn("[bold]capturing[/] {task.description}"), BarColumn(), DownloadColumn(),
                  TransferSpeedColumn(), TimeRemainingColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("", total=None)

        def update(done: int, total: int, label: str) -> None:
            bar.update(task, completed=done, total=total, description=label[-40:])

        yield update


def _say_summary(s: Any) -> None:
    click.echo(f"captured {s.turns_added} new turns from {s.files_read} of {s.files} transcript files "
               f"({s.bytes_read / 1e6:.1f} MB in {s.seconds:.1f}s); {s.sessions} sessions in the store")
    if s.secrets_redacted:
        click.echo(f"  redacted {s.secrets_redacted} secrets before storing")
    if s.files_rewritten:
        click.echo(f"  {s.files_rewritten} files had changed under the reader and were read again")
    if s.capture_off_turns:
        click.echo(f"  skipped {s.capture_off_turns} turns of projects with capture switched off")
    if s.forgotten_turns:
        click.echo(f"  left out {s.forgotten_turns} turns of sessions you forgot (kenning forget --session)")
    if s.skipped_lines:
        click.echo(f"  skipped {s.skipped_lines} unreadable lines")
    if s.reclassified:
        click.echo(f"  classified {s.reclassified} older chunks with the current rules")
    mf = {k: v for k, v in s.memory_files.items() if v and k != "unchanged"}
    if mf:
        click.echo("  agents' memory files: " + ", ".join(f"{v} {k}" for k, v in mf.items()))
    for err in s.errors[:10]:
        click.echo(f"  could not read {err}", err=True)


# The 0.1 name of --user-home on sync and watch, kept for one release.
_FROM_HOME = click.option("--from-home", "from_home", type=click.Path(file_okay=False, path_type=Path), default=None,
                          hidden=True, deprecated="use --user-home")  # fmt: skip


@click.command("sync")
@user_home_option("agent transcripts to capture")
@_FROM_HOME
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@pass_ctx
def sync_cmd(ctx: CliContext, user_home: Path | None, from_home: Path | None, as_json: bool, quiet: bool) -> None:
    """Capture new turns of every agent transcript (Claude Code, Codex, Gemini CLI, OpenCode).

    Incremental and crash-safe: a second run reads only what was appended. Secrets are
    redacted before anything is stored.

    \b
    Example:
      kenning sessions sync
      kenning sessions sync --json --quiet
    """
    from kenning.core.capture_job import sync_all

    home = resolve_user_home(user_home or from_home)
    with _progress(not (as_json or quiet)) as progress:
        summary = sync_all(core_of(ctx), home, progress, env=_env(ctx))
    if as_json:
        emit_json(summary.to_dict())
    else:
        _say_summary(summary)


@click.command("watch")
@user_home_option("agent transcripts to capture")
@_FROM_HOME
@click.option("--interval", type=float, default=2.0, show_default=True, help="Seconds between checks when polling.")
@click.option("--rounds", type=int, default=0, hidden=True, help="Stop after this many syncs (tests).")
@pass_ctx
def watch_cmd(ctx: CliContext, user_home: Path | None, from_home: Path | None, interval: float, rounds: int) -> None:
    """Keep capturing as transcripts grow. Ctrl-C stops.

    With the `watch` extra installed (pip install 'kenning[watch]', which brings watchfiles)
    it wakes on each change; without it, it checks every --interval seconds and says so.

    \b
    Example:
      kenning sessions watch
    """
    from kenning.capture.sync import watch_roots
    from kenning.core.capture_job import sync_all

    home, env = resolve_user_home(user_home or from_home), _env(ctx)
    waiter = _change_waiter()
    if waiter is None:
        click.echo(f"watchfiles is not installed, so kenning checks for new turns every {interval:g} s "
                   "(install it with: pip install 'kenning[watch]')", err=True)
    done = 0
    try:
        while True:
            summary = sync_all(core_of(ctx), home, env=env, import_memory_files=done == 0)
            done += 1
            if summary.turns_added or done == 1:
                click.echo(f"{time.strftime('%H:%M:%S')} +{summary.turns_added} turns "
                           f"({summary.sessions} sessions)", err=False)
            if rounds and done >= rounds:
                return
            roots = [r for r in watch_roots(home, env) if r.exists()]
            if waiter is None or not roots:
                time.sleep(interval)
                continue
            try:
                waiter(roots, interval)
            except (FileNotFoundError, ValueError, TypeError):  # a root vanished under the watcher
                time.sleep(interval)
    except KeyboardInterrupt:
        click.echo("stopped watching")


def _change_waiter() -> Any:
    """A function that blocks until a change under the roots (or the interval passes), or None
    when the optional watchfiles package is missing (then watch polls)."""
    try:
        import watchfiles
    except ImportError:
        return None

    def wait(roots: list[Path], interval: float) -> None:
        # Wakes on the first change, or after the interval so new roots are noticed.
        for _changes in watchfiles.watch(*roots, rust_timeout=int(interval * 1000), yield_on_timeout=True,
                                         debounce=300, raise_interrupt=True):
            break

    return wait


@click.command("search")
@click.argument("query", nargs=-1, required=True)
@click.option("--project", default="", help="Only sessions of this project key.")
@click.option("--tool", type=click.Choice(["claude-code", "codex", "gemini", "opencode"]), default=None)
@click.option("--type", "type_", type=click.Choice(["decision", "preference", "milestone", "problem", "discovery",
                                                   "general"]), default=None, help="Only chunks of this class.")
@click.option("--since", default="", help="Only from this date on (2026-03-01).")
@click.option("--until", default="", help="Only up to this date.")
@click.option("--limit", type=int, default=10, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@pass_ctx
def search_cmd(ctx: CliContext, query: tuple[str, ...], project: str, tool: str | None, type_: str | None,
               since: str, until: str, limit: int, as_json: bool) -> None:
    """Search captured sessions.

    Ranks turns by BM25 over what was said; each hit names its session and chunk, which
    `kenning sessions context` opens in place.

    \b
    Example:
      kenning sessions search "staging database settings" --since 2026-03-01
    """
    from kenning.capture.search import search

    core = core_of(ctx)
    hits = search(core.stores.capture, core.workspace, " ".join(query), project=project, tool=tool or "",
                  type=type_ or "", since=since, until=until, limit=limit, now=ctx.clock.now())
    if as_json:
        emit_json([h.to_dict() for h in hits])
        return
    if not hits:
        click.echo("no captured turns match; run `kenning sessions sync` first if you have not")
        return
    for h in hits:
        tag = f" {h.type}:{h.importance}" if h.type != "general" else ""
        click.echo(f"{h.at[:16].replace('T', ' ')}  {h.tool:<11} {neutral(h.project_name or h.project)}  "
                   f"[{h.session} chunk {h.chunk}]{tag}")
        click.echo(f"    {h.role}: {as_data(h.evidence)}")


def _print_turns(turns: list[dict[str, Any]], mark: int | None = None) -> None:
    for t in turns:
        arrow = ">" if mark is not None and t["turn"] == mark else " "
        head = f"{arrow} {t['at'][:19].replace('T', ' ')}  {t['role']}"
        if t["subagent"]:
            head += f" (subagent {t['subagent']})"
        click.echo(head)
        if t["text"]:
            lines = t["text"].splitlines()
            if len(lines) > 40:  # the turn's quote closes even when it is cut short
                lines = [*lines[:40], "…»"]
            for line in lines:
                click.echo(f"    {line}")
        for call in t["tool_calls"]:
            click.echo(f"    -> {call['name']} {call['input']}")


@click.command("show")
@click.argument("session")
@click.option("--limit", type=int, default=500, show_default=True, help="Turns at most.")
@click.option("--json", "as_json", is_flag=True)
@pass_ctx
def show_cmd(ctx: CliContext, session: str, limit: int, as_json: bool) -> None:
    """Show a captured session (redacted), turn by turn.

    SESSION is an id, its first 8 or more characters, or `last` (the newest session).

    \b
    Example:
      kenning sessions show 9f1c2a7e
      kenning sessions show last --json
    """
    from kenning.capture.search import show

    core = core_of(ctx)
    view = show(core.stores.capture, core.workspace, session, limit=limit)
    if as_json:
        emit_json(view)
        return
    s = view["session"]
    click.echo(f"{s['id']}  {s['tool']}  {s['project_name'] or s['project']}  {s['branch']}  "
               f"{s['first_at'][:16]} .. {s['last_at'][:16]}  {s['turns']} turns")
    _print_turns(view["turns"])


@click.command("context")
@click.argument("session")
@click.argument("chunk", type=int)
@click.option("--radius", type=int, default=3, show_default=True, help="Turns before and after.")
@click.option("--json", "as_json", is_flag=True)
@pass_ctx
def context_cmd(ctx: CliContext, session: str, chunk: int, radius: int, as_json: bool) -> None:
    """Show the turns around a search hit.

    SESSION and CHUNK as `kenning sessions search` prints them.

    \b
    Example:
      kenning sessions context claude:9f1c2a7e 12 --radius 5
    """
    from kenning.capture.search import context

    if radius < 0:
        raise Invalid("radius must not be negative", fix="pass --radius 3")
    core = core_of(ctx)
    view = context(core.stores.capture, core.workspace, session, chunk, radius=radius)
    if as_json:
        emit_json(view)
        return
    _print_turns(view["turns"], mark=view["turn"])
