"""A Claude Code 2.1.328 transcript, line by line in the shape the tool writes it (the same
envelope as tests/graph/data/claude_export.jsonl), built around the words a test needs."""

from __future__ import annotations

import json
import secrets
import string
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

VERSION = "2.1.328"


def token(prefix: str, length: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    """A fresh secret in a provider's shape: never the same twice, never in the repository."""
    return prefix + "".join(secrets.choice(alphabet) for _ in range(length))


@dataclass
class Transcript:
    session: str
    cwd: Path
    branch: str = "main"
    lines: list[dict[str, Any]] = field(default_factory=list)
    _minute: int = 0
    _parent: str | None = None

    def _envelope(self, kind: str, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
        self._minute += 1
        uid = str(uuid.uuid4())
        line = {"parentUuid": self._parent, "isSidechain": False, "type": kind, "uuid": uid,
                "timestamp": f"2026-03-02T10:{self._minute:02d}:00.000Z", "userType": "external",
                "entrypoint": "cli", "cwd": str(self.cwd), "sessionId": self.session, "version": VERSION,
                "gitBranch": self.branch, "message": message, **extra}  # fmt: skip
        self._parent = uid
        self.lines.append(line)
        return line

    def user(self, text: str) -> None:
        self._envelope("user", {"role": "user", "content": text}, promptSource="user", permissionMode="default")

    def assistant(self, text: str) -> None:
        self._envelope("assistant", {"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant",
                                     "model": "claude-opus-5-5", "content": [{"type": "text", "text": text}],
                                     "stop_reason": None, "usage": {"input_tokens": 12, "output_tokens": 40}})  # fmt: skip

    def bash(self, command: str, output: str, *, failed: bool = False) -> None:
        call = f"toolu_{uuid.uuid4().hex[:20]}"
        self._envelope("assistant", {"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant",
                                     "model": "claude-opus-5-5", "stop_reason": None,
                                     "content": [{"type": "tool_use", "id": call, "name": "Bash",
                                                  "input": {"command": command, "description": "Run it"}}],
                                     "usage": {"input_tokens": 12, "output_tokens": 40}})  # fmt: skip
        result: dict[str, Any] = {"tool_use_id": call, "type": "tool_result", "content": output}
        if failed:
            result["is_error"] = True
        self._envelope("user", {"role": "user", "content": [result]},
                       toolUseResult={"stdout": output, "stderr": "", "interrupted": False})

    def write(self, user_home: Path) -> Path:
        """Where Claude Code keeps it: ~/.claude/projects/<cwd with / as ->/<session>.jsonl."""
        folder = user_home / ".claude" / "projects" / str(self.cwd).replace("/", "-")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.session}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in self.lines), encoding="utf-8")
        return path
