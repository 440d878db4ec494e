"""A secret typed in a prompt, printed by a tool and said by the assistant never reaches any
byte under the data folder, another session's brief or notes, or what any command or MCP tool
prints. Everything runs for real: the hooks as subprocesses on payloads in Claude Code's exact
shape, the transcript where Claude Code writes it, the `kenning` command, and the MCP server
over stdio through the official client.

Each secret sits where a cut used to fall (the 300 characters of a stored prompt, the 2,000 of
a tool's output): cutting before redacting left a fragment of it behind. One more has no prefix
at all (a password known only by its sentence). A third session starts in a project set to
start with the wake-up bundle, so the prepared file the hooks keep holds captured words too.
"""

from __future__ import annotations

import json
import os
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from transcript import Transcript, token

KENNING = [sys.executable, "-m", "kenning.cli"]
HOOK = [sys.executable, "-m", "kenning.hooks.main", "claude-code"]
S1_SESSION = "1b0c2a7e-3b4d-4e5f-8a6b-7c8d9e0f1a2b"
S2_SESSION = "2c1d3b8f-4c5e-4f60-9b7c-8d9e0f1a2b3c"
S3_SESSION = "3d2e4c9a-5d6f-4a71-8c8d-9e0f1a2b3c4d"

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class World:
    def __init__(self, tmp: Path, home: Path) -> None:
        self.home = home  # kenning's data folder
        self.user_home = tmp / "user-home"
        self.repo = tmp / "src" / "shop"
        self.repo.mkdir(parents=True)
        self.gitconfig = tmp / "gitconfig"
        self.gitconfig.write_text("[init]\n\tdefaultBranch = main\n[user]\n\tname = A\n\temail = a@example.com\n")
        for args in (["init", "-q"], ["remote", "add", "origin", "git@github.com:acme/shop.git"]):
            subprocess.run(["git", *args], cwd=self.repo, check=True, env=self.env())
        # One secret per place a person or a tool puts words: the prompt (astride the 300
        # characters other sessions are shown), a tool's output (astride the 2,000 kept of it)
        # and the assistant's reply.
        self.prompt_secret = token("ghp_", 36)
        self.tool_secret = token("sk-ant-api03-", 90)
        self.reply_secret = token("sk_live_", 32)
        # And one with no prefix, known only by the sentence around it.
        self.prose_secret = token("Qz", 14, string.ascii_letters + string.digits + "!#%&*") + "7!"
        self.prompt = (("Fix the failing deploy of the shop. " * 8)[:285] + f" token {self.prompt_secret} please; "
                       f"the staging admin password is {self.prose_secret} if you need it")
        self.tool_output = "x" * 1975 + f" {self.tool_secret}\nok"
        self.reply = f"I set the Stripe key to {self.reply_secret} in the env file; the deploy passes now."
        self.transcript = Transcript(S1_SESSION, self.repo)
        self.transcript.user(self.prompt)
        self.transcript.bash("./deploy.sh --dry-run", self.tool_output)
        self.transcript.assistant(self.reply)
        self.transcript_path = self.transcript.write(self.user_home)

    @property
    def secrets(self) -> list[str]:
        return [self.prompt_secret, self.tool_secret, self.reply_secret, self.prose_secret]

    def env(self) -> dict[str, str]:
        return {**os.environ, "KENNING_HOME": str(self.home), "HOME": str(self.user_home),
                "GIT_CONFIG_GLOBAL": str(self.gitconfig), "GIT_CONFIG_NOSYSTEM": "1",
                "KENNING_NOW": "2026-03-02T10:30:00Z", "KENNING_HOLDOUT": "off", "KENNING_BACKGROUND": "off"}  # fmt: skip

    def hook(self, event: str, session: str, **fields: object) -> str:
        payload = {"session_id": session, "transcript_path": str(self.transcript_path), "cwd": str(self.repo),
                   "hook_event_name": event, **fields}  # fmt: skip
        done = subprocess.run([*HOOK, event], input=json.dumps(payload).encode(), capture_output=True,
                              env=self.env(), timeout=60, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout.decode()

    def kenning(self, *args: str) -> str:
        done = subprocess.run([*KENNING, *args], cwd=self.repo, capture_output=True, text=True, env=self.env(),
                              timeout=120, check=False)  # fmt: skip
        assert done.returncode == 0, (args, done.stderr)
        return done.stdout + done.stderr


def leaks(text: str | bytes, secret: str) -> bool:
    """Whether any 10 characters in a row of the secret's random part are in ``text``."""
    body = re.sub(r"^[a-z_]+-?(?:ant-api03-)?", "", secret)
    hay = text if isinstance(text, bytes) else text.encode()
    return any(body[i : i + 10].encode() in hay for i in range(len(body) - 9))


def assert_clean(where: str, text: str | bytes, world: World) -> None:
    for secret in world.secrets:
        assert not leaks(text, secret), f"{secret[:8]}… leaked into {where}"


async def test_no_secret_reaches_storage_another_session_or_any_output(tmp_path: Path, kenning_home: Path) -> None:
    world = World(tmp_path, kenning_home)
    seen: dict[str, str] = {}

    # Session 1 works: its prompt, a tool call, its reply, its end (which escalates it).
    world.hook("SessionStart", S1_SESSION, source="startup", model="claude-opus-5-5")
    world.hook("UserPromptSubmit", S1_SESSION, prompt=world.prompt, permission_mode="default")
    world.hook("PreToolUse", S1_SESSION, tool_name="Bash", tool_input={"command": "./deploy.sh --dry-run"},
               tool_use_id="toolu_01", permission_mode="default")  # fmt: skip
    world.hook("PostToolUse", S1_SESSION, tool_name="Bash", tool_input={"command": "./deploy.sh --dry-run"},
               tool_response={"stdout": world.tool_output, "stderr": "", "interrupted": False},
               tool_use_id="toolu_01", permission_mode="default")  # fmt: skip
    world.hook("Stop", S1_SESSION, stop_hook_active=False, last_assistant_message=world.reply)

    # Session 2 starts in the same project while session 1 is live: its brief names session 1
    # ("Others"), and its first prompt's notes say another agent works here.
    seen["session 2 brief"] = world.hook("SessionStart", S2_SESSION, source="startup", model="claude-opus-5-5")
    seen["session 2 notes"] = world.hook("UserPromptSubmit", S2_SESSION, prompt="What is left to do on the deploy?",
                                         permission_mode="default")  # fmt: skip
    assert "asked" in seen["session 2 brief"] and "last said" in seen["session 2 notes"], seen

    world.hook("SessionEnd", S1_SESSION, reason="prompt_input_exit")

    # Everything the CLI prints about the session.
    seen["sync"] = world.kenning("sessions", "sync", "--quiet")
    seen["search"] = world.kenning("sessions", "search", "deploy", "Stripe", "key", "--json")
    hits = json.loads(world.kenning("sessions", "search", "deploy", "--json"))
    assert hits, "the session was captured"
    session, chunk = hits[0]["session"], str(hits[0]["chunk"])
    seen["show"] = world.kenning("sessions", "show", session, "--json")
    seen["context"] = world.kenning("sessions", "context", session, chunk, "--json")
    seen["resume"] = world.kenning("sessions", "resume")
    seen["resume --json"] = world.kenning("sessions", "resume", "--json")
    seen["resume --transcript"] = world.kenning("sessions", "resume", "--transcript", str(world.transcript_path), "--json")
    seen["escalate"] = world.kenning("sessions", "escalate", session, "--json")
    seen["wake-up"] = world.kenning("sessions", "wake-up")
    seen["kg"] = world.kenning("graph", "query", "shop")
    # A third session in a project set to start with the wake-up bundle: its brief carries the
    # bundle, and the prepared file kept for the next hooks holds it too.
    world.kenning("config", "set", "start.wakeup", "on")
    seen["session 3 brief with wake-up"] = world.hook("SessionStart", S3_SESSION, source="startup", model="claude-opus-5-5")
    assert "wake" in seen["session 3 brief with wake-up"].lower(), seen["session 3 brief with wake-up"]
    # The secrets really were in what these read: the redaction, not a miss, kept them out.
    assert any(leaks(world.transcript_path.read_bytes(), s) for s in world.secrets)
    assert "[secret]" in seen["show"] and "[secret]" in seen["resume --transcript"]

    # And what the MCP tools give an agent.
    params = StdioServerParameters(command=sys.executable, args=["-m", "kenning.cli", "mcp", "--tools", "all"],
                                   env={**world.env(), "CLAUDE_PROJECT_DIR": str(world.repo)})  # fmt: skip
    async with Client(params) as client:
        calls = {
            "search_sessions": {"query": "deploy Stripe key"},
            "show_session": {"session": session},
            "session_context": {"session": session, "chunk": int(chunk)},
            "smart_resume": {},
            "wake_up": {},
            "kg_query": {"entity": "shop"},
        }
        for name, args in calls.items():
            result = await client.call_tool(name, args)
            assert not result.is_error, (name, result.content)
            seen[f"mcp {name}"] = "\n".join(getattr(c, "text", "") for c in result.content) + json.dumps(
                result.structured_content or {}
            )

    for where, text in seen.items():
        assert_clean(where, text, world)
    # Every byte under the data folder: the database, its WAL and shared memory, the logs,
    # the markers and the trigger file.
    files = [p for p in world.home.rglob("*") if p.is_file()]
    assert {"kenning.db", "hook-runs.log"} <= {p.name for p in files}
    prepared = [json.loads(p.read_text()) for p in files if p.parent.name == "prepared"]
    assert any(isinstance(p.get("wakeup"), str) and p["wakeup"] for p in prepared), prepared
    for path in files:
        assert_clean(str(path.relative_to(world.home)), path.read_bytes(), world)
