"""``kenning hook <tool> <event>``: run one agent hook (installs point at ``kenning-hook``,
which starts faster; this command hands over to the same entry point)."""

from __future__ import annotations

import os
import sys

import click

from kenning.cli.context import CliContext, pass_ctx
from kenning.clock import FixedClock, to_iso


@click.command("hook", context_settings={"ignore_unknown_options": True})
@click.argument("tool")
@click.argument("event", required=False, default="")
@pass_ctx
def hook_cmd(ctx: CliContext, tool: str, event: str) -> None:
    """Run the hook for TOOL (claude-code, codex, gemini) and EVENT, reading its payload on stdin.

    Agent tools run this (kenning install registers the faster `kenning-hook`). Always exits
    0; a hook that fails logs to hook-errors.log in the data folder.

    \b
    Example:
      kenning hook claude-code SessionStart < payload.json
    """
    env = dict(os.environ, KENNING_HOME=str(ctx.settings.home))
    if isinstance(ctx.clock, FixedClock):  # --now reaches the hook process as KENNING_NOW
        env["KENNING_NOW"] = to_iso(ctx.clock.now())
    # A process, not an import: interfaces never import each other, and the hook entry point
    # is the one place that reads the hook environment.
    os.execve(sys.executable, [sys.executable, "-m", "kenning.hooks.main", tool, event], env)
