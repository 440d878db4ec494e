"""``kenning mcp --http`` lets in only who holds its token, from the hosts it was told to expect.

Over stdio only the agent tool that started the server can talk to it. Over HTTP anything that
reaches the port could, a web page too (DNS rebinding: a name that resolves to 127.0.0.1).
So the HTTP server requires ``Authorization: Bearer <token>`` on every request — the token is
made at the first start, kept in the data folder (``mcp-token``, 0600) and shown by ``kenning
mcp token`` — and checks the Host and Origin headers against the hosts it serves, whatever
``--host`` is (the MCP SDK turns those checks off for any host but loopback unless it is given
the list). Both through the SDK's own settings: its bearer-token middleware with a verifier
for this one token, and its transport-security settings.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Sequence
from pathlib import Path

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings

from kenning import private

TOKEN_FILE = "mcp-token"
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
# Bound to every interface: the Host header carries a name or address only the user knows.
ANY = ("0.0.0.0", "::", "")


def token_path(home: Path) -> Path:
    return home / TOKEN_FILE


def token(home: Path) -> str:
    """The HTTP server's token, made (and kept, 0600) the first time it is asked for."""
    path = token_path(home)
    try:
        found = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        found = ""
    if found:
        private.tighten(path, private.FILE_MODE)
        return found
    private.folder(home)
    made = secrets.token_urlsafe(32)
    private.write(path, (made + "\n").encode())
    return made


class StaticToken:
    """The SDK's ``TokenVerifier`` for one shared secret (compared in constant time)."""

    def __init__(self, expected: str) -> None:
        self.expected = expected

    async def verify_token(self, presented: str) -> AccessToken | None:
        if hmac.compare_digest(presented.encode(), self.expected.encode()):
            return AccessToken(token=presented, client_id="kenning", scopes=[])
        return None


def auth_settings(port: int) -> AuthSettings:
    # No authorization server and no resource metadata: a static bearer token, checked by
    # the SDK's RequireAuthMiddleware. The issuer URL is required by the model, never served.
    return AuthSettings(issuer_url=f"http://127.0.0.1:{port}", resource_server_url=None)  # type: ignore[arg-type]


def _host(name: str) -> str:
    return f"[{name}]" if ":" in name and not name.startswith("[") else name


def transport_security(host: str, allowed: Sequence[str] = ()) -> TransportSecuritySettings:
    """Host/Origin checks for every bound host: loopback names, the bound address itself
    (unless it is every interface), and the names given with ``--allow-host``."""
    names = list(LOOPBACK)
    if host not in ANY:
        names.append(_host(host))
    names += [_host(h.strip()) for h in allowed if h.strip()]
    names = list(dict.fromkeys(names))
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{n}:*" for n in names] + names,
        allowed_origins=[f"{scheme}://{n}:*" for n in names for scheme in ("http", "https")]
        + [f"{scheme}://{n}" for n in names for scheme in ("http", "https")],
    )
