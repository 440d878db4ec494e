"""Which MCP tools a server offers: a small default set, the rest in groups a person opts into.

Clients that load every tool into every session pay for each tool's name, description and
schemas in context on every turn, so the default is what an agent needs in every session:
recall, remember, get and list memories, propose a change, search past sessions. The others
are one group each (`kenning mcp --tools core,work`, or `--tools all`); bench/mcp_tools_size.py
measures the `tools/list` size of each.
"""

from __future__ import annotations

from collections.abc import Iterable

from kenning.errors import Invalid

CORE = "core"
ALL = "all"
GROUPS: dict[str, tuple[str, ...]] = {
    CORE: ("recall", "remember", "get_memory", "list_memories", "propose_memory_change", "search_sessions"),
    "sessions": ("show_session", "session_context", "smart_resume", "wake_up"),
    "decisions": ("record_decision", "decision_record"),
    "work": ("get_agent_run", "log_progress", "set_goal", "handoff"),
    "graph": ("kg_query", "kg_add", "kg_timeline", "diary_write", "diary_read", "set", "get"),
    "health": ("memory_health", "memory_report"),
    "index": ("memory_index", "place_memory"),
    "team": ("recall_workspaces",),
}
DEFAULT: tuple[str, ...] = (CORE,)
HELP = "; ".join(f"{name}: {', '.join(tools)}" for name, tools in GROUPS.items())


def parse(text: str) -> tuple[str, ...]:
    """``core,work`` -> the groups, in a stable order; ``all`` -> every group."""
    names = [n.strip().lower() for n in text.split(",") if n.strip()]
    if not names:
        raise Invalid("no tool group given", fix=f"give one or more of: {', '.join(GROUPS)}, or all")
    if ALL in names:
        return tuple(GROUPS)
    unknown = [n for n in names if n not in GROUPS]
    if unknown:
        raise Invalid(f"unknown tool group {', '.join(map(repr, unknown))}",
                      fix=f"use a comma-separated list of: {', '.join(GROUPS)}, or all")  # fmt: skip
    return tuple(g for g in GROUPS if g in names)


def tools_of(groups: Iterable[str]) -> frozenset[str]:
    """The tool names the groups offer."""
    return frozenset(tool for group in groups for tool in GROUPS[group])
