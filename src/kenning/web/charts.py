"""Chart components drawn as inline SVG by the templates (no script, no library): the
geometry is computed here, the drawing lives in ``templates/_charts.html``.

A :class:`Figure` is what the report page lists: a title, a chart, the numbers as a table (the
text alternative, also read by screen readers) and where the numbers come from. The memory
report (issue 18) adds its figures by building more of them from the core's numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

LABEL_WIDTH = 150
ROW_HEIGHT = 26
BAR_HEIGHT = 16
TOP = 8
AXIS = 22


@dataclass(frozen=True)
class Segment:
    series: int  # the series' colour class
    name: str  # the series' name
    value: float
    x: float
    width: float


@dataclass(frozen=True)
class Row:
    label: str
    total: float
    y: float
    segments: list[Segment]


@dataclass(frozen=True)
class Tick:
    x: float
    label: str


@dataclass(frozen=True)
class BarChart:
    """Horizontal bars, stacked when there is more than one series."""

    series: list[str]
    colours: list[int]  # each series' colour class
    rows: list[Row]
    ticks: list[Tick]
    width: int
    height: int
    plot_left: int
    plot_width: int
    unit: str = ""

    @property
    def empty(self) -> bool:
        return not self.rows or all(r.total == 0 for r in self.rows)


def axis(value: float, *, ticks: int = 4) -> tuple[float, float]:
    """``(end, step)`` of an axis from 0 holding ``value``: the step is 1, 2 or 5 times a power
    of ten (never below 1, as the charts count things), the end a whole number of steps."""
    if value <= 0:
        return 1.0, 1.0
    raw = value / ticks
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if raw <= m * power)
    step = max(step, 1.0)
    return math.ceil(value / step) * step, step


def _fmt(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}".rstrip("0").rstrip(".")


def bars(rows: Sequence[tuple[str, Sequence[float]]], series: Sequence[str], *, width: int = 640,
         unit: str = "", palette: Sequence[int] = ()) -> BarChart:  # fmt: skip
    """Rows of ``(label, one value per series)``; the bars share one axis from 0. ``palette``
    picks each series' colour (default: in order)."""
    plot_left = LABEL_WIDTH
    plot_width = width - plot_left - 16
    top, step = axis(max((sum(values) for _, values in rows), default=0.0))
    scale = plot_width / top
    colours = list(palette) or list(range(len(series)))
    out: list[Row] = []
    for i, (label, values) in enumerate(rows):
        x = float(plot_left)
        segs = []
        for s, value in enumerate(values):
            w = max(0.0, value * scale)
            if value > 0:
                segs.append(Segment(colours[s], series[s], value, round(x, 2), round(max(w, 1.0), 2)))
            x += w
        out.append(Row(label, float(sum(values)), TOP + i * ROW_HEIGHT, segs))
    count = round(top / step)
    ticks = [Tick(round(plot_left + plot_width * k / count, 2), _fmt(step * k)) for k in range(count + 1)]
    height = TOP + len(rows) * ROW_HEIGHT + AXIS
    return BarChart(list(series), colours, out, ticks, width, height, plot_left, plot_width, unit)


@dataclass(frozen=True)
class Figure:
    key: str  # stable id (anchor, tests)
    title: str
    chart: BarChart
    note: str = ""  # how to read it: what counts, what is not measured
    source: str = ""  # where the numbers come from (a command that prints them)
    table_head: list[str] = field(default_factory=list)
    table: list[list[str]] = field(default_factory=list)


def figure(key: str, title: str, rows: Sequence[tuple[str, Sequence[float]]], series: Sequence[str], *,
           note: str = "", source: str = "", unit: str = "", palette: Sequence[int] = ()) -> Figure:  # fmt: skip
    """A chart with its numbers as a table (label, each series, total when stacked)."""
    chart = bars(rows, series, unit=unit, palette=palette)
    stacked = len(series) > 1
    head = ["", *series, *(["total"] if stacked else [])]
    table = [[label, *map(_fmt, values), *([_fmt(sum(values))] if stacked else [])] for label, values in rows]
    return Figure(key, title, chart, note, source, head, table)
