"""Helpers that run the REAL agent CLIs (Claude Code, Codex, Gemini CLI) offline.

Each test gets a temp ``HOME`` (the agent's config and transcripts), a temp git repository
as the working directory, a temp ``KENNING_HOME`` and a scripted model server on loopback.
The CLIs come from ``.agents-cli/`` (installed by ``.ci/install-agents``) at their pinned
versions; when one is missing its tests skip and say what to run.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

Json = dict[str, Any]

REPO_ROOT = Path(__file__).resolve().parents[2]
AGENTS_BIN = REPO_ROOT / ".agents-cli" / "bin"
# The kenning the agent runs must be this checkout's, never one found elsewhere on PATH.
KENNING = REPO_ROOT / ".venv" / "bin" / "kenning"
PINNED = {"claude": "2.1.328", "codex": "0.169.0", "gemini": "0.61.0"}
INSTALL_HINT = "run `.ci/install-agents {tool}` (needs npm and the npm registry)"

# Keep every CLI offline and quiet: no telemetry, updates, error reports or feedback surveys.
OFFLINE_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_BUG_COMMAND": "1",
    "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
    "NO_UPDATE_NOTIFIER": "1",
    "GEMINI_CLI_NO_RELAUNCH": "1",
    "CI": "1",
    # Under a load average of ~20 Claude Code's first turn sometimes ran before kenning's MCP
    # server had connected ("No such tool available: mcp__kenning__recall"). The tests give the
    # server time to start (MCP_TIMEOUT, ms) and ask the CLI to wait for it before the first
    # turn (MCP_CONNECTION_NONBLOCKING, read by Claude Code 2.1) so they test kenning, not the race.
    "MCP_CONNECTION_NONBLOCKING": "false",
    "MCP_TIMEOUT": "60000",
}
BASE_PATH = "/usr/local/bin:/usr/bin:/bin"


def find_cli(tool: str) -> Path | None:
    """The pinned CLI from .agents-cli/, else one on PATH if it reports the pinned version."""
    for candidate in (AGENTS_BIN / tool, shutil.which(tool)):
        if candidate is None or not Path(candidate).exists():
            continue
        try:
            out = subprocess.run([str(candidate), "--version"], capture_output=True, text=True,
                                 timeout=60, env={**os.environ, **OFFLINE_ENV}).stdout
        except (OSError, subprocess.TimeoutExpired):
            continue
        if PINNED[tool] in out:
            return Path(candidate)
    return None


def require_cli(tool: str) -> Path:
    """The pinned CLI, or skip the test saying how to install it."""
    path = find_cli(tool)
    if path is None:
        pytest.skip(f"{tool} {PINNED[tool]} not installed: {INSTALL_HINT.format(tool=tool)}")
    return path


@functools.cache
def _kenning_help(*path: str) -> tuple[int, str]:
    proc = subprocess.run([str(KENNING), *path, "--help"], capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stdout + proc.stderr


def require_kenning(*needed: str) -> None:
    """Skip when kenning is not installed or lacks a command not built yet (``needed`` are
    command paths such as "sessions sync"); FAIL when it is installed but does not start (a
    broken CLI must not look like a missing feature)."""
    if not KENNING.exists():
        pytest.skip(f"{KENNING} not found: run `make test` once (or `.venv/bin/pip install -e '.[dev]'`)")
    code, out = _kenning_help()
    if code != 0:
        pytest.fail(f"`{KENNING} --help` exits {code}:\n{out[-3000:]}")
    missing = [c for c in needed if _kenning_help(*c.split())[0] != 0]
    if missing:
        pytest.skip(f"kenning has no command(s) {', '.join(missing)} yet "
                    f"(`{KENNING} --help`); these scenarios need them")


def make_git_repo(path: Path, branch: str = "main") -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git = ["git", "-c", "user.email=dev@example.com", "-c", "user.name=Dev", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=path, check=True)
    (path / "README.md").write_text("# shop\n")
    (path / "tests").mkdir(exist_ok=True)
    (path / "tests" / "test_login.py").write_text(
        "import datetime\n\ndef test_login_expiry():\n    assert datetime.datetime.now().tzinfo is None\n")
    subprocess.run([*git, "add", "."], cwd=path, check=True)
    subprocess.run([*git, "commit", "-qm", "initial"], cwd=path, check=True)
    if branch != "main":
        subprocess.run(["git", "checkout", "-qb", branch], cwd=path, check=True)
    return path


@dataclass
class Workspace:
    """A temp HOME, a temp git repo and a temp kenning data folder for one test."""

    root: Path
    home: Path
    repo: Path
    kenning_home: Path
    extra_env: dict[str, str] = field(default_factory=dict)

    def env(self, **overrides: str) -> dict[str, str]:
        path = os.pathsep.join([str(KENNING.parent), str(AGENTS_BIN), BASE_PATH])
        env = {
            "PATH": path,
            "HOME": str(self.home),
            "USER": "dev",
            "LANG": "C.UTF-8",
            "TMPDIR": str(self.root / "tmp"),
            "KENNING_HOME": str(self.kenning_home),
            "GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.com",
            "GIT_COMMITTER_NAME": "Dev", "GIT_COMMITTER_EMAIL": "dev@example.com",
            **OFFLINE_ENV,
            **self.extra_env,
        }
        env.update(overrides)
        return env

    def kenning(self, *args: str, input: str | None = None, check: bool = True,
                cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """Run this checkout's kenning with the workspace's env (as a user would)."""
        proc = subprocess.run([str(KENNING), *args], cwd=cwd or self.repo, env=self.env(), input=input,
                              capture_output=True, text=True, timeout=120)
        if check and proc.returncode != 0:
            raise AssertionError(f"kenning {' '.join(args)} failed ({proc.returncode}):\n"
                                 f"{proc.stdout}\n{proc.stderr}")
        return proc


@dataclass
class StreamRun:
    """What ``claude -p --output-format stream-json`` printed, parsed."""

    returncode: int
    stdout: str
    stderr: str
    events: list[Json]

    @property
    def session_id(self) -> str:
        return str(next(e["session_id"] for e in self.events if e.get("session_id")))

    @property
    def init(self) -> Json:
        return next((e for e in self.events if e.get("subtype") == "init"), {})

    @property
    def result(self) -> Json:
        return next((e for e in reversed(self.events) if e.get("type") == "result"), {})

    def hook_responses(self, event: str | None = None) -> list[Json]:
        return [e for e in self.events if e.get("subtype") == "hook_response"
                and (event is None or e.get("hook_event") == event)]

    def tool_results(self) -> list[Json]:
        """Every tool_result block the CLI fed back to the model, in order."""
        out: list[Json] = []
        for e in self.events:
            if e.get("type") != "user":
                continue
            content = e.get("message", {}).get("content")
            if isinstance(content, list):
                out.extend(b for b in content if b.get("type") == "tool_result")
        return out

    def describe(self) -> str:
        return f"exit {self.returncode}\nstderr: {self.stderr[-2000:]}\nstdout tail: {self.stdout[-3000:]}"


def parse_stream(stdout: str) -> list[Json]:
    events = []
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                events.append(json.loads(line))
            except ValueError:
                continue
    return events


@dataclass
class Claude:
    """Runs the real ``claude -p`` in a workspace against a scripted model server."""

    cli: Path
    ws: Workspace

    @property
    def settings_path(self) -> Path:
        return self.ws.home / ".claude" / "settings.json"

    def write_settings(self, settings: Json) -> None:
        self.settings_path.parent.mkdir(parents=True, exist_ok=True)
        self.settings_path.write_text(json.dumps(settings, indent=2))

    def run(self, prompt: str, base_url: str, *, allowed: str = "Bash Read Edit Write mcp__kenning",
            extra_args: tuple[str, ...] = (), env: dict[str, str] | None = None,
            timeout: float = 120) -> StreamRun:
        args = [str(self.cli), "-p", prompt, "--output-format", "stream-json", "--include-hook-events",
                "--verbose", "--allowedTools", allowed, *extra_args]
        full_env = self.ws.env(ANTHROPIC_BASE_URL=base_url, ANTHROPIC_API_KEY="sk-ant-test-offline",
                               **(env or {}))
        proc = subprocess.run(args, cwd=self.ws.repo, env=full_env, capture_output=True, text=True,
                              timeout=timeout)
        return StreamRun(proc.returncode, proc.stdout, proc.stderr, parse_stream(proc.stdout))

    def transcript(self, session_id: str) -> Path:
        matches = list((self.ws.home / ".claude" / "projects").glob(f"*/{session_id}.jsonl"))
        assert matches, f"no transcript for session {session_id} under {self.ws.home}/.claude/projects"
        return matches[0]


def request_text(body: Json) -> str:
    """All the text of one Messages API request: system prompt and every message block."""
    parts: list[str] = []
    system = body.get("system")
    if isinstance(system, str):
        parts.append(system)
    elif isinstance(system, list):
        parts.extend(str(b.get("text", "")) for b in system)
    parts.extend(_content_text(m.get("content")) for m in body.get("messages", []))
    return "\n".join(parts)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for block in content:
            if not isinstance(block, dict):
                continue
            if "text" in block:
                out.append(str(block["text"]))
            if block.get("type") == "tool_result":
                out.append(_content_text(block.get("content")))
        return "\n".join(out)
    return ""


def tool_result_for(body: Json, tool_use_id: str | None = None) -> Json | None:
    """The last tool_result block in a request (or the one answering ``tool_use_id``)."""
    found = None
    for message in body.get("messages", []):
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result" and (
                    tool_use_id is None or block.get("tool_use_id") == tool_use_id):
                found = block
    return found

