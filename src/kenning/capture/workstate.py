"""The state a piece of work was left in, read from an agent's transcript: what was asked, what
was done, what is open (unfinished todo items from Claude Code's TodoWrite or Codex's plan
tool, the last user ask without an answer, commands that failed and were not run successfully
since) and which files the transcript edited.

Read from the raw transcript, because the captured turns keep only a short summary of each
tool call (no todo lists, no exit codes); :func:`from_turns` reads what captured turns hold
for the other tools. Used by resume (:mod:`kenning.context.resume`) and by escalation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kenning.capture.sources.claude_code import human_text
from kenning.capture.sources.jsonl import iter_all
from kenning.quoting import as_data, neutral
from kenning.redacted import EMPTY, Redacted, head
from kenning.store.protocol import StoredTurn

_CODEX_SCAFFOLD = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions",
                   "<permissions instructions>", "<INSTRUCTIONS>", "<user_shell_command>", "<turn_aborted>",
                   "<subagent_notification>")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.MULTILINE)
_EXIT = re.compile(r"(?:Exit code:?|exit_code\"?:)\s*(-?\d+)", re.IGNORECASE)
_EDIT_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
_SHELL_TOOLS = ("Bash", "shell", "exec_command", "local_shell", "container.exec", "run_shell_command")
MAX_TEXT = 300


@dataclass
class WorkState:
    session: str = ""
    tool: str = ""
    project: str = ""
    branch: str = ""
    started: str = ""
    ended: str = ""
    # Words from the transcript are redacted as they are read (the raw transcript holds what
    # capture masked), before they are cut.
    asked: Redacted = EMPTY  # the first ask of the session
    last_ask: Redacted = EMPTY
    unanswered: Redacted = EMPTY  # the last ask when nothing answered it
    done: Redacted = EMPTY  # the agent's last words
    todos_open: list[Redacted] = field(default_factory=list)
    todos_done: int = 0
    failing: list[Redacted] = field(default_factory=list)
    commands: int = 0
    files_edited: list[str] = field(default_factory=list)
    files_git: list[str] = field(default_factory=list)
    transcript: str = ""

    def to_dict(self) -> dict[str, Any]:
        """As handed out (tools, ``--json``): the transcript's words quoted as data."""
        out = asdict(self)
        for key in ("asked", "last_ask", "unanswered", "done"):
            out[key] = as_data(out[key]) if out[key] else ""
        out["todos_open"] = [as_data(t) for t in self.todos_open]
        out["failing"] = [as_data(c) for c in self.failing]
        for key in ("session", "tool", "project", "branch", "transcript"):
            out[key] = neutral(out[key])
        out["files_edited"] = [neutral(f) for f in self.files_edited]
        out["files_git"] = [neutral(f) for f in self.files_git]
        return out


def _short(text: str, limit: int = MAX_TEXT) -> Redacted:
    return head(text, limit, fold=True, at_word=True)


def _add_file(state: WorkState, path: str) -> None:
    if path and path not in state.files_edited:
        state.files_edited.append(path)


@dataclass
class _Words:
    """The transcript's words while it is read, raw; redacted once, at the end (:func:`_seal`),
    rather than every message on the way (a long transcript has thousands)."""

    asked: str = ""
    last_ask: str = ""
    done: str = ""
    todos: list[str] = field(default_factory=list)
    failing: list[str] = field(default_factory=list)
    answered: bool = True


def _seal(state: WorkState, words: _Words) -> None:
    state.asked, state.last_ask, state.done = _short(words.asked), _short(words.last_ask), _short(words.done)
    state.unanswered = EMPTY if words.answered else state.last_ask
    state.todos_open = [_short(t) for t in words.todos if t.strip()]
    state.failing = [_short(c, 160) for c in words.failing]


def _ran(state: WorkState, words: _Words, command: str, ok: bool) -> None:
    state.commands += 1
    if ok:
        if command in words.failing:
            words.failing.remove(command)
    elif command not in words.failing:
        words.failing.append(command)


def _text_blocks(content: Any, kinds: tuple[str, ...] = ("text",)) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") in kinds)
    return ""


