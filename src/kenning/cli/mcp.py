"""``kenning mcp``: serve kenning's MCP tools over stdio (default) or streamable HTTP."""

from __future__ import annotations

import os

import click

from kenning.cli.context import CliContext, emit_json, pass_ctx
from kenning.mcp.groups import DEFAULT, HELP, parse


@click.group("mcp", invoke_without_command=True)
@click.option("--http", "http", is_flag=True,
              help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio; every request must carry the "
                   "token `kenning mcp token` shows (Authorization: Bearer …).")  # fmt: skip
@click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535), help="HTTP port.")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP address to bind (local only by default).")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME",
              help="A host name or address clients reach the HTTP server by (Host and Origin are checked against "
                   "loopback, the bound address and these). Repeat for several.")  # fmt: skip
@click.option("--point-at-recall", is_flag=True,
              help="Tell every session to call recall at the start of a task. For agent tools without "
                   "kenning's hooks (kenning install adds it for Cursor and OpenCode); where the hooks run, "
                   "they do the pointing and leave the holdout sessions alone.")  # fmt: skip
@click.option("--tools", "tool_groups", default=",".join(DEFAULT), show_default=True, metavar="GROUP,...",
              help=f"Which tools to offer, by group (or all). {HELP}.")
@click.option("--remote", "remote", default=None, metavar="URL",
              help="Serve the memory tools (recall, recall_workspaces, remember, get_memory, list_memories, "
                   "memory_health) from the team server at URL, for a machine that keeps no store; uses the "
                   "device token of `kenning login URL`. Stdio only.")  # fmt: skip
@click.pass_context
def mcp_cmd(click_ctx: click.Context, http: bool, port: int, host: str, allow_hosts: tuple[str, ...],
            point_at_recall: bool, tool_groups: str, remote: str | None) -> None:  # fmt: skip
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
      kenning mcp token
      kenning mcp --remote https://kenning.example.com

    Claude Code, Codex and Gemini CLI run the first (kenning's hooks point sessions at
    recall); Cursor and OpenCode, which have no hooks, the second.
    """
    if click_ctx.invoked_subcommand is not None:
        return  # `kenning mcp token`: no server
    ctx: CliContext = click_ctx.find_object(CliContext)  # type: ignore[assignment]
    from kenning.mcp.kit import env_default_cwd
    from kenning.mcp.server import build_server, run

    # An HTTP server is shared by many folders: only an explicit project env var sets its default.
    default = env_default_cwd(os.environ) or (None if http else os.getcwd())
    if remote is not None:
        _serve_remote(ctx, remote, http=http, default_cwd=default)
        return
    chosen = parse(tool_groups)  # before the server starts: a wrong group is an error, not a quiet default
    token = None
    if http:
        from kenning.mcp.auth import token as http_token

        token = http_token(ctx.settings.home)
        click.echo(f"kenning MCP over HTTP at http://{host}:{port}/mcp; clients send the header "
                   f"'Authorization: Bearer <token>' (the token: kenning mcp token)", err=True)  # fmt: skip
    server = build_server(ctx.settings, clock=ctx.clock, default_cwd=default, point_at_recall=point_at_recall,
                          tools=chosen, http_token=token, http_port=port)  # fmt: skip
    run(server, http=http, host=host, port=port, allowed_hosts=allow_hosts)


@mcp_cmd.command("token")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@pass_ctx
def token_cmd(ctx: CliContext, as_json: bool) -> None:
    """Show the token `kenning mcp --http` requires (made the first time, kept 0600 in the data folder).

    \b
    Example:
      kenning mcp token
      curl -H "Authorization: Bearer $(kenning mcp token)" http://127.0.0.1:8765/mcp
    """
    from kenning.mcp.auth import token, token_path

    value = token(ctx.settings.home)
    if as_json:
        emit_json({"token": value, "path": str(token_path(ctx.settings.home)), "header": f"Authorization: Bearer {value}"})
    else:
        click.echo(value)


def _serve_remote(ctx: CliContext, url: str, *, http: bool, default_cwd: str | None) -> None:
    from kenning.errors import Invalid
    from kenning.mcp.remote import build_remote_server
    from kenning.sync import link

    if http:
        raise Invalid("--remote serves stdio only", fix="drop --http (agent tools start kenning mcp --remote URL themselves)")
    login = link.require(ctx.settings.home)
    if login.server.rstrip("/") != url.rstrip("/"):
        raise Invalid(f"this machine is logged in to {login.server}, not {url}",
                      fix=f"run: kenning login {url}  (or pass --remote {login.server})")  # fmt: skip
    if not login.workspaces:
        raise Invalid(f"this device's token lists no workspace on {login.server}",
                      fix="ask a workspace owner to add you, then run kenning login again")  # fmt: skip
    workspace = ctx.settings.workspace if ctx.settings.workspace in login.workspaces else login.workspaces[0]
    build_remote_server(login, workspace, default_cwd=default_cwd).run()
