"""Runners for the real Codex and Gemini CLIs (Claude Code's is in e2e_support), and Codex's
hook-trust hash."""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from e2e_support import Json, Workspace, parse_stream

# ---------------------------------------------------------------- Codex

CODEX_EVENT_KEYS = {"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit",
                    "PreToolUse": "pre_tool_use", "PostToolUse": "post_tool_use", "Stop": "stop",
                    "PermissionRequest": "permission_request", "PreCompact": "pre_compact",
                    "PostCompact": "post_compact", "SessionEnd": "session_end"}


def codex_hook_hash(event: str, group: Json, handler: Json) -> str:
    """The hash Codex 0.169 stores as a hook's ``trusted_hash`` (codex-rs/hooks discovery.rs).

    It is sha256 over compact, key-sorted JSON of the normalised identity: the event's
    snake_case label, the group's matcher (left out when absent) and the one handler with
    ``timeout`` defaulted to 600 and ``async`` to false (``statusMessage`` left out when absent).
    """
    norm: Json = {"type": "command", "command": handler["command"],
                  "timeout": max(1, int(handler.get("timeout") or handler.get("timeoutSec") or 600)),
                  "async": bool(handler.get("async", False))}
    if handler.get("statusMessage") is not None:
        norm["statusMessage"] = handler["statusMessage"]
    identity: Json = {"event_name": CODEX_EVENT_KEYS[event], "hooks": [norm]}
    if group.get("matcher") is not None:
        identity["matcher"] = group["matcher"]
    data = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(data.encode()).hexdigest()


def codex_trust_toml(hooks_file: Path, hooks: Json) -> str:
    """``[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash = ...`` for every hook."""
    out = []
    for event, groups in hooks.get("hooks", {}).items():
        for gi, group in enumerate(groups):
            for hi, handler in enumerate(group.get("hooks", [])):
                key = f"{hooks_file}:{CODEX_EVENT_KEYS[event]}:{gi}:{hi}"
                out.append(f"[hooks.state.{json.dumps(key)}]\n"
                           f"trusted_hash = {json.dumps(codex_hook_hash(event, group, handler))}\n")
    return "\n".join(out)


@dataclass
class JsonlRun:
    returncode: int
    stdout: str
    stderr: str
    events: list[Json]

    def items(self, kind: str) -> list[Json]:
        return [e["item"] for e in self.events
                if e.get("type") == "item.completed" and e.get("item", {}).get("type") == kind]

    def describe(self) -> str:
        return f"exit {self.returncode}\nstderr: {self.stderr[-2000:]}\nstdout tail: {self.stdout[-3000:]}"


@dataclass
class Codex:
    """Runs the real ``codex exec`` in a workspace against a scripted Responses API."""

    cli: Path
    ws: Workspace

    @property
    def codex_home(self) -> Path:
        return self.ws.home / ".codex"

    def write_config(self, base_url: str, extra: str = "") -> None:
        """The user config a test starts from: the scripted provider, no approvals, no sandbox.

        Kept to the top-level keys and one provider table so `kenning install codex` can add
        its own tables after it.
        """
        self.codex_home.mkdir(parents=True, exist_ok=True)
        path = self.codex_home / "config.toml"
        text = path.read_text() if path.exists() else ""
        head = (f'model = "gpt-5-codex"\nmodel_provider = "scripted"\napproval_policy = "never"\n'
                f'sandbox_mode = "danger-full-access"\n\n'
                f'[model_providers.scripted]\nname = "scripted"\nbase_url = "{base_url}/v1"\n'
                f'wire_api = "responses"\nenv_key = "OPENAI_API_KEY"\nrequest_max_retries = 0\n'
                f'stream_max_retries = 0\n\n')
        path.write_text(head + text + extra)

    def run(self, prompt: str, *, extra_args: tuple[str, ...] = (), env: dict[str, str] | None = None,
            timeout: float = 120) -> JsonlRun:
        args = [str(self.cli), "exec", "--json", "--skip-git-repo-check", *extra_args, prompt]
        full_env = self.ws.env(OPENAI_API_KEY="sk-test-offline", **(env or {}))
        proc = subprocess.run(args, cwd=self.ws.repo, env=full_env, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
        return JsonlRun(proc.returncode, proc.stdout, proc.stderr, parse_stream(proc.stdout))

    def rollouts(self) -> list[Path]:
        return sorted((self.codex_home / "sessions").rglob("rollout-*.jsonl"))


# ---------------------------------------------------------------- Gemini CLI

GEMINI_MODEL = "gemini-2.5-pro"  # a fixed model: "auto" would first ask a classifier model to route


@dataclass
class Gemini:
    """Runs the real ``gemini -p`` in a workspace against a scripted Gemini API."""

    cli: Path
    ws: Workspace

    @property
    def settings_path(self) -> Path:
        return self.ws.home / ".gemini" / "settings.json"

    def write_settings(self, settings: Json) -> None:
        """Merge ``settings`` over the offline base (API-key auth, no stats, no updates)."""
        base: Json = {"security": {"auth": {"selectedType": "gemini-api-key"}},
                      "privacy": {"usageStatisticsEnabled": False},
                      "general": {"disableAutoUpdate": True, "disableUpdateNag": True}}
        if self.settings_path.exists():
            base.update(json.loads(self.settings_path.read_text()))
        base.update(settings)
        self.settings_path.parent.mkdir(parents=True, exist_ok=True)
        self.settings_path.write_text(json.dumps(base, indent=2))

    def run(self, prompt: str, base_url: str, *, env: dict[str, str] | None = None,
            timeout: float = 120) -> JsonlRun:
        args = [str(self.cli), "-p", prompt, "--output-format", "stream-json", "--yolo", "--skip-trust",
                "-m", GEMINI_MODEL]
        full_env = self.ws.env(GEMINI_API_KEY="test-key-offline", GOOGLE_GEMINI_BASE_URL=base_url,
                               **(env or {}))
        proc = subprocess.run(args, cwd=self.ws.repo, env=full_env, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
        return JsonlRun(proc.returncode, proc.stdout, proc.stderr, parse_stream(proc.stdout))

    def transcripts(self) -> list[Path]:
        return sorted((self.ws.home / ".gemini" / "tmp").glob("*/chats/session-*.json*"))


def gemini_request_text(body: Json) -> str:
    """All text parts of a generateContent request (system instruction and contents)."""
    parts: list[str] = []
    system = body.get("systemInstruction") or {}
    parts.extend(str(p.get("text", "")) for p in system.get("parts", []))
    for content in body.get("contents", []):
        for part in content.get("parts", []):
            if "text" in part:
                parts.append(str(part["text"]))
            if "functionResponse" in part:
                parts.append(json.dumps(part["functionResponse"]))
    return "\n".join(parts)
