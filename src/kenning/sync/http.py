"""The client's HTTP transport to the team server (httpx): JSON in and out, the device token
as a bearer token, retries with backoff on a dropped connection, a 5xx or a 429 (honouring
Retry-After), and a refusal turned into a :class:`kenning.errors.Refused` that says why."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import httpx

from kenning.errors import Refused

RETRIES = (0.5, 2.0, 5.0)


class ServerUnreachable(Refused):
    """The server did not answer (after retries)."""


class HttpTransport:
    def __init__(self, base_url: str, token: str = "", *, timeout: float = 60.0, retries: tuple[float, ...] = RETRIES,
                 client: httpx.Client | None = None) -> None:  # fmt: skip
        self.base = base_url.rstrip("/")
        self.token = token
        self.retries = retries
        self.client = client or httpx.Client(timeout=timeout)

    def close(self) -> None:
        self.client.close()

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def post(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._call("POST", path, body)

    def get(self, path: str) -> Any:
        return self._call("GET", path, None)

    def _call(self, method: str, path: str, body: Mapping[str, Any] | None) -> Any:
        url = self.base + path
        for attempt in range(len(self.retries) + 1):
            try:
                response = self.client.request(method, url, json=dict(body) if body is not None else None,
                                               headers=self._headers())  # fmt: skip
            except httpx.TransportError as exc:
                if attempt < len(self.retries):
                    time.sleep(self.retries[attempt])
                    continue
                raise ServerUnreachable(f"the server at {self.base} does not answer ({type(exc).__name__})",
                                        fix="check the URL and that kenning serve runs there; kenning sync resumes where it stopped") from exc  # fmt: skip
            retry_later = response.status_code == 429 or response.status_code >= 500
            if retry_later and attempt < len(self.retries):
                wait = response.headers.get("retry-after", "")
                time.sleep(float(wait) if wait.replace(".", "", 1).isdigit() else self.retries[attempt])
                continue
            if response.status_code >= 400:
                raise _refusal(response)
            return response.json()
        raise AssertionError("unreachable")


def _refusal(response: httpx.Response) -> Refused:
    try:
        data = response.json()
    except ValueError:
        data = {}
    message = str(data.get("message") or data.get("detail") or response.text[:200] or response.reason_phrase)
    error = Refused(f"the server refused ({response.status_code} {data.get('error', '')}): {message}".replace(" )", ")"),
                    fix=str(data.get("fix", "")))  # fmt: skip
    error.status = response.status_code  # type: ignore[attr-defined]
    error.code = str(data.get("error", ""))  # type: ignore[attr-defined]
    return error
