"""``kenning ui``: open the web app over the local store, or (``--server``) the team server's."""

from __future__ import annotations

import click

from kenning.cli.common import json_option
from kenning.cli.context import CliContext, emit_json, pass_ctx


@click.command("ui")
@click.option("--port", type=int, default=0, help="Port on 127.0.0.1 (default: a free one).")
@click.option("--no-open", is_flag=True, help="Print the address only; do not open a browser.")
@click.option("--server", "on_server", is_flag=True,
              help="Open the team server's pages instead (this machine must be logged in: kenning login).")  # fmt: skip
@json_option
@pass_ctx
def ui_cmd(ctx: CliContext, port: int, no_open: bool, on_server: bool, as_json: bool) -> None:
    """Open the web app: Memory, Needs review, the Map, Rules, Health, Sessions and the Report.

    It listens on 127.0.0.1 only, with a fresh token in the address at every launch (the
    browser trades it for a cookie). Ctrl-C stops it.

    With --server it opens the team server this machine is logged in to, on the shared
    workspaces: the server makes a sign-in link for your account, good once and for 5
    minutes, which the browser trades for a session (12 hours; "Sign out" ends it).

    \b
    Example:
      kenning ui
      kenning ui --no-open --port 8765
      kenning ui --server
    """
    if on_server:
        _open_server(ctx, no_open, as_json)
        return
    from kenning.web.local import serve  # the web stack loads only for this command

    serve(ctx.settings, port=port, open_browser=not no_open, say=click.echo)


def _open_server(ctx: CliContext, no_open: bool, as_json: bool) -> None:
    import webbrowser

    from kenning.sync import link as links
    from kenning.sync.http import HttpTransport

    current = links.require(ctx.settings.home)
    http = HttpTransport(current.server, current.token)
    try:
        answer = http.post("/api/v1/web/link", {})
    finally:
        http.close()
    url = current.server.rstrip("/") + str(answer["path"])
    if as_json:
        emit_json({"server": current.server, "url": url, "expires_in": answer["expires_in"]})
    else:
        click.echo(f"kenning on {current.server}: {url}")
        click.echo(f"The link signs one browser in, once, within {int(answer['expires_in']) // 60} minutes; keep it to yourself.")
    if not no_open:
        webbrowser.open(url)
