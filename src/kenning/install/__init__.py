"""Registering kenning in agent tools (Claude Code, Codex, Gemini CLI, Cursor, OpenCode)."""
