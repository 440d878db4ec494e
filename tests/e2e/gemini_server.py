"""A scripted stand-in for the Gemini API (generativelanguage v1beta), for the real Gemini CLI.

Gemini CLI 0.61 honours ``GOOGLE_GEMINI_BASE_URL`` and posts to
``/v1beta/models/<model>:streamGenerateContent?alt=sse`` (server-sent ``data:`` lines, each a
``GenerateContentResponse``) or ``:generateContent`` (one JSON answer). A scripted tool call
becomes a ``functionCall`` part. Main turns are the requests that declare tools; side calls
(routing, checks) get plain text. Same script and recording rules as :mod:`model_server`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from model_server import Json, ModelServer, Step


class GeminiServer(ModelServer):
    def handles(self, path: str) -> bool:
        return ":streamGenerateContent" in path or ":generateContent" in path

    def side_route(self, path: str, body: Json) -> Json | None:
        if ":countTokens" in path:
            return {"totalTokens": 100}
        return None

    def is_main(self, body: Json) -> bool:
        return any(t.get("functionDeclarations") for t in body.get("tools") or [])

    def whole(self, step: Step) -> Json:
        parts: list[Json] = []
        if step.text is not None:
            parts.append({"text": step.text})
        parts.extend({"functionCall": {"name": c.name, "args": c.input}} for c in step.tools)
        return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP",
                                "index": 0}],
                "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                                  "totalTokenCount": 15},
                "modelVersion": self.model}

    def events(self, step: Step) -> Iterator[tuple[str, Json]]:
        yield "", self.whole(step)

    def sse_frame(self, name: str, payload: Json) -> bytes:
        return f"data: {json.dumps(payload)}\r\n\r\n".encode()
