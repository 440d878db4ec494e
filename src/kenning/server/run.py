"""Running the team server: the bind rules, uvicorn, and a graceful stop.

A token travels in every request, so the server listens on loopback unless it is told that a
TLS-terminating proxy is in front (``behind_proxy``) or it is given a certificate: a device
token must never cross a network in clear text.
"""

from __future__ import annotations

import ipaddress
import logging
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kenning.errors import Refused
from kenning.server.app import JsonFormatter, Limits, PagesConfig, create_server_app

GRACE_SECONDS = 30


@dataclass(frozen=True)
class Bind:
    host: str = "127.0.0.1"
    port: int = 8470
    behind_proxy: bool = False
    tls_cert: Path | None = None
    tls_key: Path | None = None

    @property
    def tls(self) -> bool:
        return self.tls_cert is not None and self.tls_key is not None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(bind: Bind) -> None:
    """Refuse a bind that would put device tokens on a network in clear text."""
    if (bind.tls_cert is None) != (bind.tls_key is None):
        raise Refused("--tls-cert and --tls-key go together", fix="give both, or neither")
    if not is_loopback(bind.host) and not (bind.behind_proxy or bind.tls):
        raise Refused(
            f"kenning serve will not listen on {bind.host} without TLS: every request carries a device token,"
            " which anyone on the network could read in clear text",
            fix="put a TLS-terminating reverse proxy in front and pass --behind-proxy (docs/server.md),"
            " or pass --tls-cert and --tls-key, or keep the default 127.0.0.1",
        )


def check_port(bind: Bind) -> None:
    """Refuse, before a database is started for nothing, a port something else listens on."""
    import socket

    family = socket.AF_INET6 if ":" in bind.host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind((bind.host, bind.port))
        except OSError as exc:
            raise Refused(f"kenning serve cannot listen on {bind.host}:{bind.port}: {exc.strerror or exc}",
                          fix="pick another port with --port, or stop what listens there") from exc  # fmt: skip


def setup_logging() -> None:
    """One JSON object a line on stderr, for kenning's events and uvicorn's own (its start and
    stop, a bind that failed, an exception a request raised, with its traceback as ``error``):
    without a handler of ours uvicorn's lines were plain text, or lost."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    for name in ("kenning.server", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(logging.INFO)
        logger.propagate = False


def pages_config(bind: Bind) -> PagesConfig:
    """The web app's settings for this bind: cookies Secure under TLS (here or at a proxy);
    on loopback without a proxy the pages answer only loopback Host names (no DNS rebinding)."""
    from kenning.web.app import LOCAL_HOSTS

    local = is_loopback(bind.host) and not bind.behind_proxy
    return PagesConfig(secure=bind.tls or bind.behind_proxy, hosts=tuple(LOCAL_HOSTS) if local else ())


def _exit_once(*_: object) -> None:
    # A second SIGTERM (an impatient operator, a supervisor repeating itself) must not cut the
    # cleanup short: the pool and an embedded PostgreSQL are closed after this one.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sys.exit(0)


def serve(dsn: str, bind: Bind, *, say: Callable[[str], None], limits: Limits = Limits()) -> None:
    """Migrate, open the pool and serve until SIGINT/SIGTERM; then stop taking connections, let
    running requests finish (up to GRACE_SECONDS) and close the pool."""
    import uvicorn

    from kenning.store.server import open_server_store

    check_bind(bind)
    setup_logging()
    store = open_server_store(dsn)
    try:
        app = create_server_app(store, limits=limits, pages=pages_config(bind))
        config = uvicorn.Config(
            app, host=bind.host, port=bind.port, log_config=None, access_log=False, lifespan="on",
            proxy_headers=bind.behind_proxy, forwarded_allow_ips="127.0.0.1" if bind.behind_proxy else None,
            timeout_graceful_shutdown=GRACE_SECONDS,
            ssl_certfile=str(bind.tls_cert) if bind.tls_cert else None,
            ssl_keyfile=str(bind.tls_key) if bind.tls_key else None,
        )  # fmt: skip
        # uvicorn stops gracefully on SIGTERM, then raises the signal again so the process
        # dies of it; a stop that went as planned should exit 0, as Ctrl-C does.
        signal.signal(signal.SIGTERM, _exit_once)
        say(f"kenning team server on {bind.url}  (health: {bind.url}/healthz, API: {bind.url}/api/v1/docs,"
            f" pages: {bind.url}/memory after `kenning ui --server`)")
        uvicorn.Server(config).run()
    finally:
        store.close()
        logging.getLogger("kenning.server").info("stopped")
