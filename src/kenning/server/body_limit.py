"""A cap on request bodies, enforced before a route reads one.

A body with a ``Content-Length`` over the cap is refused from its header alone. A body sent
without one (chunked transfer) is read up to the cap and refused the moment it passes it, so
a client cannot make the server hold an unbounded body in memory. Written as plain ASGI
because Starlette and FastAPI have no body limit of their own, and uvicorn has none either.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
Refusal = Callable[[int | None], Any]  # the body's size (None: over the cap, size unknown) -> an ASGI response


class BodyLimit:
    """ASGI middleware: bodies over ``limit`` bytes get ``refuse(size)``'s response (a 413)."""

    def __init__(self, app: ASGIApp, *, limit: int, refuse: Refusal) -> None:
        self.app = app
        self.limit = limit
        self.refuse = refuse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None:
            if length.isdigit() and int(length) > self.limit:
                await self.refuse(int(length))(scope, receive, send)
                return
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away before its body was whole
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self.refuse(None)(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        given = False

        async def replay() -> Message:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
