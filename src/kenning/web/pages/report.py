"""Report: what kenning holds and how sessions met it, as charts (inline SVG).

Each figure is built by one function from numbers the core computes: what the store holds
(kinds, statuses, writers), the sessions the hooks saw per tool and group, and the memory
report (:mod:`kenning.context.memory_report`: reach, given vs used per channel, the holdout
comparison), built once per page. Nothing here estimates a number.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from kenning.context import memory_report
from kenning.core import browse, report
from kenning.core.service import Core
from kenning.errors import Invalid
from kenning.model import Kind, Status
from kenning.store.protocol import MemoryFilter
from kenning.web.charts import Figure, bars, figure
from kenning.web.common import core_for, page, project_of

router = APIRouter()
WINDOWS = (7, 30, 90, 365)


@dataclass(frozen=True)
class Window:
    project: str
    days: int
    since: datetime
    _memo: dict[str, memory_report.Report] = field(default_factory=dict, compare=False, repr=False)

    def memory(self, core: Core) -> memory_report.Report:
        """The memory report for this window and project, built once per page."""
        if "report" not in self._memo:
            win = memory_report.window(core.now(), days=self.days, project=self.project)
            self._memo["report"] = memory_report.build(core, win, check_project=False, index_lines=False)
        return self._memo["report"]


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


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f} %" if whole else "—"


def reach(core: Core, w: Window) -> Figure | None:
    tools = [t for t in w.memory(core).tools if t.captured]
    rows = [(t.tool, [float(t.handed), float(t.captured - t.handed)]) for t in tools]
    f = figure("reach", f"Reach: captured sessions handed memory, last {w.days} days", rows,
               ["handed memory", "not handed"], palette=[0, 2],
               note="Reach per tool: captured sessions in which the agent worked (made a tool call) and was handed "
                    "at least one memory, of all sessions captured.", source="kenning report")  # fmt: skip
    table = [[t.tool, str(t.handed), str(t.captured - t.handed), _pct(t.handed, t.captured)] for t in tools]
    return Figure(f.key, f.title, f.chart, f.note, f.source, ["", "handed memory", "not handed", "reach"], table)


def given_used(core: Core, w: Window) -> Figure | None:
    channels = [c for c in w.memory(core).channels if c.given]
    rows = [(c.channel, [float(c.used), float(c.judged - c.used), float(c.given - c.judged)]) for c in channels]
    f = figure("given-used", f"Memories given and then used, per channel, last {w.days} days", rows,
               ["used", "not used", "not judged"], palette=[0, 2, 3],
               note="Given: a memory handed to a session (brief, card, index, lesson, recall, note). Used: the agent "
                    "cited its ref, recorded it with used=, or (recall) then read, edited or ran the file it cites. "
                    "Not judged: the session's transcript was not captured.", source="kenning report")  # fmt: skip
    table = [[c.channel, str(c.given), str(c.judged), str(c.used), _pct(c.used, c.judged)] for c in channels]
    return Figure(f.key, f.title, f.chart, f.note, f.source, ["", "given", "judged", "used", "used of judged"], table)


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def holdout(core: Core, w: Window) -> Figure | None:
    h = w.memory(core).holdout
    rows: list[tuple[str, list[float]]] = []
    table = []
    for m in h.measures:
        c = m.comparison
        name = m.key.replace("_", " ")  # the bar's label (the table has the whole words)
        rows += [(name, [c.a.mean or 0.0, 0.0]), (name, [0.0, c.b.mean or 0.0])]
        interval = f"{_num(c.low)} to {_num(c.high)}" if c.low is not None else "—"
        needed = str(c.needed_a) + " / " + str(c.needed_b) if c.needed_a is not None else "—"
        table.append([m.label, _num(c.a.mean), _num(c.b.mean), _num(c.difference), interval, needed])
    enough = "" if h.enough else " Fewer sessions than a difference needs to be worth reading: read the interval."
    note = (f"Per session, mean of each group ({h.pointed} pointed at memory, {h.holdout} held out); the table "
            f"gives the difference (pointed − holdout), its 95 % Welch interval and the sessions each group would "
            f"need to tell it.{enough}")  # fmt: skip
    chart = bars(rows, ["pointed at memory", "holdout"])
    head = ["", "pointed", "holdout", "difference", "95 % interval", "sessions needed (pointed / holdout)"]
    return Figure("holdout", f"The holdout comparison, last {w.days} days", chart, note, "kenning report", head, table)


# The report page shows these in order.
FIGURES: list[Callable[[Core, Window], Figure | None]] = [held_by_kind, active_by_writer, sessions_by_group,
                                                          sessions_recalled, reach, given_used, holdout]  # fmt: skip


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
