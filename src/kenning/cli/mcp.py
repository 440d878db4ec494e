"""``kenning mcp``: serve kenning's MCP tools over stdio (default) or streamable HTTP."""

from __future__ import annotations

import os

import click

from kenning.cli.context import CliContext, pass_ctx
from kenning.mcp.groups import DEFAULT, HELP, parse


@click.command("mcp")
@click.option("--http", "http", is_flag=True, help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535), help="HTTP port.")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP address to bind (local only by default).")
@click.option("--point-at-recall", is_flag=True,
              help="Tell every session to call recall at the start of a task. For agent tools without "
                   "kenning's hooks (kenning install adds it for Cursor and OpenCode); where the hooks run, "
                   "they do the pointing and leave the holdout sessions alone.")  # fmt: skip
@click.option("--tools", "tool_groups", default=",".join(DEFAULT), show_default=True, metavar="GROUP,...",
              help=f"Which tools to offer, by group (or all). {HELP}.")
@pass_ctx
def mcp_cmd(ctx: CliContext, http: bool, port: int, host: str, point_at_recall: bool, tool_groups: str) -> None:
    """Run kenning's MCP server (agent tools start this; see: kenning install).

    Over stdio the project defaults to $CLAUDE_PROJECT_DIR (or $GEMINI_PROJECT_DIR), else the
    folder the agent tool started it in; tools take cwd to name another. By default it offers
    the core tools every session needs (recall, remember, get_memory, list_memories,
    propose_memory_change, search_sessions); --tools adds groups, e.g. core,work,sessions.

    \b
    Example:
      kenning mcp
      kenning mcp --point-at-recall
      kenning mcp --tools core,sessions,work
      kenning mcp --http --port 8765

    Claude Code, Codex and Gemini CLI run the first (kenning's hooks point sessions at
    recall); Cursor and OpenCode, which have no hooks, the second.
    """
    from kenning.mcp.kit import env_default_cwd
    from kenning.mcp.server import build_server, run

    # An HTTP server is shared by many folders: only an explicit project env var sets its default.
    default = env_default_cwd(os.environ) or (None if http else os.getcwd())
    chosen = parse(tool_groups)  # before the server starts: a wrong group is an error, not a quiet default
    server = build_server(ctx.settings, clock=ctx.clock, default_cwd=default, point_at_recall=point_at_recall,
                          tools=chosen)  # fmt: skip
    run(server, http=http, host=host, port=port)
