"""``kenning install`` / ``uninstall`` / ``doctor``: kenning in each agent tool's own config."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import click

from kenning.cli.common import resolve_user_home, user_home_option
from kenning.cli.context import CliContext, emit_json, pass_ctx
from kenning.errors import Refused
from kenning.install.agents import AGENTS, Agent, chosen
from kenning.install.files import Ledger
from kenning.install.installer import Installer, Report, check


def _refuse_old_home(ctx: click.Context, param: click.Parameter, value: object) -> None:
    if value is not None:
        raise click.UsageError(
            "--home is kenning's data folder and goes before the command (kenning --home DIR install); "
            "the home folder whose agent-tool configs to edit is --user-home", ctx=ctx)


def _home_options(fn: click.decorators.FC) -> click.decorators.FC:
    fn = user_home_option("agent-tool configs to edit")(fn)
    # 0.1 spelled --user-home as --home here, which also named the data folder: refuse it clearly.
    return click.option("--home", "old_home", hidden=True, expose_value=False, default=None,
                        callback=_refuse_old_home)(fn)  # fmt: skip


def _executable() -> str:
    """The absolute path of the running kenning, which agent tools will start."""
    argv0 = Path(sys.argv[0])
    if argv0.name == "kenning" and argv0.exists():
        return os.path.abspath(argv0)
    found = shutil.which("kenning")
    if found:
        return os.path.abspath(found)
    raise Refused("cannot find the kenning executable", fix="put kenning's executable on PATH (pipx install ., or pip install .), then retry")


@click.command("install")
@click.argument("tools", nargs=-1)
@_home_options
@click.option("--force", is_flag=True, help="Replace an entry named kenning that kenning did not write.")
@click.option("--json", "as_json", is_flag=True, help="Print what changed as JSON.")
@pass_ctx
def install_cmd(ctx: CliContext, tools: tuple[str, ...], user_home: Path | None, force: bool, as_json: bool) -> None:
    """Register kenning's MCP server (and hooks) in agent tools.

    With no TOOL, every detected tool: claude, codex, gemini, cursor, opencode (config folder
    present or binary on PATH). It says, per part, whether it was added, updated or unchanged;
    each file it rewrites is backed up first, and it prints where the copy went. Running it
    again changes nothing.

    \b
    Example:
      kenning install
      kenning install claude codex
    """
    home = resolve_user_home(user_home)
    agents = chosen(tools, home, ctx.env.get("PATH"))
    if not agents:
        if as_json:
            emit_json([])
            return
        click.echo("no agent tool found under " + str(home) + "; name one, e.g.: kenning install claude")
        return
    installer = Installer(home, ctx.settings.home, ctx.clock.now())
    exe = _executable()
    reports = [(agent, installer.install(agent, exe, {}, force=force)) for agent in agents]
    if as_json:
        emit_json([r.as_dict() for _agent, r in reports])
        return
    _say(reports)
    if any(r.changed for _agent, r in reports):
        click.echo("restart the agent tools (or start a new session) to load kenning; check with: kenning doctor")
    else:
        click.echo("nothing changed: kenning was already installed as it is now")


def _say(reports: list[tuple[Agent, Report]]) -> None:
    for agent, report in reports:
        click.echo(f"{agent.label}:")
        for line in report.lines:
            click.echo(f"  {line}")


@click.command("uninstall")
@click.argument("tools", nargs=-1)
@_home_options
@click.option("--force", is_flag=True, help="Also remove kenning entries that were edited by hand.")
@click.option("--json", "as_json", is_flag=True, help="Print what changed as JSON.")
@pass_ctx
def uninstall_cmd(ctx: CliContext, tools: tuple[str, ...], user_home: Path | None, force: bool, as_json: bool) -> None:
    """Remove what kenning installed, keeping everything else (including your later edits).

    Each file it rewrites is backed up first (under install-backups/ in the data folder).

    \b
    Example:
      kenning uninstall
      kenning uninstall gemini
    """
    home = resolve_user_home(user_home)
    installer = Installer(home, ctx.settings.home, ctx.clock.now())
    agents = chosen(tools, home, None) if tools else [a for a in AGENTS if installer.ledger.tool(a.name)]
    if not agents:
        if as_json:
            emit_json([])
            return
        click.echo("kenning is not installed in any agent tool")
        return
    reports = [(agent, installer.uninstall(agent, force=force)) for agent in agents]
    if as_json:
        emit_json([r.as_dict() for _agent, r in reports])
        return
    _say(reports)
    for _agent, report in reports:
        for path, copy in report.backups.items():
            click.echo(f"backed up {path} to {copy}")


@click.command("doctor")
@_home_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@pass_ctx
def doctor_cmd(ctx: CliContext, user_home: Path | None, as_json: bool) -> None:
    """One line per agent tool: registered or not, and whether its kenning command runs.

    \b
    Example:
      kenning doctor
      kenning doctor --json
    """
    from kenning import store as stores

    home = resolve_user_home(user_home)
    store = stores.check(ctx.settings)
    ledger = Ledger(ctx.settings.home)
    checks = [check(a, home, ledger, ctx.env.get("PATH")) for a in AGENTS]
    if as_json:
        emit_json([{"tool": "store", **store._asdict()}, *(c.__dict__ for c in checks)])
        return
    click.echo(f"Store: {store.state} ({store.detail}) — {store.path}" + (f"\n  fix: {store.fix}" if store.fix and
                                                                          store.state != "missing" else ""))  # fmt: skip
    for c in checks:
        click.echo(c.line())
