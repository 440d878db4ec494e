"""A scripted stand-in for the Anthropic Messages API, for driving the real Claude Code.

Claude Code streams every answer (``"stream": true``), so the server answers
``POST /v1/messages`` with server-sent events in the order the real API sends them:
``message_start``, per content block ``content_block_start`` / ``content_block_delta``
(``text_delta`` or ``input_json_delta``) / ``content_block_stop``, then ``message_delta``
with the stop reason and ``message_stop``.

Main-loop requests (the ones that carry ``tools``) take the next :class:`Step` of the
test's script; side requests without tools (titles, summaries) get plain text and do not
consume a step. Every request body is recorded so a test can assert what the client sent.
Written by hand because no library serves a scripted Messages API; the protocol is small.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Json = dict[str, Any]


@dataclass(frozen=True)
class ToolCall:
    name: str
    input: Json
    namespace: str | None = None  # Responses API: a tool inside a namespace (Codex's MCP servers)


@dataclass(frozen=True)
class Step:
    """One scripted model answer: some text, tool calls, or both."""

    text: str | None = None
    tools: tuple[ToolCall, ...] = ()

    @staticmethod
    def say(text: str) -> Step:
        return Step(text=text)

    @staticmethod
    def call(name: str, input: Json, text: str | None = None, namespace: str | None = None) -> Step:
        return Step(text=text, tools=(ToolCall(name, input, namespace),))


@dataclass
class Until:
    """Answer ``meanwhile`` until a request satisfies ``ready``, then ``then`` (one step).

    For tools a client adds only once they exist (Codex lists an MCP server's tools after the
    server has started), without guessing how long that takes.
    """

    ready: Callable[[Json], bool]
    then: Step
    meanwhile: Step
    limit: int = 30
    waited: int = 0


# A step may also be computed from the request it answers (e.g. to echo a tool result).
ScriptItem = Step | Until | Callable[[Json], Step]

SIDE_ANSWER = "Scripted side answer."
FINAL_ANSWER = "Done."


@dataclass
class Exchange:
    path: str
    body: Json
    main: bool  # True when the request carried tools and took a scripted step
    answer: Step | None = None


@dataclass
class ModelServer:
    """A scripted Messages API on 127.0.0.1; use as a context manager."""

    script: list[ScriptItem] = field(default_factory=list)
    model: str = "claude-opus-5-5"
    exchanges: list[Exchange] = field(default_factory=list)
    other_requests: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[ScriptItem] = list(self.script)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        port = self._httpd.server_address[1]
        return f"http://127.0.0.1:{port}"

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def extend(self, steps: list[ScriptItem]) -> None:
        with self._lock:
            self._pending.extend(steps)

    @property
    def unused_steps(self) -> int:
        with self._lock:
            return len(self._pending)

    @property
    def main_requests(self) -> list[Json]:
        return [e.body for e in self.exchanges if e.main]

    def answer(self, path: str, body: Json) -> Step:
        with self._lock:
            main = self.is_main(body)
            exchange = Exchange(path=path, body=body, main=main)
            self.exchanges.append(exchange)
            if not main:
                step = Step.say(SIDE_ANSWER)
            elif self._pending:
                item = self._pending.pop(0)
                if isinstance(item, Until):
                    if item.ready(body) or item.waited >= item.limit:
                        step = item.then
                    else:
                        item.waited += 1
                        self._pending.insert(0, item)
                        step = item.meanwhile
                else:
                    step = item(body) if callable(item) else item
            else:
                step = Step.say(FINAL_ANSWER)
            exchange.answer = step
            return step

    # The protocol: subclasses for other APIs override these four.
    def handles(self, path: str) -> bool:
        return path.endswith("/v1/messages")

    def side_route(self, path: str, body: Json) -> Json | None:
        """A fixed JSON answer for endpoints that are not model turns, else None."""
        if path.endswith("/v1/messages/count_tokens"):
            return {"input_tokens": 100}
        return None

    def is_main(self, body: Json) -> bool:
        return bool(body.get("tools"))

    def wants_stream(self, raw_path: str, body: Json) -> bool:
        return bool(body.get("stream")) or "alt=sse" in raw_path

    def sse_frame(self, name: str, payload: Json) -> bytes:
        return f"event: {name}\ndata: {json.dumps(payload)}\n\n".encode()

    def whole(self, step: Step) -> Json:
        content: list[Json] = []
        if step.text is not None:
            content.append({"type": "text", "text": step.text})
        content.extend({"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": c.name,
                        "input": c.input} for c in step.tools)
        return {"id": "msg_" + uuid.uuid4().hex[:24], "type": "message", "role": "assistant",
                "model": self.model, "content": content,
                "stop_reason": "tool_use" if step.tools else "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5}}

    def events(self, step: Step) -> Iterator[tuple[str, Json]]:
        """The SSE events of one streamed answer."""
        msg_id = "msg_" + uuid.uuid4().hex[:24]
        usage = {"input_tokens": 10, "output_tokens": 0, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0}
        yield "message_start", {"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": self.model,
            "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}}
        index = 0
        if step.text is not None:
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {"type": "text", "text": ""}}
            yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                          "delta": {"type": "text_delta", "text": step.text}}
            yield "content_block_stop", {"type": "content_block_stop", "index": index}
            index += 1
        for call in step.tools:
            tool_id = "toolu_" + uuid.uuid4().hex[:20]
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {"type": "tool_use", "id": tool_id,
                                                            "name": call.name, "input": {}}}
            yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                          "delta": {"type": "input_json_delta",
                                                    "partial_json": json.dumps(call.input)}}
            yield "content_block_stop", {"type": "content_block_stop", "index": index}
            index += 1
        stop = "tool_use" if step.tools else "end_turn"
        yield "message_delta", {"type": "message_delta",
                                "delta": {"stop_reason": stop, "stop_sequence": None},
                                "usage": {"output_tokens": 5}}
        yield "message_stop", {"type": "message_stop"}


def _handler_for(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
            pass

        def _send_json(self, status: int, payload: Json) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_HEAD(self) -> None:
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            server.other_requests.append("GET " + self.path)
            self._send_json(404, {"type": "error", "error": {"type": "not_found_error",
                                                             "message": "not scripted"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            path = self.path.split("?", 1)[0]
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            side = server.side_route(path, body)
            if side is not None:
                self._send_json(200, side)
                return
            if not server.handles(path):
                server.other_requests.append("POST " + self.path)
                self._send_json(404, {"type": "error", "error": {"type": "not_found_error",
                                                                 "message": "not scripted"}})
                return
            step = server.answer(path, body)
            if not server.wants_stream(self.path, body):
                self._send_json(200, server.whole(step))
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            for name, payload in server.events(step):
                self.wfile.write(server.sse_frame(name, payload))
            self.wfile.flush()
            self.close_connection = True

    return Handler

