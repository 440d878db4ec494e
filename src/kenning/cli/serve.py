"""``kenning serve`` and ``kenning server …``: run the team server and manage its accounts,
workspaces, invites and devices (on the server's machine, straight on its database)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import click

from kenning.cli.common import json_option
from kenning.cli.context import CliContext, emit_json, pass_ctx
from kenning.errors import Invalid, NotFound

DATABASE_HELP = "PostgreSQL URL (postgresql://…); default: the embedded PostgreSQL in the data folder."


def _dsn(ctx: CliContext, database: str | None) -> tuple[str, Any]:
    if database:
        if not database.startswith(("postgresql://", "postgres://")):
            raise Invalid(f"--database {database!r} is not a PostgreSQL URL", fix="give postgresql://USER@HOST/DB")
        return database, None
    from kenning.store.server import embedded_database

    return embedded_database(ctx.settings.home)


@contextmanager
def _store(ctx: CliContext, database: str | None) -> Iterator[Any]:
    dsn, handle = _dsn(ctx, database)
    from kenning.store.server import open_server_store

    try:
        store = open_server_store(dsn, max_size=2)
    except ImportError as exc:
        from kenning.errors import Refused

        raise Refused("the team server needs its extra dependencies", fix="pip install 'kenning[server]'") from exc
    try:
        yield store
    finally:
        store.close()
        if handle is not None:
            handle.cleanup()


def database_option(fn: Any) -> Any:
    return click.option("--database", default=None, metavar="URL", help=DATABASE_HELP)(fn)


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=int, default=8470, show_default=True)
@database_option
@click.option("--behind-proxy", is_flag=True, help="A TLS-terminating reverse proxy is in front (allows a non-loopback host).")
@click.option("--tls-cert", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None)
@click.option("--tls-key", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None)
@pass_ctx
def serve_cmd(ctx: CliContext, host: str, port: int, database: str | None, behind_proxy: bool,
              tls_cert: Path | None, tls_key: Path | None) -> None:  # fmt: skip
    """Run the team server: sync, accounts and devices, the REST API (docs/server.md).

    With no --database it starts an embedded PostgreSQL in the data folder. It listens on
    127.0.0.1; another address needs --behind-proxy (TLS at the proxy) or --tls-cert and
    --tls-key. Health: /healthz and /readyz; the API's schema: /api/v1/openapi.json. Ctrl-C
    (or SIGTERM) lets running requests finish, then stops.

    \b
    Example:
      kenning serve
      kenning serve --host 0.0.0.0 --behind-proxy --database postgresql://kenning@db/kenning
    """
    from kenning.server.run import Bind, check_bind, check_port, serve

    bind = Bind(host, port, behind_proxy, tls_cert, tls_key)
    check_bind(bind)  # before starting a database for nothing
    check_port(bind)
    dsn, handle = _dsn(ctx, database)
    try:
        serve(dsn, bind, say=lambda line: click.echo(line, err=True))
    finally:
        if handle is not None:
            handle.cleanup()


SERVER_GROUP_HELP = """Manage the team server: accounts, workspaces and members, invites, devices.

Run these on the server's machine (they use its database directly: the embedded one in the
data folder, or --database). A machine joins with `kenning login`.

\b
Example:
  kenning server add-user alice
  kenning server workspace-add acme --owner alice
  kenning server invite alice --workspace acme
