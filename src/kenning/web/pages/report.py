"""Report: what kenning holds and how sessions met it, as charts (inline SVG).

Each figure is built by one function from numbers the core computes today: what the store
holds (kinds, statuses, writers) and the sessions the hooks saw per tool and group. The
memory report of issue 18 (given vs used, reach, the holdout comparison) adds its figures to
:data:`FIGURES` from its own core function; nothing here estimates a number.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from kenning.core import browse, report
from kenning.core.service import Core
from kenning.errors import Invalid
from kenning.model import Kind, Status
from kenning.store.protocol import MemoryFilter
from kenning.web.charts import Figure, figure
from kenning.web.common import core_for, page, project_of

router = APIRouter()
WINDOWS = (7, 30, 90, 365)


@dataclass(frozen=True)
class Window:
    project: str
    days: int
    since: datetime


def _statuses(core: Core, w: Window, status: Status, facet: str) -> dict[str, int]:
    flt = MemoryFilter(core.workspace, browse.scope_keys(core, w.project), statuses=(status,))
    return core.store.facet_counts(flt, facet)


def held_by_kind(core: Core, w: Window) -> Figure | None:
    series = (Status.ACTIVE, Status.SUPERSEDED, Status.RETIRED)
    counts = [_statuses(core, w, s, "kind") for s in series]
    rows = [(k.value, [float(c.get(k.value, 0)) for c in counts]) for k in Kind]
    return figure("held", "Memories held, by kind and status", rows, [s.value for s in series],
                  note="Everything written here; superseded and retired memories stay stored.",
                  source="kenning status")  # fmt: skip


def active_by_writer(core: Core, w: Window) -> Figure | None:
    writers = _statuses(core, w, Status.ACTIVE, "origin_tool")
    rows = sorted(((name or "(not recorded)", [float(n)]) for name, n in writers.items()), key=lambda r: -r[1][0])
    return figure("writers", "Active memories, by writer", rows[:12], ["active"],
                  note="The tool or app that wrote each memory (cli is you at the command line).",
                  source="kenning list --json")  # fmt: skip


def sessions_by_group(core: Core, w: Window) -> Figure | None:
    tools = report.sessions_by_tool(core, w.since, w.project)
    rows = [(t.tool, [float(t.pointed), float(t.holdout)]) for t in tools]
    return figure("sessions", f"Sessions the hooks saw in the last {w.days} days, by group", rows,
                  ["pointed at memory", "holdout"],
                  note="One session in four is held out: it is not pointed at memory, so the two groups can be "
                       "compared.", source="hook records")  # fmt: skip


def sessions_recalled(core: Core, w: Window) -> Figure | None:
    tools = report.sessions_by_tool(core, w.since, w.project)
    rows = [(t.tool, [float(t.recalled), float(t.total - t.recalled)]) for t in tools]
    return figure("recalled", f"Sessions that called recall, last {w.days} days", rows,
                  ["called recall", "did not"], palette=[0, 2],
                  note="Counted by the hooks when a session's tool call was recall.", source="hook records")  # fmt: skip


# The report page shows these in order; issue 18's memory report appends its own.
FIGURES: list[Callable[[Core, Window], Figure | None]] = [held_by_kind, active_by_writer, sessions_by_group,
                                                          sessions_recalled]  # fmt: skip


@router.get("/report")
def report_page(request: Request) -> Response:
    project = project_of(request)
    raw = request.query_params.get("days", "30")
    if not raw.isdigit() or int(raw) not in WINDOWS:
        raise Invalid(f"days {raw!r} is not offered", fix=f"use one of {', '.join(map(str, WINDOWS))}")
    days = int(raw)
    with core_for(request) as core:
        window = Window(project, days, core.now() - timedelta(days=days))
        figures = [f for f in (build(core, window) for build in FIGURES) if f is not None]
        return page(request, core, "report.html", "report", figures=figures, days=days, windows=WINDOWS)
