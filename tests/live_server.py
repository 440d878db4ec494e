"""An ASGI app served for real by uvicorn on loopback, in a thread of the test process: the one
helper the web app's, the team server's pages' and the team server's tests start servers with.

The socket is bound before the thread starts (port 0: the system picks a free port, so no other
process can take it between choosing and listening), the caller gets the base URL once uvicorn
says it has started, and leaving the block stops the server and closes the socket.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from kenning.web.local import bind


@contextmanager
def serving(app: Any, *, timeout: float = 30.0) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1 until the block ends; yields its base URL (``http://127.0.0.1:PORT``)."""
    sock = bind(0)
    try:
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + timeout
        while not server.started and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        try:
            assert server.started, "uvicorn did not start"
            yield f"http://127.0.0.1:{sock.getsockname()[1]}"
        finally:
            server.should_exit = True
            thread.join(timeout=timeout)
    finally:
        sock.close()
