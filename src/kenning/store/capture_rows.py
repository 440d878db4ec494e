"""A capture store's rows, once for both engines: how a turn's tool calls and files are written
(JSON text on both) and how sessions, turns and chunks read back. The two engines hold these
columns in the same types, so the values need no decoding of their own."""

from __future__ import annotations

import json
from typing import Any

import orjson

from kenning.redacted import Redacted, ensure, stored
from kenning.store.memory_rows import Row
from kenning.store.protocol.capture import StoredChunk, StoredSession, StoredTurn


def dumps(value: list[Any]) -> str:
    """A turn's tool calls or files as JSON text."""
    # orjson is ~10x faster than json.dumps (two calls per turn); json handles what orjson
    # refuses (a lone surrogate from a \\ud800 escape in a transcript).
    if not value:
        return "[]"
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value)


def guard_calls(calls: list[dict[str, Redacted | str]]) -> list[dict[str, str]]:
    """A call's input (a command, a path) is text someone wrote: redacted whatever the caller did."""
    return [{k: str(ensure(v)) if k == "input" else str(v) for k, v in call.items()} for call in calls]


def session_of(row: Row) -> StoredSession:
    """A ``capture_sessions`` row as a :class:`StoredSession`."""
    return StoredSession(row["id"], row["workspace"], row["tool"], row["project"], row["project_name"], row["cwd"],
                         row["branch"], stored(row["title"]), row["first_at"], row["last_at"], int(row["turns"]))  # fmt: skip


def _calls(raw: str) -> tuple[dict[str, str], ...]:
    try:
        calls = json.loads(raw or "[]")
    except ValueError:
        return ()
    if not isinstance(calls, list):
        return ()
    return tuple({str(k): str(v) for k, v in c.items()} for c in calls if isinstance(c, dict))


def turn_of(row: Row) -> StoredTurn:
    """A ``capture_turns`` row as a :class:`StoredTurn`."""
    files = json.loads(row["files"] or "[]")
    return StoredTurn(int(row["id"]), row["session"], row["uid"], row["source"], row["role"], stored(row["text"]),
                      row["at"], _calls(row["tool_calls"]), tuple(str(f) for f in files if isinstance(f, str)),
                      row["subagent"])  # fmt: skip


def chunk_of(row: Row) -> StoredChunk:
    """A ``capture_chunks`` row as a :class:`StoredChunk`."""
    return StoredChunk(int(row["id"]), row["session"], int(row["turn"]), int(row["part"]), row["role"],
                       stored(row["body"]), stored(row["context"]), row["at"], row["project"], row["tool"],
                       row["type"], int(row["importance"]), float(row["confidence"]), int(row["rules_version"]))  # fmt: skip