def _claude(records: list[dict[str, Any]], state: WorkState) -> None:
    pending: dict[str, str] = {}  # tool_use id -> shell command
    words = _Words()
    for rec in records:
        if rec.get("timestamp"):
            state.started = state.started or str(rec["timestamp"])
            state.ended = str(rec["timestamp"])
        state.session = state.session or str(rec.get("sessionId") or "")
        if isinstance(rec.get("gitBranch"), str) and rec["gitBranch"]:
            state.branch = rec["gitBranch"]
        message = rec.get("message")
        if rec.get("type") not in ("user", "assistant") or not isinstance(message, dict) or rec.get("isMeta"):
            continue
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        if rec["type"] == "user":
            results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
            for block in results:
                command = pending.pop(str(block.get("tool_use_id")), None)
                if command is not None:
                    _ran(state, words, command, not block.get("is_error"))
            if results or rec.get("isCompactSummary"):
                continue
            text = human_text(_text_blocks(content))
            if text:
                words.asked = words.asked or text
                words.last_ask, words.answered = text, False
            continue
        text = _text_blocks(content).strip()
        if text:
            words.done, words.answered = text, True
        for block in blocks:
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            name, data = str(block.get("name", "")), block.get("input")
            data = data if isinstance(data, dict) else {}
            if name == "TodoWrite" and isinstance(data.get("todos"), list):
                todos = [t for t in data["todos"] if isinstance(t, dict)]
                words.todos = [str(t.get("content", "")) for t in todos if t.get("status") != "completed"]
                state.todos_done = sum(1 for t in todos if t.get("status") == "completed")
            elif name in _EDIT_TOOLS:
                _add_file(state, str(data.get("file_path") or data.get("notebook_path") or ""))
                for edit in data.get("edits", []) if isinstance(data.get("edits"), list) else []:
                    if isinstance(edit, dict):
                        _add_file(state, str(edit.get("file_path", "")))
            elif name in _SHELL_TOOLS and isinstance(data.get("command"), str):
                pending[str(block.get("id"))] = data["command"]
    _seal(state, words)


def _codex_command(args: Any) -> str:
    if isinstance(args, dict):
        cmd = args.get("cmd", args.get("command"))
        if isinstance(cmd, list):
            # ["bash", "-lc", "pytest -q"] -> the script itself
            return str(cmd[-1]) if len(cmd) >= 3 and cmd[0] in ("bash", "sh", "zsh") else " ".join(map(str, cmd))
        if isinstance(cmd, str):
            return cmd
    return ""


def _codex(records: list[dict[str, Any]], state: WorkState) -> None:
    pending: dict[str, str] = {}
    words = _Words()
    for rec in records:
        payload = rec.get("payload")
        if not isinstance(payload, dict):
            continue
        if rec.get("timestamp"):
            state.started = state.started or str(rec["timestamp"])
            state.ended = str(rec["timestamp"])
        kind, ptype = rec.get("type"), payload.get("type")
        if kind == "session_meta":
            state.session = str(payload.get("id") or state.session)
            git = payload.get("git")
            if isinstance(git, dict) and isinstance(git.get("branch"), str):
                state.branch = git["branch"]
            continue
        if kind == "event_msg" and ptype == "exec_command_end":
            command = pending.pop(str(payload.get("call_id")), None)
            if command is not None:
                _ran(state, words, command, payload.get("exit_code") == 0)
            continue
        if kind != "response_item":
            continue
        if ptype == "message":
            text = _text_blocks(payload.get("content"), ("input_text", "output_text", "text")).strip()
            if not text:
                continue
            if payload.get("role") == "user" and not text.startswith(_CODEX_SCAFFOLD):
                words.asked = words.asked or text
                words.last_ask, words.answered = text, False
            elif payload.get("role") == "assistant":
                words.done, words.answered = text, True
        elif ptype in ("function_call", "custom_tool_call", "local_shell_call"):
            name = str(payload.get("name", ""))
            raw = payload.get("arguments", payload.get("input", payload.get("action", "")))
            args: Any = raw
            if isinstance(raw, str):
                try:
                    args = json.loads(raw)
                except ValueError:
                    args = None
                for path in _PATCH_FILE.findall(raw):
                    _add_file(state, path.strip())
            if name == "update_plan" and isinstance(args, dict) and isinstance(args.get("plan"), list):
                steps = [s for s in args["plan"] if isinstance(s, dict)]
                words.todos = [str(s.get("step", "")) for s in steps if s.get("status") != "completed"]
                state.todos_done = sum(1 for s in steps if s.get("status") == "completed")
            elif name != "apply_patch" or ptype == "local_shell_call":
                command = _codex_command(args)
                if command:
                    pending[str(payload.get("call_id", ""))] = command
        elif ptype in ("function_call_output", "custom_tool_call_output"):
            command = pending.get(str(payload.get("call_id")))
            output = payload.get("output")
            text = output if isinstance(output, str) else json.dumps(output)
            found = _EXIT.search(text or "")
            if command is not None and found:
                pending.pop(str(payload.get("call_id")), None)
                _ran(state, words, command, found.group(1) == "0")
    _seal(state, words)


def from_transcript(path: Path, tool: str = "") -> WorkState:
    """The work state of one transcript file (Claude Code or Codex JSONL)."""
    records = list(iter_all(path))
    state = WorkState(transcript=str(path))
    codex = tool == "codex" or any(r.get("type") == "session_meta" for r in records[:5])
    state.tool = "codex" if codex else (tool or "claude-code")
    (_codex if codex else _claude)(records, state)
    return state


def from_turns(turns: Iterable[StoredTurn], state: WorkState) -> None:
    """Fill ``state`` from captured turns (for tools whose transcripts are not read here)."""
    words = _Words()
    for t in turns:
        if t.role == "user":
            words.asked = words.asked or t.text
            words.last_ask, words.answered = t.text, False
        elif t.role == "assistant" and t.text.strip():
            words.done, words.answered = t.text, True
        for f in t.files:
            _add_file(state, f)
    _seal(state, words)
