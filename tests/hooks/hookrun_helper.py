"""Run the hook entry point as a real subprocess over payloads in each tool's real shapes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Vendored from the recorded Claude Code 2.1.328 run (tests/fixtures/README.md says where it came from).
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "claude-code-2.1.328" / "hook-payloads.jsonl"
RECORDED_CWD = "/home/dev/src/shop"


@dataclass
class HookRun:
    code: int
    stdout: str
    stderr: str

    @property
    def answer(self) -> dict[str, Any] | None:
        return json.loads(self.stdout) if self.stdout.strip() else None

    @property
    def context(self) -> str:
        answer = self.answer or {}
        return str(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))

    @property
    def held(self) -> str:
        """The reason a tool call was held (refused once) with, in any tool's format; "" if not."""
        answer = self.answer or {}
        specific = answer.get("hookSpecificOutput", {})
        if specific.get("permissionDecision") == "deny":  # Claude Code, Codex
            return str(specific.get("permissionDecisionReason", ""))
        if answer.get("decision") == "deny":  # Gemini CLI BeforeTool
            return str(answer.get("reason", ""))
        return ""


def run_hook(tool: str, event: str, payload: Any, *, now: str = "2026-03-02T09:00:00Z",
             holdout: str | None = "off", raw: bytes | None = None, env: dict[str, str] | None = None) -> HookRun:  # fmt: skip
    full = dict(os.environ)
    full["KENNING_NOW"] = now
    full.pop("KENNING_HOLDOUT", None)
    if holdout is not None:
        full["KENNING_HOLDOUT"] = holdout
    full.update(env or {})
    data = raw if raw is not None else json.dumps(payload).encode()
    done = subprocess.run([sys.executable, "-m", "kenning.hooks.main", tool, event], input=data,
                          capture_output=True, env=full, timeout=60, check=False)  # fmt: skip
    return HookRun(done.returncode, done.stdout.decode(), done.stderr.decode())


def claude_payloads(cwd: Path, session: str = "afc9f6a0-f85f-4b43-a086-90d0c0b1f29b") -> list[dict[str, Any]]:
    """The recorded Claude Code 2.1.328 payloads, moved to ``cwd`` and ``session``."""
    out = []
    for line in FIXTURE.read_text().splitlines():
        text = line.replace(RECORDED_CWD, str(cwd)).replace("afc9f6a0-f85f-4b43-a086-90d0c0b1f29b", session)
        out.append(json.loads(text))
    return out


def claude(cwd: Path, event: str, session: str, **fields: Any) -> dict[str, Any]:
    """One payload in Claude Code's shape (the recorded one for ``event``, fields replaced)."""
    base = next(p for p in claude_payloads(cwd, session) if p["hook_event_name"] == event)
    base.update(fields)
    return base


def codex(cwd: Path, event: str, session: str, **fields: Any) -> dict[str, Any]:
    """Codex 0.169: Claude-like snake_case plus turn_id and model; transcript_path may be null."""
    base: dict[str, Any] = {"session_id": session, "turn_id": "1", "transcript_path": None, "cwd": str(cwd),
                            "hook_event_name": event, "model": "gpt-5-codex", "permission_mode": "default"}  # fmt: skip
    if event == "SessionStart":
        base["source"] = "startup"
    if event == "Stop":
        base.update(stop_hook_active=False, last_assistant_message="Done.")
    base.update(fields)
    return base


def gemini(cwd: Path, event: str, session: str, **fields: Any) -> dict[str, Any]:
    """Gemini CLI 0.61: base fields plus the event's own (prompt, tool_*, prompt_response)."""
    base: dict[str, Any] = {"session_id": session, "transcript_path": f"/home/dev/.gemini/tmp/shop/chats/{session}.jsonl",
                            "cwd": str(cwd), "hook_event_name": event, "timestamp": "2026-03-02T09:00:00.000Z"}  # fmt: skip
    if event == "SessionStart":
        base["source"] = "startup"
    if event == "AfterAgent":
        base.update(prompt="fix it", prompt_response="Done.", stop_hook_active=False)
    base.update(fields)
    return base


def git_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="A", GIT_AUTHOR_EMAIL="a@example.com",
               GIT_COMMITTER_NAME="A", GIT_COMMITTER_EMAIL="a@example.com")  # fmt: skip
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "init"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return root


def git(root: Path, *args: str) -> str:
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="A", GIT_AUTHOR_EMAIL="a@example.com",
               GIT_COMMITTER_NAME="A", GIT_COMMITTER_EMAIL="a@example.com")  # fmt: skip
    return subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True).stdout


def run_lines(home: Path) -> list[list[str]]:
    path = home / "hook-runs.log"
    return [line.split("\t") for line in path.read_text().splitlines()] if path.exists() else []
