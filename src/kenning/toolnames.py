"""What kind of call a tool call is, by the tool's name, in every agent tool: a shell command,
a read, an edit, or one of kenning's own MCP tools (recall, the memory index). The hooks decide
on it before a call; the memory report reads captured transcripts with it.

Plain string tests: this module is on every tool call's path (``re`` is not imported).
"""

from __future__ import annotations

SHELL_TOOLS = {"bash", "shell", "exec_command", "local_shell", "run_shell_command", "shell_command", "container.exec"}
READ_TOOLS = {"read", "read_file", "read_many_files", "view"}
EDIT_TOOLS = {"edit", "multiedit", "write", "notebookedit", "apply_patch", "write_file", "replace", "edit_file"}


def call_kind(tool_name: str) -> str:
    """shell, read, edit, recall, index, or "" for any other tool."""
    lowered = tool_name.lower()
    if lowered in SHELL_TOOLS:
        return "shell"
    if lowered in READ_TOOLS:
        return "read"
    if lowered in EDIT_TOOLS:
        return "edit"
    # Claude Code and Codex: mcp__kenning__recall (plugins: mcp__plugin_<p>_kenning__recall);
    # Gemini CLI: mcp_kenning_recall. Plain string tests: ``re`` is not imported on this path.
    if lowered.startswith("mcp_") and (lowered.endswith("kenning__recall") or lowered.endswith("_kenning_recall")):
        return "recall"
    if lowered.startswith("mcp_") and (lowered.endswith("kenning__memory_index")
                                       or lowered.endswith("_kenning_memory_index")):  # fmt: skip
        return "index"
    return ""
