"""memory_health: is memory still reachable and worth trusting? Reports, and with
``repair`` moves memories to a scope recall reaches and drops citations that no longer
resolve (every change is listed first). Refs only: a memory's words never leave through
this report, so hidden and held memories stay out of it."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer

from kenning.core.health import health
from kenning.mcp.kit import Cwd, Strict, add_tool, app_of, guarded, place


class HealthOut(Strict):
    checked: int
    applied: bool
    moves: list[dict[str, str]]
    dropped_citations: list[dict[str, str]]
    files_not_found: list[str]
    not_judged: list[str]
    never_returned: list[str]
    longer_than_a_sentence: list[str]
    untagged: int
    exact_duplicates: list[list[str]]
    note: str


def memory_health(ctx: Context, repair: bool = False, all_projects: bool = False, cwd: Cwd = None) -> HealthOut:
    """Check this project's memory (or every project's): memories filed where recall cannot
    reach them, citations whose file is gone, and, untouched, memories recall never returned,
    longer than a sentence, untagged, or exact duplicates. Call without `repair` first and
    show the user what would change; repair only when they agree."""
    app = app_of(ctx)
    with guarded(app):
        scope = None if all_projects else place(app, cwd).project
        report = health(app.core, scope, repair=repair)
    note = "applied" if report.applied else ("nothing to repair" if not (report.moves or report.drops) else
                                              "nothing changed yet: call again with repair=true to apply these")  # fmt: skip
    return HealthOut(
        checked=report.checked, applied=report.applied,
        moves=[{"ref": m.ref, "from": m.from_scope, "to": m.to_scope, "why": m.why} for m in report.moves],
        dropped_citations=[{"ref": d.ref, "source_ref": d.source_ref, "why": d.why} for d in report.drops],
        files_not_found=report.files_not_found, not_judged=report.not_judged,
        never_returned=report.never_returned, longer_than_a_sentence=report.long, untagged=len(report.untagged),
        exact_duplicates=report.duplicates, note=note,
    )  # fmt: skip


def register(server: MCPServer[Any]) -> None:
    add_tool(server, memory_health, title="Check and repair memory health", read_only=False, destructive=True)
