"""Codex CLI rollouts: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`` (and archived ones).

User prompts come from ``response_item`` messages with role user; Codex also sends
scaffolding as user messages (environment context, AGENTS.md, instructions), which is dropped.
``event_msg`` mirrors of messages are skipped so nothing is counted twice.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kenning.capture.events import Event, ReadResult, SourceFile, ToolCall, refs_of, text_of
from kenning.capture.sources.jsonl import read_appended

TOOL = "codex"
_SCAFFOLD = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<permissions instructions>",
             "<INSTRUCTIONS>", "<user_shell_command>", "<turn_aborted>", "<subagent_notification>")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.MULTILINE)


def codex_home(home: Path, env: Mapping[str, str] | None = None) -> Path:
    if env and env.get("CODEX_HOME"):
        return Path(env["CODEX_HOME"]).expanduser()
    return home / ".codex"


def discover(home: Path, env: Mapping[str, str] | None = None) -> list[SourceFile]:
    root = codex_home(home, env)
    files = sorted((root / "sessions").glob("*/*/*/rollout-*.jsonl")) + sorted(
        (root / "archived_sessions").glob("rollout-*.jsonl"))
    return [SourceFile(TOOL, f) for f in files]


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(str(p.get("text", "")) for p in content
                     if isinstance(p, dict) and p.get("type") in ("input_text", "output_text", "text"))


def _call(payload: dict[str, Any]) -> tuple[ToolCall, list[str]]:
    name = str(payload.get("name", ""))
    raw = payload.get("arguments", payload.get("input", ""))
    files: list[str] = []
    summary = ""
    if isinstance(raw, str):
        files = _PATCH_FILE.findall(raw)
        try:
            args = json.loads(raw)
        except ValueError:
            args = None
        if isinstance(args, dict):
            cmd = args.get("cmd", args.get("command"))
            summary = " ".join(cmd) if isinstance(cmd, list) else text_of(cmd or args.get("path", ""))
            if isinstance(args.get("path"), str):
                files.append(args["path"])
        else:
            summary = text_of(raw.splitlines()[0] if raw else "")
    return ToolCall(name, summary, refs_of(raw)), files


def parse(records: list[tuple[int, dict[str, Any]]], path: Path, context: dict[str, Any]) -> list[Event]:
    events: list[Event] = []
    seen_outputs: list[str] = list(context.get("outputs", []))
    for at, rec in records:
        kind = rec.get("type")
        payload = rec.get("payload")
        if not isinstance(payload, dict):
            continue
        ts = rec.get("timestamp")
        when = ts if isinstance(ts, str) else ""
        if kind == "session_meta":
            context.setdefault("session", payload.get("id") or path.stem)
            if isinstance(payload.get("cwd"), str):
                context["cwd"] = payload["cwd"]
            git = payload.get("git")
            if isinstance(git, dict) and isinstance(git.get("branch"), str):
                context["branch"] = git["branch"]
            continue
        if kind == "turn_context" and isinstance(payload.get("cwd"), str):
            context["cwd"] = payload["cwd"]
            continue
        # rollout-<date>-<uuid>: the uuid is the last five dash-separated parts.
        sid = context.setdefault("session", "-".join(path.stem.split("-")[-5:]))
        session = f"codex:{sid}"

        def ev(role: str, text: str, uid: str = f"@{at}", session: str = session, when: str = when,
               **kw: Any) -> Event:
            return Event(session=session, tool=TOOL, uid=uid, role=role, text=text, time=when,
                         cwd=context.get("cwd", ""), branch=context.get("branch", ""), **kw)

        ptype = payload.get("type")
        if kind == "response_item":
            if ptype == "message":
                role = payload.get("role")
                text = _texts(payload.get("content")).strip()
                if not text:
                    continue
                if role == "user" and not text.lstrip().startswith(_SCAFFOLD):
                    events.append(ev("user", text))
                elif role == "assistant":
                    events.append(ev("assistant", text))
            elif ptype in ("function_call", "custom_tool_call", "local_shell_call"):
                call, files = _call(payload)
                events.append(ev("assistant", "", tool_calls=(call,), files=tuple(files)))
            elif ptype in ("function_call_output", "custom_tool_call_output"):
                cid = str(payload.get("call_id", at))
                out = payload.get("output")
                if isinstance(out, dict):
                    out = out.get("content") or out.get("output") or ""
                if cid not in seen_outputs:
                    seen_outputs = (seen_outputs + [cid])[-200:]
                    events.append(ev("tool", text_of(out if isinstance(out, str) else json.dumps(out)),
                                     uid=f"out:{cid}"))
        elif kind == "event_msg" and ptype == "exec_command_end":
            cid = str(payload.get("call_id", at))
            if cid not in seen_outputs:
                seen_outputs = (seen_outputs + [cid])[-200:]
                events.append(ev("tool", text_of(payload.get("aggregated_output", "")), uid=f"out:{cid}"))
        elif kind == "compacted" and isinstance(payload.get("message"), str):
            events.append(ev("summary", payload["message"]))
    context["outputs"] = seen_outputs
    return events


def read(source: SourceFile, offset: int, context: dict[str, Any]) -> ReadResult:
    return read_appended(source, offset, context, parse)
