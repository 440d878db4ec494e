"""OpenCode: one SQLite database (``~/.local/share/opencode/opencode.db``) with tables
``session``, ``message`` and ``part`` whose ``data`` columns hold JSON.

Opened read-only through a ``file:…?mode=ro`` URI so kenning can never change it. There are
no byte offsets: each session is one source, re-read whole when its newest update changes.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from kenning.capture.events import Event, ReadResult, SourceFile, ToolCall, refs_of, text_of

TOOL = "opencode"


def db_path(home: Path, env: Mapping[str, str] | None = None) -> Path:
    if env and env.get("XDG_DATA_HOME"):
        return Path(env["XDG_DATA_HOME"]).expanduser() / "opencode" / "opencode.db"
    return home / ".local" / "share" / "opencode" / "opencode.db"


def connect_ro(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, timeout=5.0)
    conn.row_factory = sqlite3.Row
    return conn


def discover(home: Path, env: Mapping[str, str] | None = None) -> list[SourceFile]:
    path = db_path(home, env)
    if not path.is_file():
        return []
    try:
        conn = connect_ro(path)
        try:
            rows = conn.execute("SELECT id FROM session ORDER BY id").fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return []
    return [SourceFile(TOOL, path, mode="whole", key=str(r["id"])) for r in rows]


def fingerprint(source: SourceFile) -> str:
    """Changes whenever the session or any of its messages or parts changes."""
    conn = connect_ro(source.path)
    try:
        row = conn.execute(
            "SELECT (SELECT time_updated FROM session WHERE id = ?) AS s,"
            " (SELECT max(time_updated) FROM message WHERE session_id = ?) AS m,"
            " (SELECT max(time_updated) FROM part WHERE session_id = ?) AS p,"
            " (SELECT count(*) FROM part WHERE session_id = ?) AS n",
            (source.key,) * 4,
        ).fetchone()
    finally:
        conn.close()
    return f"{row['s']}:{row['m']}:{row['p']}:{row['n']}"


def _iso(ms: Any) -> str:
    from datetime import UTC, datetime

    try:
        return datetime.fromtimestamp(int(ms) / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    except (TypeError, ValueError, OverflowError):
        return ""


def _json(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text) if isinstance(text, str | bytes) else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def read(source: SourceFile, offset: int, context: dict[str, Any]) -> ReadResult:
    conn = connect_ro(source.path)
    try:
        srow = conn.execute("SELECT * FROM session WHERE id = ?", (source.key,)).fetchone()
        messages = conn.execute(
            "SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id",
            (source.key,)).fetchall()
        parts = conn.execute(
            "SELECT message_id, data FROM part WHERE session_id = ? ORDER BY time_created, id", (source.key,)
        ).fetchall()
    finally:
        conn.close()
    directory = str(srow["directory"]) if srow is not None and "directory" in srow.keys() else ""  # noqa: SIM118 (Row.in checks values)
    by_message: dict[str, list[dict[str, Any]]] = {}
    for p in parts:
        by_message.setdefault(str(p["message_id"]), []).append(_json(p["data"]))
    session = f"opencode:{source.key}"
    events: list[Event] = []
    for m in messages:
        info = _json(m["data"])
        role = info.get("role")
        cwd = (info.get("path") or {}).get("cwd", directory) if isinstance(info.get("path"), dict) else directory
        when = _iso(m["time_created"])
        texts: list[str] = []
        calls: list[ToolCall] = []
        files: list[str] = []
        for part in by_message.get(str(m["id"]), []):
            ptype = part.get("type")
            # synthetic parts are text OpenCode itself added (file contents, reminders).
            if ptype == "text" and isinstance(part.get("text"), str) and not part.get("synthetic"):
                texts.append(part["text"])
            elif ptype == "tool":
                raw_state = part.get("state")
                state: dict[str, Any] = raw_state if isinstance(raw_state, dict) else {}
                raw_args = state.get("input")
                args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
                calls.append(ToolCall(str(part.get("tool", "")), text_of(args.get("command") or args.get("filePath") or ""),
                                      refs_of(args)))
                if isinstance(args.get("filePath"), str):
                    files.append(args["filePath"])
        text = "\n".join(texts).strip()
        if role == "user" and text:
            events.append(Event(session, TOOL, str(m["id"]), "user", text, when, str(cwd)))
        elif role == "assistant" and (text or calls):
            events.append(Event(session, TOOL, str(m["id"]), "assistant", text, when, str(cwd),
                                tool_calls=tuple(calls), files=tuple(files)))
    return ReadResult(events, 0, {"session": source.key}, replace=True)