"""


@click.group("server", help=SERVER_GROUP_HELP)
def server_group() -> None:
    pass


@server_group.command("add-user")
@click.argument("name")
@database_option
@json_option
@pass_ctx
def add_user(ctx: CliContext, name: str, database: str | None, as_json: bool) -> None:
    """Add an account.

    \b
    Example:
      kenning server add-user alice
    """
    with _store(ctx, database) as store:
        if store.account(name) is not None:
            raise Invalid(f"an account named {name!r} exists", fix="pick another name, or list them: kenning server users")
        acc = store.add_account(name, ctx.clock.now())
    emit_json({"id": acc.id, "name": acc.name}) if as_json else click.echo(f"added account {acc.name} ({acc.id})")


@server_group.command("users")
@database_option
@json_option
@pass_ctx
def users(ctx: CliContext, database: str | None, as_json: bool) -> None:
    """List accounts and the workspaces each belongs to.

    \b
    Example:
      kenning server users --json
    """
    with _store(ctx, database) as store:
        rows = [{"id": a.id, "name": a.name, "workspaces": [w.slug for w in store.workspaces(a.id)],
                 "roles": {w.slug: _role_name(store.role(w.slug, a.id)) for w in store.workspaces(a.id)}}
                for a in store.accounts()]  # fmt: skip
    if as_json:
        emit_json(rows)
        return
    for r in rows:
        where = ", ".join(f"{ws} ({r['roles'][ws]})" for ws in r["workspaces"])
        click.echo(f"{r['name']:<20} {r['id']}  {where or '-'}")


@server_group.command("workspace-add")
@click.argument("slug")
@click.option("--owner", required=True, help="The account that owns it.")
@click.option("--name", default="", help="A display name (default: the slug).")
@database_option
@json_option
@pass_ctx
def workspace_add(ctx: CliContext, slug: str, owner: str, name: str, database: str | None, as_json: bool) -> None:
    """Add a shared workspace (its slug is the local workspace name machines sync).

    \b
    Example:
      kenning server workspace-add acme --owner alice
    """
    import re

    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}", slug):
        raise Invalid(f"workspace {slug!r} is not a slug", fix="letters, digits, '.', '_' and '-', starting with a letter or digit")
    with _store(ctx, database) as store:
        acc = _account(store, owner)
        if slug in {w.slug for w in store.workspaces()}:
            raise Invalid(f"a workspace {slug!r} exists", fix="pick another slug, or add members: kenning server member")
        store.add_workspace(slug, name or slug, acc.id, ctx.clock.now())
    if as_json:
        emit_json({"workspace": slug, "name": name or slug, "owner": acc.name})
        return
    click.echo(f"added workspace {slug}, owned by {acc.name}")


@server_group.command("member")
@click.argument("workspace")
@click.argument("account")
@click.option("--role", type=click.Choice(["owner", "member", "viewer"]), default="member", show_default=True)
@click.option("--remove", is_flag=True, help="Take the account out of the workspace.")
@database_option
@json_option
@pass_ctx
def member(ctx: CliContext, workspace: str, account: str, role: str, remove: bool, database: str | None,
           as_json: bool) -> None:  # fmt: skip
    """Add an account to a workspace with a role (owner, member, viewer), or remove it.

    \b
    Example:
      kenning server member acme bob --role viewer
    """
    from kenning.store.server.protocol import Role

    with _store(ctx, database) as store:
        acc = _account(store, account)
        if workspace not in {w.slug for w in store.workspaces()}:
            raise NotFound(f"no workspace {workspace!r}", fix="add it: kenning server workspace-add")
        if remove:
            store.remove_member(workspace, acc.id)
        else:
            store.set_member(workspace, acc.id, Role(role))
    if as_json:
        emit_json({"workspace": workspace, "account": acc.name, "role": None if remove else role})
        return
    click.echo(f"{acc.name} left {workspace}" if remove else f"{acc.name} is {role} of {workspace}")


@server_group.command("invite")
@click.argument("account")
@click.option("--workspace", "workspaces", multiple=True, required=True, help="A workspace the device may sync (repeatable).")
@click.option("--hours", type=click.IntRange(1, 24 * 14), default=24, show_default=True, help="How long the invite stays good.")
@database_option
@json_option
@pass_ctx
def invite(ctx: CliContext, account: str, workspaces: tuple[str, ...], hours: int, database: str | None, as_json: bool) -> None:
    """Make a one-time invite token for ACCOUNT's next machine (shown once).

    \b
    Example:
      kenning server invite alice --workspace acme
    """
    from kenning.server.auth import INVITE_PREFIX, new_token, token_hash

    with _store(ctx, database) as store:
        acc = _account(store, account)
        for ws in workspaces:
            if store.role(ws, acc.id) is None:
                raise Invalid(f"{acc.name} is not a member of {ws!r}", fix=f"first: kenning server member {ws} {acc.name}")
        token = new_token(INVITE_PREFIX)
        now = ctx.clock.now()
        store.add_invite(acc.id, list(workspaces), token_hash(token), now, now + timedelta(hours=hours))
    if as_json:
        emit_json({"invite": token, "account": acc.name, "workspaces": list(workspaces), "hours": hours})
        return
    click.echo(f"invite for {acc.name} ({', '.join(workspaces)}), good for {hours} h, usable once:")
    click.echo(f"  kenning login URL --invite {token}")


@server_group.command("devices")
@click.option("--account", default=None, help="Only this account's devices.")
@database_option
@json_option
@pass_ctx
def devices(ctx: CliContext, account: str | None, database: str | None, as_json: bool) -> None:
    """List device tokens: account, label, workspaces, last seen, revoked (never the token).

    \b
    Example:
      kenning server devices --account alice
    """
    with _store(ctx, database) as store:
        acc = _account(store, account) if account else None
        names = {a.id: a.name for a in store.accounts()}
        rows = store.devices(acc.id if acc else None)
    out = [{"id": d.id, "account": names.get(d.account, d.account), "label": d.label, "workspaces": list(d.workspaces),
            "created_at": d.created_at.isoformat(), "last_seen_at": d.last_seen_at.isoformat() if d.last_seen_at else None,
            "revoked_at": d.revoked_at.isoformat() if d.revoked_at else None} for d in rows]  # fmt: skip
    if as_json:
        emit_json(out)
        return
    for d in out:
        state = "revoked" if d["revoked_at"] else f"last seen {d['last_seen_at'] or 'never'}"
        click.echo(f"{d['id']}  {d['account']:<12} {d['label']:<20} {','.join(d['workspaces']):<20} {state}")


@server_group.command("revoke")
@click.argument("device_id")
@database_option
@json_option
@pass_ctx
def revoke(ctx: CliContext, device_id: str, database: str | None, as_json: bool) -> None:
    """Revoke a device token at once (its next request gets 401).

    \b
    Example:
      kenning server revoke dev_3f2a91c04b7e
    """
    with _store(ctx, database) as store:
        if store.device(device_id) is None:
            raise NotFound(f"no device {device_id}", fix="list them: kenning server devices")
        done = store.revoke_device(device_id, ctx.clock.now())
    if as_json:
        emit_json({"device": device_id, "revoked": True, "already": not done})
        return
    click.echo(f"revoked {device_id}" if done else f"{device_id} was already revoked")


def _role_name(role: Any) -> str:
    return str(role.value) if role is not None else "-"


def _account(store: Any, name: str) -> Any:
    acc = store.account(name)
    if acc is None:
        raise NotFound(f"no account {name!r}", fix="add it: kenning server add-user NAME")
    return acc
