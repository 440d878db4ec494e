"""``kenning ui``: the web app on 127.0.0.1 for the person at this machine.

A free port (or the one asked for), a fresh token in the printed URL, the browser opened on
it, uvicorn serving until Ctrl-C, then the store closed.
"""

from __future__ import annotations

import socket
import threading
import webbrowser
from collections.abc import Callable

from kenning.config import Settings
from kenning.core.service import Core
from kenning.errors import Invalid

HOST = "127.0.0.1"


def bind(port: int) -> socket.socket:
    """A listening socket on loopback: ``port``, or a free one when 0."""
    if not 0 <= port <= 65535:
        raise Invalid(f"port {port} is out of range", fix="give a port from 1024 to 65535, or leave --port out")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        raise Invalid(f"cannot listen on {HOST}:{port} ({exc.strerror})",
                      fix="leave --port out to take a free port, or pick another") from None  # fmt: skip
    sock.listen(64)
    return sock


def serve(settings: Settings, *, port: int = 0, open_browser: bool = True,
          say: Callable[[str], None] = print) -> None:  # fmt: skip
    """Serve the app over the local store until interrupted."""
    import uvicorn

    from kenning.web.app import create_app, shared_core
    from kenning.web.auth import LocalTokenAuth

    sock = bind(port)
    actual = sock.getsockname()[1]
    core = Core.open(settings)
    auth = LocalTokenAuth()
    app = create_app(shared_core(core), auth)
    url = auth.url(f"http://{HOST}:{actual}")
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    say(f"kenning ui: {url}")
    say("The address carries a token that changes at every launch; keep it to yourself. Ctrl-C stops.")
    if open_browser:
        threading.Timer(0.3, lambda: webbrowser.open(url)).start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        # uvicorn shuts down gracefully on Ctrl-C, then raises the signal again: a clean stop.
        pass
    finally:
        sock.close()
        core.close()
        say("kenning ui stopped")
