"""Gemini CLI sessions: ``~/.gemini/tmp/<project>/chats/session-*.json`` (one JSON document,
older versions) and ``session-*.jsonl`` (a log where a record with a known ``id`` replaces the
earlier one, ``{"$set": …}`` updates metadata and ``{"$rewindTo": id}`` cuts history).

Because records are replaced in place, a changed file is re-read whole and its session's
turns replaced (``ReadResult.replace``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kenning.capture.events import Event, ReadResult, SourceFile, ToolCall, refs_of, text_of
from kenning.capture.sources.jsonl import iter_all

TOOL = "gemini"
_FILE_KEYS = ("file_path", "absolute_path", "path")


def gemini_home(home: Path, env: Mapping[str, str] | None = None) -> Path:
    if env and env.get("GEMINI_CLI_HOME"):
        return Path(env["GEMINI_CLI_HOME"]).expanduser() / ".gemini"
    return home / ".gemini"


def discover(home: Path, env: Mapping[str, str] | None = None) -> list[SourceFile]:
    root = gemini_home(home, env) / "tmp"
    files = sorted(root.glob("*/chats/session-*.json")) + sorted(root.glob("*/chats/session-*.jsonl"))
    files += sorted(root.glob("*/chats/*/*.jsonl"))  # subagents
    return [SourceFile(TOOL, f, mode="whole") for f in files]


def project_root(chats_dir: Path) -> str:
    """The folder a Gemini project slug stands for, from ``.project_root`` or the registry."""
    project_dir = chats_dir.parent
    marker = project_dir / ".project_root"
    try:
        if marker.is_file():
            return marker.read_text(encoding="utf-8").strip()
        registry = project_dir.parent.parent / "projects.json"
        if registry.is_file():
            data = json.loads(registry.read_text(encoding="utf-8"))
            mapping = data.get("projects", data) if isinstance(data, dict) else {}
            for path, slug in mapping.items():
                if slug == project_dir.name:
                    return str(path)
    except (OSError, ValueError):
        pass
    return ""


def _content(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(str(p.get("text", "")) for p in value if isinstance(p, dict) and p.get("text"))
    return ""


def _messages(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    meta: dict[str, Any] = {}
    if path.suffix == ".json":
        try:
            doc = json.loads(path.read_bytes())
        except (OSError, ValueError):
            return meta, []
        if not isinstance(doc, dict):
            return meta, []
        msgs = [m for m in doc.get("messages", []) if isinstance(m, dict)]
        return doc, msgs
    order: list[str] = []
    by_id: dict[str, dict[str, Any]] = {}
    for rec in iter_all(path):
        if "$set" in rec and isinstance(rec["$set"], dict):
            meta.update(rec["$set"])
        elif "$rewindTo" in rec:
            target = rec["$rewindTo"]
            if target in by_id:
                # Drop the target and everything after it (the user rewound to before it).
                cut = order.index(target)
                for mid in order[cut:]:
                    by_id.pop(mid, None)
                order = order[:cut]
        elif "type" in rec and "id" in rec:
            mid = str(rec["id"])
            if mid not in by_id:
                order.append(mid)
            by_id[mid] = rec
        elif "sessionId" in rec:
            meta.update(rec)
    return meta, [by_id[m] for m in order]


def read(source: SourceFile, offset: int, context: dict[str, Any]) -> ReadResult:
    meta, msgs = _messages(source.path)
    sid = str(meta.get("sessionId") or source.path.stem)
    chats = source.path.parent if source.path.parent.name == "chats" else source.path.parent.parent
    cwd = project_root(chats)
    subagent = source.path.stem if source.path.parent.name != "chats" else ""
    session = f"gemini:{sid}"
    events: list[Event] = []
    for msg in msgs:
        mtype = msg.get("type")
        ts = msg.get("timestamp")
        when = ts if isinstance(ts, str) else ""
        uid = str(msg.get("id"))
        if mtype == "user":
            # displayContent is what the person typed; content can carry hook-added context.
            text = _content(msg.get("displayContent")) or _content(msg.get("content"))
            if text.strip():
                events.append(Event(session, TOOL, uid, "user", text.strip(), when, cwd, subagent=subagent))
        elif mtype == "gemini":
            calls: list[ToolCall] = []
            files: list[str] = []
            for call in msg.get("toolCalls") or []:
                if not isinstance(call, dict):
                    continue
                raw = call.get("args")
                args: dict[str, Any] = raw if isinstance(raw, dict) else {}
                summary = next((text_of(args[k]) for k in ("command", *_FILE_KEYS, "pattern", "query")
                                if isinstance(args.get(k), str)), "")
                calls.append(ToolCall(str(call.get("name", "")), summary, refs_of(args)))
                files += [args[k] for k in _FILE_KEYS if isinstance(args.get(k), str)]
            text = _content(msg.get("content")).strip()
            if text or calls:
                events.append(Event(session, TOOL, uid, "assistant", text, when, cwd, tool_calls=tuple(calls),
                                    files=tuple(files), subagent=subagent))
    size = source.path.stat().st_size if source.path.exists() else 0
    return ReadResult(events, size, {"session": sid}, replace=True)
