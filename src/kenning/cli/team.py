"""``kenning login``, ``kenning logout`` and ``kenning sync``: this machine and a team server."""

from __future__ import annotations

import time
from typing import Any

import click

from kenning.cli.common import core_of, json_option
from kenning.cli.context import CliContext, emit_json, pass_ctx
from kenning.errors import Invalid, Refused


def _client(url: str, token: str = "") -> Any:
    from kenning.sync.http import HttpTransport

    return HttpTransport(url, token)


@click.command("login")
@click.argument("url", required=False)
@click.option("--invite", default=None, help="A one-time invite token from `kenning server invite`.")
@click.option("--label", default="", help="A name for this machine in the device list (default: its host name).")
@click.option("--approve", "approve", default=None, metavar="CODE",
              help="Approve another machine's login code for your account (run on a machine already logged in).")
@click.option("--timeout", type=int, default=900, show_default=True, help="Seconds to wait for a device code's approval.")
@json_option
@pass_ctx
def login_cmd(ctx: CliContext, url: str | None, invite: str | None, label: str, approve: str | None, timeout: int,
              as_json: bool) -> None:  # fmt: skip
    """Log this machine in to a team server, so `kenning sync` shares its workspaces.

    With --invite the machine joins at once. Without it the terminal shows a short code; a
    member approves it from a machine already logged in (`kenning login --approve CODE`),
    and this one receives its device token. The token is stored in server.json in the data
    folder (mode 0600); the server keeps only its hash.

    \b
    Example:
      kenning login http://127.0.0.1:8470 --invite kinv_…
      kenning login https://kenning.example.com
      kenning login --approve K7QM-2XPA
    """
    from kenning.sync import link as links
    from kenning.sync.client import Link

    if approve:
        current = links.require(ctx.settings.home)
        http = _client(current.server, current.token)
        try:
            answer = http.post("/api/v1/login/device/approve", {"user_code": approve})
        finally:
            http.close()
        emit_json(answer) if as_json else click.echo(
            f"approved {answer['approved']} ({answer.get('label') or 'unnamed'}) for {', '.join(answer['workspaces'])}")
        return
    if not url:
        raise Invalid("no server URL given", fix="kenning login URL [--invite TOKEN]")
    if not url.startswith(("http://", "https://")):
        raise Invalid(f"{url!r} is not an http(s) URL", fix="give the server's address, e.g. https://kenning.example.com")
    import socket

    label = label or socket.gethostname()
    http = _client(url)
    try:
        if invite:
            joined = http.post("/api/v1/login/invite", {"invite": invite, "label": label})
        else:
            joined = _device_code(http, label, timeout, as_json)
    finally:
        http.close()
    link = Link(url.rstrip("/"), joined["account"], joined["account_name"], joined["device"],
                tuple(joined["workspaces"]), joined["token"])  # fmt: skip
    where = links.save(ctx.settings.home, link)
    out = {"server": link.server, "account": link.account_name, "device": link.device,
           "workspaces": list(link.workspaces), "saved": str(where)}  # fmt: skip
    if as_json:
        emit_json(out)
        return
    click.echo(f"logged in to {link.server} as {link.account_name} (device {link.device})")
    click.echo(f"workspaces synced: {', '.join(link.workspaces) or 'none'}; run: kenning sync")


def _device_code(http: Any, label: str, timeout: int, quiet: bool) -> dict[str, Any]:
    started = http.post("/api/v1/login/device", {"label": label})
    click.echo(f"code: {started['user_code']}", err=True)
    click.echo(f"ask a member to approve it on a logged-in machine: kenning login --approve {started['user_code']}",
               err=True)  # fmt: skip
    click.echo(f"  or on the server's pages: {http.base.rstrip('/')}/device?code={started['user_code']}", err=True)
    deadline = time.monotonic() + min(timeout, int(started["expires_in"]))
    while time.monotonic() < deadline:
        try:
            joined: dict[str, Any] = http.post("/api/v1/login/device/token", {"device_code": started["device_code"]})
            return joined
        except Refused as exc:
            if "authorization_pending" not in exc.message:
                raise
        time.sleep(int(started.get("interval", 2)))
    raise Refused("no one approved the code in time", fix="run kenning login again")


@click.command("logout")
@json_option
@pass_ctx
def logout_cmd(ctx: CliContext, as_json: bool) -> None:
    """Revoke this machine's device token on the server and forget the login here.

    Local memory stays as it is; nothing is synced until the next `kenning login`.

    \b
    Example:
      kenning logout
    """
    from kenning import store
    from kenning.sync import link as links

    current = links.require(ctx.settings.home)
    revoked, note = False, ""
    http = _client(current.server, current.token)
    try:
        revoked = bool(http.post("/api/v1/logout", {}).get("revoked"))
    except Refused as exc:
        note = f"the server did not revoke the token ({exc.message}); an admin can: kenning server revoke {current.device}"
    finally:
        http.close()
    links.remove(ctx.settings.home)
    store.sync_state(core_of(ctx).stores).forget_server(current.server)
    if as_json:
        emit_json({"server": current.server, "device": current.device, "revoked": revoked, "note": note})
        return
    click.echo(f"logged out of {current.server} (device {current.device}{' revoked' if revoked else ''})")
    if note:
        click.echo(f"warning: {note}", err=True)


@click.command("sync")
@click.option("--batch", type=click.IntRange(1, 200), default=200, show_default=True, help="Records per push.")
@json_option
@pass_ctx
def sync_cmd(ctx: CliContext, batch: int, as_json: bool) -> None:
    """Push what changed here to the team server, then pull what others wrote.

    What travels: memories with their history, decision docs, reviews, graph facts, diary
    entries, values and captured sessions (already redacted; a long session goes in parts).
    Pulled records join the local store beside your own.

    Only the workspaces the server lists for this machine travel; every other workspace never
    leaves it. Safe to stop at any point: the next sync resumes with nothing lost or doubled.
    (Capturing agent transcripts is `kenning sessions sync`.)

    \b
    Example:
      kenning sync
      kenning sync --json
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from kenning import store
    from kenning.sync import link as links
    from kenning.sync.client import SyncClient

    current = links.require(ctx.settings.home)
    core = core_of(ctx)
    http = _client(current.server, current.token)
    client = SyncClient(core.stores, store.sync_state(core.stores), http, current, core.now, batch_items=batch)
    try:
        if as_json:
            reports = client.sync()
        else:
            with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), transient=True) as bar:
                tasks: dict[str, Any] = {}

                def show(stage: str, done: int, total: int) -> None:
                    if stage not in tasks:
                        tasks[stage] = bar.add_task(stage, total=total)
                    bar.update(tasks[stage], completed=done, total=total)

                reports = client.sync(show)
    finally:
        http.close()
    if as_json:
        emit_json({"server": current.server, "workspaces": [r.as_dict() for r in reports]})
        return
    for r in reports:
        click.echo(f"{r.workspace}: pushed {r.pushed}, strengthened {r.strengthened}, held for review {r.held_for_review},"
                   f" pulled {r.pulled}, removed {r.removed}")  # fmt: skip
        for refusal in r.refused:
            click.echo(f"  refused {refusal['key']}: {refusal.get('message', refusal.get('code', ''))}", err=True)
