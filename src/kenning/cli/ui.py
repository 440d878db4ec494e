"""``kenning ui``: open the web app over the local store."""

from __future__ import annotations

import click

from kenning.cli.context import CliContext, pass_ctx


@click.command("ui")
@click.option("--port", type=int, default=0, help="Port on 127.0.0.1 (default: a free one).")
@click.option("--no-open", is_flag=True, help="Print the address only; do not open a browser.")
@pass_ctx
def ui_cmd(ctx: CliContext, port: int, no_open: bool) -> None:
    """Open the web app: Memory, Needs review, the Map, Rules, Health, Sessions and the Report.

    It listens on 127.0.0.1 only, with a fresh token in the address at every launch (the
    browser trades it for a cookie). Ctrl-C stops it.

    \b
    Example:
      kenning ui
      kenning ui --no-open --port 8765
    """
    from kenning.web.local import serve  # the web stack loads only for this command

    serve(ctx.settings, port=port, open_browser=not no_open, say=click.echo)
