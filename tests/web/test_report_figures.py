"""The report page's figures from the memory report: each number the core computed lands in
its chart and its table as it is (the numbers themselves are tested in tests/core)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from kenning.context import memory_report
from kenning.context.memory_report import ChannelRow, Health, Holdout, Measure, Report, ToolRow
from kenning.core.service import Core
from kenning.domain import welch
from kenning.web.pages import report as page

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def window_with(built: Report) -> page.Window:
    w = page.Window("", 30, NOW - timedelta(days=30))
    w._memo["report"] = built
    return w


def made() -> Report:
    tools = [ToolRow("codex", 6, 2, 1, 0, 8, 7, 6), ToolRow("gemini", 0, 0, 0, 3, 3, 1, 0),
             ToolRow("claude-code", 1, 0, 0, 0, 0, 0, 0)]  # fmt: skip
    channels = [ChannelRow("brief", 12, 5, 10, 4, {"cited": 4}), ChannelRow("recall", 3, 2, 3, 3, {"acted on": 3}),
                ChannelRow("card", 0, 0, 0, 0)]  # fmt: skip
    measures = [Measure("corrections", "corrections by the person", welch.compare([0, 1, 0, 1], [2, 1, 3])),
                Measure("edits", "edits", welch.compare([4.0], []))]  # fmt: skip
    return Report(memory_report.Window(NOW - timedelta(days=30), NOW), 9, 11, tools, channels,
                  Holdout(4, 3, measures), Health(5, 2, {}, []))  # fmt: skip


def test_reach_given_used_and_the_holdout_show_the_reports_numbers(core: Core) -> None:
    w = window_with(made())
    reach = page.reach(core, w)
    assert reach is not None
    assert reach.table == [["codex", "6", "2", "75 %"], ["gemini", "0", "3", "0 %"]]  # no captured session: no row
    assert [(r.label, [s.value for s in r.segments]) for r in reach.chart.rows] == [("codex", [6, 2]), ("gemini", [3])]
    given = page.given_used(core, w)
    assert given is not None
    assert given.table == [["brief", "12", "10", "4", "40 %"], ["recall", "3", "3", "3", "100 %"]]
    assert [[s.name for s in r.segments] for r in given.chart.rows] == [["used", "not used", "not judged"], ["used"]]
    held = page.holdout(core, w)
    assert held is not None
    corrections, edits = held.table
    assert corrections[:4] == ["corrections by the person", "0.50", "2.00", "-1.50"]
    assert corrections[4].count(" to ") == 1 and corrections[5] != "—"  # an interval and a sample size
    assert edits == ["edits", "4.00", "—", "—", "—", "—"]  # a group without sessions: nothing to compare
    assert [r.label for r in held.chart.rows] == ["corrections", "corrections", "edits", "edits"]
    assert "4 pointed at memory, 3 held out" in held.note and "worth reading" in held.note


def test_the_page_builds_the_memory_report_once(core: Core) -> None:
    w = page.Window("", 30, NOW - timedelta(days=30))
    first = w.memory(core)
    assert first.empty and w.memory(core) is first


def test_the_page_builds_the_report_without_index_lines_and_nothing_else_differs(core: Core) -> None:
    from kenning.core.remember import RememberRequest
    from kenning.model import Kind

    core.remember(core.place(project="github.com/acme/shop"), RememberRequest(text="Tax is rounded per line",
                                                                             kind=Kind.FACT))  # fmt: skip
    win = memory_report.window(core.now(), days=30)
    full = memory_report.build(core, win)
    light = memory_report.build(core, win, index_lines=False)
    assert [p.project for p in light.health.projects] == ["github.com/acme/shop"]
    assert [p.index_lines for p in light.health.projects] == [None]
    assert isinstance(full.health.projects[0].index_lines, int)
    counted = [replace(p, index_lines=q.index_lines) for p, q in zip(light.health.projects, full.health.projects, strict=True)]
    assert replace(light, health=replace(light.health, projects=counted)) == full
