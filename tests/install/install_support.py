"""A temp home holding realistic agent-tool configs: the user's own servers, hooks, comments."""

from __future__ import annotations

import json
from pathlib import Path

CLAUDE_JSON = {
    "numStartups": 41,
    "installMethod": "native",
    "autoUpdates": False,
    "theme": "dark",
    "hasCompletedOnboarding": True,
    "projects": {
        "/home/alice/src/shop": {
            "allowedTools": [],
            "mcpServers": {},
            "hasTrustDialogAccepted": True,
            "lastSessionId": "0d9c2a8e-5b7f-4f1e-9a3c-2e6d8b1f4a7c",
        }
    },
    "mcpServers": {
        "github": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}},
    },
    "userID": "5f1c0c8d2b",
}  # fmt: skip

CLAUDE_SETTINGS = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/.claude/hooks/guard.sh", "timeout": 5}]}
        ]
    },
    "model": "opus",
}

CODEX_TOML = """\
# Alice's Codex config
model = "gpt-5-codex"
approval_policy = "on-request"   # ask before running commands

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]

[mcp_servers.github.env]
GITHUB_PERSONAL_ACCESS_TOKEN = "ghp_placeholder"

[projects."/home/alice/src/shop"]
trust_level = "trusted"
"""

CODEX_HOOKS = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "/home/alice/bin/notify", "timeout": 5}]}]}}

GEMINI_SETTINGS = {
    "theme": "GitHub",
    "selectedAuthType": "oauth-personal",
    "mcpServers": {"sqlite": {"command": "uvx", "args": ["mcp-server-sqlite", "--db-path", "/home/alice/app.db"]}},
    "hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "say done", "timeout": 3000}]}]},
}

CURSOR_MCP = {"mcpServers": {"linear": {"url": "https://mcp.linear.app/sse"}}}

OPENCODE = {
    "$schema": "https://opencode.ai/config.json",
    "theme": "opencode",
    "mcp": {"context7": {"type": "remote", "url": "https://mcp.context7.com/mcp", "enabled": True}},
}

# A hook spec of our own (the real one is kenning.install.hooks_spec): seconds, "kenning ..." commands.
SPEC = {
    "claude-code": {
        "SessionStart": [{"matcher": "startup|resume|clear|compact",
                          "hooks": [{"type": "command", "command": "kenning hook claude SessionStart", "timeout": 10}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "kenning hook claude Stop", "timeout": 10}]}],
        "PreToolUse": [{"matcher": "Bash|Read|Edit|Write",
                        "hooks": [{"type": "command", "command": "kenning hook claude PreToolUse", "timeout": 5}]}],
    },
    "codex": {
        "SessionStart": [{"matcher": "startup|resume",
                          "hooks": [{"type": "command", "command": "kenning hook codex SessionStart", "timeout": 10}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "kenning hook codex Stop", "timeout": 10}]}],
    },
    "gemini-cli": {
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "kenning hook gemini SessionStart", "timeout": 10}]}],
        "AfterAgent": [{"hooks": [{"type": "command", "command": "kenning hook gemini AfterAgent", "timeout": 10}]}],
    },
}  # fmt: skip


def write_json(path: Path, data: object, indent: int = 2) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=indent) + "\n")


def realistic_home(home: Path) -> dict[Path, bytes]:
    """Write every tool's config as a user would have it; returns each file's bytes."""
    write_json(home / ".claude.json", CLAUDE_JSON)
    write_json(home / ".claude" / "settings.json", CLAUDE_SETTINGS)
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(CODEX_TOML)
    write_json(home / ".codex" / "hooks.json", CODEX_HOOKS)
    write_json(home / ".gemini" / "settings.json", GEMINI_SETTINGS, indent=4)
    write_json(home / ".cursor" / "mcp.json", CURSOR_MCP)
    write_json(home / ".config" / "opencode" / "opencode.json", OPENCODE, indent=2)
    return {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}


def read_json(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text())
    assert isinstance(data, dict)
    return data
