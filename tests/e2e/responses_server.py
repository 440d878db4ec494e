"""A scripted stand-in for the OpenAI Responses API, for driving the real Codex CLI.

``codex exec`` posts to ``{base_url}/responses`` with ``"stream": true`` and reads
server-sent events: ``response.created``, per output item ``response.output_item.added``
(then ``response.output_text.delta`` for text) and ``response.output_item.done``, and
finally ``response.completed``. A scripted tool call becomes a ``function_call`` item whose
``arguments`` is a JSON string (Codex's shell tool is ``exec_command`` with ``{"cmd": ...}``).
Same script and recording rules as :mod:`model_server`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

from model_server import Json, ModelServer, Step


class ResponsesServer(ModelServer):
    def handles(self, path: str) -> bool:
        return path.endswith("/responses")

    def side_route(self, path: str, body: Json) -> Json | None:
        return None

    def is_main(self, body: Json) -> bool:
        return bool(body.get("tools"))

    def _items(self, step: Step) -> list[Json]:
        items: list[Json] = []
        if step.text is not None:
            items.append({"type": "message", "id": "msg_" + uuid.uuid4().hex[:24], "role": "assistant",
                          "status": "completed",
                          "content": [{"type": "output_text", "text": step.text, "annotations": []}]})
        for c in step.tools:
            call: Json = {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:24], "status": "completed",
                          "call_id": "call_" + uuid.uuid4().hex[:20], "name": c.name,
                          "arguments": json.dumps(c.input)}
            if c.namespace:
                call["namespace"] = c.namespace
            items.append(call)
        return items

    def _response(self, rid: str, status: str, output: list[Json]) -> Json:
        return {"id": rid, "object": "response", "created_at": 1796000000, "status": status,
                "model": self.model, "output": output,
                "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                          "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                          "total_tokens": 15}}

    def whole(self, step: Step) -> Json:
        return self._response("resp_" + uuid.uuid4().hex[:24], "completed", self._items(step))

    def events(self, step: Step) -> Iterator[tuple[str, Json]]:
        rid = "resp_" + uuid.uuid4().hex[:24]
        seq = iter(range(1_000_000))
        yield "response.created", {"type": "response.created", "sequence_number": next(seq),
                                   "response": self._response(rid, "in_progress", [])}
        items = self._items(step)
        for index, item in enumerate(items):
            if item["type"] == "message":
                empty = {**item, "status": "in_progress", "content": []}
                yield "response.output_item.added", {"type": "response.output_item.added",
                                                     "sequence_number": next(seq),
                                                     "output_index": index, "item": empty}
                yield "response.output_text.delta", {"type": "response.output_text.delta",
                                                     "sequence_number": next(seq),
                                                     "item_id": item["id"], "output_index": index,
                                                     "content_index": 0,
                                                     "delta": item["content"][0]["text"]}
            else:
                yield "response.output_item.added", {"type": "response.output_item.added",
                                                     "sequence_number": next(seq),
                                                     "output_index": index, "item": item}
            yield "response.output_item.done", {"type": "response.output_item.done",
                                                "sequence_number": next(seq),
                                                "output_index": index, "item": item}
        yield "response.completed", {"type": "response.completed", "sequence_number": next(seq),
                                     "response": self._response(rid, "completed", items)}
