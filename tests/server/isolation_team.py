"""The accounts, workspaces and device tokens the isolation tests send requests and probes
with: members, a viewer, a member of two workspaces, tokens good, expired, revoked, not yet
expired, and scoped to a workspace their account is not a member of."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from kenning.server.auth import new_token, token_hash
from kenning.store.server.postgres import PostgresServerStore
from kenning.store.server.protocol import Role

WORKSPACES = ("acme", "beta", "gamma")  # gamma exists, with no member among the tokens' accounts but erin


@dataclass(frozen=True)
class Token:
    name: str
    secret: str
    account: str
    scope: tuple[str, ...]
    good: bool  # neither revoked nor expired
    device: str = ""


def isolation_team(store: PostgresServerStore) -> tuple[dict[str, str], list[Token]]:
    """alice (owner), bob (member) and carol (viewer) of acme; dave (owner) and carol (member)
    of beta; erin alone in gamma; their tokens. The account ids by name, and the tokens."""
    now = datetime.now(UTC)
    ids = {n: store.add_account(n, now).id for n in ("alice", "bob", "carol", "dave", "erin")}
    store.add_workspace("acme", "Acme", ids["alice"], now)
    store.set_member("acme", ids["bob"], Role.MEMBER)
    store.set_member("acme", ids["carol"], Role.VIEWER)
    store.add_workspace("beta", "Beta", ids["dave"], now)
    store.set_member("beta", ids["carol"], Role.MEMBER)
    store.add_workspace("gamma", "Gamma", ids["erin"], now)
    specs = [
        ("alice", "alice", ("acme",), None, False), ("alice-expired", "alice", ("acme",), now - timedelta(hours=1), False),
        ("alice-revoked", "alice", ("acme",), None, True), ("bob", "bob", ("acme",), None, False),
        ("bob-beta-scope", "bob", ("beta",), None, False), ("carol", "carol", ("acme", "beta"), None, False),
        ("dave", "dave", ("beta",), None, False), ("dave-acme-scope", "dave", ("acme", "beta"), None, False),
        ("erin", "erin", ("gamma",), None, False), ("erin-late", "erin", ("gamma",), now + timedelta(days=1), False),
    ]  # fmt: skip
    tokens = []
    for name, who, scope, expires, revoked in specs:
        secret = new_token()
        device = store.add_device(ids[who], name, scope, token_hash(secret), now, expires_at=expires)
        if revoked:
            store.revoke_device(device.id, now)
        tokens.append(Token(name, secret, ids[who], scope, not revoked and (expires is None or expires > now), device.id))
    return ids, tokens
