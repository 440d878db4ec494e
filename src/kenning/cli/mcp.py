"""``kenning mcp``: serve kenning's MCP tools over stdio (default) or streamable HTTP."""

from __future__ import annotations

import os

import click

from kenning.cli.context import CliContext, pass_ctx


@click.command("mcp")
@click.option("--http", "http", is_flag=True, help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535), help="HTTP port.")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP address to bind (local only by default).")
@pass_ctx
def mcp_cmd(ctx: CliContext, http: bool, port: int, host: str) -> None:
    """Run kenning's MCP server (agent tools start this; see: kenning install).

    Over stdio the project defaults to $CLAUDE_PROJECT_DIR (or $GEMINI_PROJECT_DIR), else the
    folder the agent tool started it in; tools take cwd to name another.

    \b
    Example:
      kenning mcp
      kenning mcp --http --port 8765
    """
    from kenning.mcp.kit import env_default_cwd
    from kenning.mcp.server import build_server, run

    # An HTTP server is shared by many folders: only an explicit project env var sets its default.
    default = env_default_cwd(os.environ) or (None if http else os.getcwd())
    run(build_server(ctx.settings, clock=ctx.clock, default_cwd=default), http=http, host=host, port=port)
