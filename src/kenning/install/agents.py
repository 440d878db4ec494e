"""The agent tools kenning registers in: where each keeps its config and how an entry reads.

Formats (see docs/install.md): Claude Code ``~/.claude.json`` (user-scope ``mcpServers``)
and ``~/.claude/settings.json`` (``hooks``); Codex ``~/.codex/config.toml``
(``[mcp_servers.kenning]``) and ``~/.codex/hooks.json`` with per-hook trust in config.toml;
Gemini CLI ``~/.gemini/settings.json`` (``mcpServers``, ``hooks`` in ms); Cursor
``~/.cursor/mcp.json``; OpenCode ``~/.config/opencode/opencode.json[c]`` (``mcp``).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kenning.errors import Invalid

NAME = "kenning"
# `kenning mcp` flag for tools kenning writes no hooks into (see kenning.mcp.server.INSTRUCTIONS).
POINT = "--point-at-recall"
# `kenning mcp` offers the core tool group unless told otherwise; install writes it out so a
# person sees where to add groups (kenning.mcp.groups.DEFAULT; a test holds the two equal).
TOOLS = ("--tools", "core")
MCP = ["mcp", *TOOLS]
Entry = Callable[[str, dict[str, str]], dict[str, Any]]


@dataclass(frozen=True)
class Agent:
    name: str
    label: str
    aliases: tuple[str, ...]
    binaries: tuple[str, ...]
    markers: tuple[str, ...]  # paths under home whose presence means the tool is set up
    mcp_file: str
    mcp_kind: str  # json | toml
    mcp_at: tuple[str, ...]  # keys down to the servers table
    entry: Entry
    hooks_file: str = ""  # "" when kenning writes no hooks for this tool
    hooks_ms: bool = False

    def mcp_path(self, home: Path) -> Path:
        if self.name == "opencode":
            folder = home / ".config" / "opencode"
            for name in ("opencode.json", "opencode.jsonc"):
                if (folder / name).exists():
                    return folder / name
        return home / self.mcp_file

    def hooks_path(self, home: Path) -> Path | None:
        return home / self.hooks_file if self.hooks_file else None

    def detected(self, home: Path, path_env: str | None) -> bool:
        if any((home / m).exists() for m in self.markers):
            return True
        return any(shutil.which(b, path=path_env) for b in self.binaries)


def _with_env(value: dict[str, Any], env: dict[str, str], key: str = "env") -> dict[str, Any]:
    if env:
        value[key] = dict(env)
    return value


AGENTS: list[Agent] = [
    Agent(
        "claude-code", "Claude Code", ("claude", "claude-code"), ("claude",), (".claude", ".claude.json"),
        ".claude.json", "json", ("mcpServers",),
        lambda exe, env: _with_env({"type": "stdio", "command": exe, "args": MCP}, env),
        hooks_file=".claude/settings.json",
    ),
    Agent(
        "codex", "Codex", ("codex",), ("codex",), (".codex",), ".codex/config.toml", "toml", ("mcp_servers",),
        # Codex starts MCP servers with a filtered environment: pass kenning's own variables
        # through, or `kenning mcp` would open another store than the hooks.
        lambda exe, env: _with_env({"command": exe, "args": MCP, "startup_timeout_sec": 20,
                                    "env_vars": ["KENNING_HOME", "KENNING_WORKSPACE", "KENNING_NOW"]}, env),
        hooks_file=".codex/hooks.json",
    ),
    Agent(
        "gemini-cli", "Gemini CLI", ("gemini", "gemini-cli"), ("gemini",), (".gemini",), ".gemini/settings.json",
        "json", ("mcpServers",), lambda exe, env: _with_env({"command": exe, "args": MCP}, env),
        hooks_file=".gemini/settings.json", hooks_ms=True,
    ),
    # No kenning hooks in these two: the MCP server's own instruction points sessions at recall.
    Agent(
        "cursor", "Cursor", ("cursor",), ("cursor", "cursor-agent"), (".cursor",), ".cursor/mcp.json", "json",
        ("mcpServers",), lambda exe, env: _with_env({"command": exe, "args": [*MCP, POINT]}, env),
    ),
    Agent(
        "opencode", "OpenCode", ("opencode",), ("opencode",), (".config/opencode",),
        ".config/opencode/opencode.json", "json", ("mcp",),
        lambda exe, env: _with_env({"type": "local", "command": [exe, *MCP, POINT], "enabled": True}, env,
                                   "environment"),
    ),
]  # fmt: skip


def agent(name: str) -> Agent:
    key = name.strip().lower()
    for a in AGENTS:
        if key == a.name or key in a.aliases:
            return a
    names = ", ".join(a.aliases[0] for a in AGENTS)
    raise Invalid(f"unknown agent tool {name!r}", fix=f"name one of: {names}")


def chosen(names: tuple[str, ...], home: Path, path_env: str | None) -> list[Agent]:
    """The named tools, or every tool detected under ``home`` (config folder or binary on PATH)."""
    if names:
        picked: list[Agent] = []
        for n in names:
            a = agent(n)
            if a not in picked:
                picked.append(a)
        return picked
    return [a for a in AGENTS if a.detected(home, path_env)]
