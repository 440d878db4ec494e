"""``kenning hook <tool> <event>``: run one agent hook (installs point at ``kenning-hook``,
which starts faster; this command hands over to the same entry point)."""

from __future__ import annotations

import os
import sys

import click

from kenning.cli.context import CliContext, pass_ctx


@click.command("hook", context_settings={"ignore_unknown_options": True})
@click.argument("tool")
@click.argument("event", required=False, default="")
@pass_ctx
def hook_cmd(ctx: CliContext, tool: str, event: str) -> None:
    """Run the hook for TOOL (claude-code, codex, gemini) and EVENT, reading its payload on stdin.

    Always exits 0; a hook that fails logs to hook-errors.log in the data folder."""
    env = dict(os.environ, KENNING_HOME=str(ctx.settings.home))
    # A process, not an import: interfaces never import each other, and the hook entry point
    # is the one place that reads the hook environment.
    os.execve(sys.executable, [sys.executable, "-m", "kenning.hooks.main", tool, event], env)


def register(group: click.Group) -> None:
    group.add_command(hook_cmd)
