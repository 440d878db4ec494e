"""The memory report on a built history: every figure checked against what the history holds.

Nine sessions in two projects over three agent tools, recorded as the product records them
(tests/core/report_history.py): the real hook process for every hook event (briefs, prompts,
lessons held before a call, a task's card, a handoff note quoting a ref), the MCP server's
recording of recall hits tied to the session through the hook's call log, an index given to an
automation run, `used=` recorded by the core, and transcripts in Claude Code, Codex and Gemini
CLI's formats captured by the real sync. One session is older than the window; one runs in
another project; one is captured but no hook saw it; one was seen by hooks but never captured.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client
from report_history import NOW, SHOP, SITE, History, build_history, t

from cli_runner import make_shop_repo, run
from kenning import gitinfo
from kenning.clock import FixedClock, to_iso
from kenning.config import Settings
from kenning.context import index as index_mod
from kenning.context import memory_report, report_text
from kenning.core.service import Core
from kenning.domain import welch
from kenning.errors import Invalid, NotFound
from kenning.mcp.server import build_server


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Core, History]]:
    tmp = tmp_path_factory.mktemp("report")
    mp = pytest.MonkeyPatch()
    mp.setenv("GIT_CONFIG_GLOBAL", str(tmp / "gitconfig"))
    (tmp / "gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    gitinfo.clear_cache()
    home, user_home = tmp / "kenning", tmp / "user"
    clock = FixedClock(t("2026-03-01T09:00:00Z"))
    core = Core.open(Settings(home=home), clock)
    try:
        yield core, build_history(core, clock, home, user_home, tmp)
    finally:
        core.close()
        mp.undo()


# ------------------------------------------------------------------------------ tests


def report(core: Core, project: str = "") -> memory_report.Report:
    return memory_report.build(core, memory_report.window(core.now(), project=project))


def test_sessions_per_tool_and_group_and_reach(built: tuple[Core, History]) -> None:
    core, _ = built
    rep = report(core)
    assert (rep.seen, rep.captured) == (7, 7)  # A B C D E H K seen; A B C D F H K captured
    rows = {r.tool: r for r in rep.tools}
    assert [r.tool for r in rep.tools] == ["claude-code", "codex", "gemini"]
    claude, codex, gemini = rows["claude-code"], rows["codex"], rows["gemini"]
    assert (claude.pointed, claude.holdout, claude.from_task, claude.unseen) == (4, 0, 1, 0)
    assert (claude.captured, claude.work, claude.handed, claude.reach) == (3, 3, 2, 2 / 3)  # A, D handed; K not
    assert (codex.pointed, codex.holdout, codex.unseen, codex.captured, codex.work, codex.handed) == (0, 1, 1, 2, 2, 0)
    assert codex.reach == 0.0
    assert (gemini.pointed, gemini.holdout, gemini.captured, gemini.work, gemini.handed, gemini.reach) == (1, 1, 2, 2, 2, 1.0)


def test_given_vs_used_per_channel_and_how(built: tuple[Core, History]) -> None:
    core, _ = built
    rows = {c.channel: c for c in report(core).channels}
    assert list(rows) == ["brief", "card", "index", "lesson", "recall", "note"]
    got = {ch: (c.given, c.sessions, c.judged, c.used, c.how) for ch, c in rows.items()}
    assert got == {
        "brief": (0, 0, 0, 0, {}),  # the brief carries no memory
        "card": (1, 1, 1, 1, {"used=": 1}),  # P1 to D, then used=
        "index": (2, 1, 0, 0, {}),  # P1 and D1 to an automation run: no transcript
        "lesson": (3, 3, 2, 2, {"cited": 2}),  # L1 to A (cited), D1 to C (cited in used=), L1 to E (not captured)
        "recall": (2, 1, 2, 1, {"acted on": 1}),  # D1 (its file edited next) and F1 (not used) to A
        "note": (1, 1, 1, 0, {}),  # a handoff quoting D1 reached H, which never cited it
    }
    assert rows["recall"].share == 0.5 and rows["index"].share is None


def test_holdout_comparison_side_by_side(built: tuple[Core, History]) -> None:
    core, _ = built
    h = report(core).holdout
    assert (h.pointed, h.holdout, h.enough) == (3, 2, False)  # A C K vs B H; D started from a task
    lists = {  # per session, pointed (A, C, K) and holdout (B, H)
        "corrections": ([2, 0, 0], [1, 0]), "repeated_asks": ([1, 0, 0], [1, 0]), "recall_calls": ([1, 0, 0], [0, 0]),
        "edits": ([2, 0, 0], [2, 1]), "reverted": ([0, 0, 0], [1, 0]),
    }  # fmt: skip
    for m in h.measures:
        pointed, holdout = lists[m.key]
        c = m.comparison
        assert (c.a.n, c.b.n) == (3, 2)
        assert c.a.mean == pytest.approx(sum(pointed) / 3) and c.b.mean == pytest.approx(sum(holdout) / 2), m.key
        assert c.difference == pytest.approx(sum(pointed) / 3 - sum(holdout) / 2), m.key
        assert c == welch.compare([float(x) for x in pointed], [float(x) for x in holdout], ratio=3)
    corrections = next(m for m in h.measures if m.key == "corrections").comparison
    assert corrections.low is not None and corrections.high is not None
    assert corrections.low < corrections.difference < corrections.high  # type: ignore[operator]
    assert corrections.needed_a == 3 * corrections.needed_b  # type: ignore[operator]


def test_health(built: tuple[Core, History]) -> None:
    core, h = built
    health = report(core).health
    assert health.written == 8  # all but OLD, written before the window
    assert health.cited == 3  # L1 (A's words), D1 (C's used=), P1 (D's used=); F1 only before the window
    assert health.written_per_cited == pytest.approx(8 / 3)
    assert health.imported == {"claude-code": 1, "codex": 1}
    (shop,) = health.projects
    assert (shop.project, shop.active, shop.index_lines, shop.changed, shop.gone) == (SHOP, 9, 2, 1, 1)
    assert [m.ref for m in index_mod.choose(core, core.place(project=SHOP))] == [h.refs["P1"], h.refs["D1"]]


def test_one_project(built: tuple[Core, History]) -> None:
    core, _ = built
    site = report(core, SITE)
    assert (site.seen, site.captured) == (1, 1)
    assert [(r.tool, r.pointed, r.captured, r.handed) for r in site.tools] == [("claude-code", 1, 1, 0)]
    assert all(c.given == 0 for c in site.channels)
    assert [(p.project, p.active, p.index_lines) for p in site.health.projects] == [(SITE, 0, 0)]
    assert site.health.written == 0
    shop = report(core, SHOP)
    assert (shop.seen, shop.captured) == (6, 6)
    assert sum(c.given for c in shop.channels) == 9
    with pytest.raises(NotFound, match="no project 'github.com/acme/nowhere'"):
        report(core, "github.com/acme/nowhere")


def test_the_window_and_an_empty_one(built: tuple[Core, History]) -> None:
    core, _ = built
    older = memory_report.build(core, memory_report.window(core.now(), since="2026-01-01"))
    assert (older.seen, older.captured) == (8, 8)  # G joins
    assert next(r for r in older.tools if r.tool == "claude-code").holdout == 1
    assert older.health.cited == 4  # F1, cited by G
    empty = memory_report.build(core, memory_report.window(t("2026-02-01T00:00:00Z"), days=7))
    assert empty.empty and all(c.given == 0 for c in empty.channels) and empty.tools == []
    with pytest.raises(Invalid, match="not both"):
        memory_report.window(core.now(), days=3, since="2026-03-01")
    with pytest.raises(Invalid, match="out of range"):
        memory_report.window(core.now(), days=0)
    with pytest.raises(Invalid, match="not a date"):
        memory_report.window(core.now(), since="last tuesday")
    with pytest.raises(Invalid, match="not in the past"):
        memory_report.window(core.now(), since="2027-01-01")


def test_a_sample_of_deliveries_to_judge(built: tuple[Core, History]) -> None:
    core, h = built
    win = memory_report.window(core.now())
    seed, items = memory_report.sample(core, win, 50, seed=7)
    assert seed == 7 and len(items) == 9  # every delivery to a known session (the run's two index lines too)
    again = memory_report.sample(core, win, 3, seed=7)[1]
    assert [i.delivery for i in again] == [i.delivery for i in memory_report.sample(core, win, 3, seed=7)[1]]
    by = {(i.delivery.channel, i.delivery.ref, i.delivery.session): i for i in items}
    lesson = by[("lesson", h.refs["L1"], h.sessions["A"])]
    assert lesson.group == "pointed" and lesson.verdict == "cited"
    assert [turn.role for turn in lesson.next_turns] == ["assistant", "tool", "assistant", "assistant"]
    assert h.refs["L1"] in lesson.next_turns[2].text
    assert by[("recall", h.refs["F1"], h.sessions["A"])].verdict == "not used"
    assert by[("lesson", h.refs["L1"], h.sessions["E"])].verdict == "not judged (no transcript)"
    assert by[("note", h.refs["D1"], h.sessions["H"])].group == "holdout"
    with pytest.raises(Invalid):
        memory_report.sample(core, win, 0)


# ---------------------------------------------------------------- the CLI and MCP adapters


def cli(built: tuple[Core, History], monkeypatch: pytest.MonkeyPatch, *args: str, ok: bool = True) -> tuple[int, str, str]:
    _, h = built
    monkeypatch.setenv("KENNING_NOW", to_iso(NOW))
    done = run(["report", *args], h.folders["shop"], h.home, ok=ok)
    return done.returncode, done.stdout, done.stderr


def test_cli_report_json_is_the_core_report_and_the_text_shows_it(built: tuple[Core, History],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    core, _ = built
    out = json.loads(cli(built, monkeypatch, "--json")[1])
    assert out == {**json.loads(json.dumps(memory_report.as_dict(report(core)))), "empty": False}
    assert out["tools"][0] == {"tool": "claude-code", "pointed": 4, "holdout": 0, "from_task": 1, "not_seen_by_hooks": 0,
                               "captured": 3, "work": 3, "handed_memory": 2, "reach": 0.6667}  # fmt: skip
    site = json.loads(cli(built, monkeypatch, "--project", SITE, "--json")[1])
    assert site["window"]["project"] == SITE and site["sessions"] == {"seen_by_hooks": 1, "captured": 1}
    weeks = json.loads(cli(built, monkeypatch, "--window", "11w", "--json")[1])
    assert t(weeks["window"]["since"]) == t("2026-01-02T12:00:00Z") and weeks["sessions"]["seen_by_hooks"] == 7
    since = json.loads(cli(built, monkeypatch, "--since", "2026-01-01", "--json")[1])
    assert since["sessions"] == {"seen_by_hooks": 8, "captured": 8}
    text = cli(built, monkeypatch)[1]
    lines = text.splitlines()
    assert lines[0] == "Memory report — all projects, 2026-02-18 to 2026-03-20 (30 days)"
    assert lines[1:3] == ["", "Sessions (the hooks saw 7 start; 7 captured)"]
    assert lines[4].split() == ["claude-code", "4", "0", "1", "0", "3", "3", "2", "67%"]
    recall = next(line for line in lines if line.strip().startswith("recall "))
    assert recall.split() == ["recall", "2", "1", "2", "1", "50%"]
    assert "memories written ÷ distinct memories cited: 8 ÷ 3 = 2.67 (lower is better)" in text
    assert "fewer than 50 sessions in a group" in text


def test_cli_refuses_bad_arguments_with_a_fix(built: tuple[Core, History], monkeypatch: pytest.MonkeyPatch) -> None:
    cases = [
        (["--window", "soon"], "is not a length of time"),
        (["--window", "0"], "out of range"),
        (["--window", "30d", "--since", "2026-03-01"], "not both"),
        (["--since", "yesterday"], "is not a date"),
        (["--project", "github.com/acme/nowhere"], "no project 'github.com/acme/nowhere'"),
        (["--seed", "3"], "--seed and --sheet go with --sample"),
        (["--sample", "0"], "out of range"),
    ]
    for args, message in cases:
        code, stdout, stderr = cli(built, monkeypatch, *args, ok=False)
        assert code == 1 and message in stderr and "Traceback" not in stderr, (args, stderr)
        assert stdout == "", args
    assert cli(built, monkeypatch, "--window", "many", ok=False)[2].count("--window 30") == 1  # the fix names a form


def test_cli_writes_a_sample_sheet_readable_by_its_owner(built: tuple[Core, History], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    core, h = built
    sheet = tmp_path / "judge.md"
    said = json.loads(cli(built, monkeypatch, "--sample", "4", "--seed", "11", "--sheet", str(sheet), "--json")[1])
    assert said == {"sheet": str(sheet), "seed": 11, "deliveries": 4, "asked": 4}
    assert stat.S_IMODE(sheet.stat().st_mode) == 0o600
    text = sheet.read_text()
    drawn = memory_report.sample(core, memory_report.window(core.now()), 4, seed=11)[1]
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert [line.split(" · ")[1] for line in headings] == [i.delivery.ref for i in drawn]
    assert text.count("- Your judgement: [ ] used  [ ] not used  [ ] can't tell") == 4
    assert "--sample 4 --seed 11" in text
    many = cli(built, monkeypatch, "--sample", "40", "--sheet", str(tmp_path / "all.md"))[1]
    assert many.startswith(f"wrote 9 deliveries to judge to {tmp_path / 'all.md'} (only 9 in the window); seed ")
    assert h.refs["L1"] in (tmp_path / "all.md").read_text()


def test_an_empty_store_says_so_plainly(tmp_path: Path, kenning_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_shop_repo(tmp_path)
    text = run(["report"], repo, kenning_home).stdout
    assert report_text.NO_SESSIONS in text and "Sessions (" not in text
    out = json.loads(run(["report", "--json"], repo, kenning_home).stdout)
    assert out["empty"] is True and out["note"] == report_text.NO_SESSIONS and out["tools"] == []
    nothing = run(["report", "--sample", "5"], repo, kenning_home, ok=False)
    assert nothing.returncode == 1 and "nothing to judge" in nothing.stderr


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_memory_report_for_this_project_and_every_one(built: tuple[Core, History]) -> None:
    core, h = built
    assert core.settings is not None
    server = build_server(core.settings, core=core, default_cwd=str(h.folders["shop"]), tools=("health",))
    async with Client(server) as client:
        here = await client.call_tool("memory_report", {})
        assert not here.is_error and here.structured_content is not None
        assert here.structured_content["report"] == json.loads(json.dumps(memory_report.as_dict(report(core, SHOP))))
        assert here.structured_content["text"] == report_text.render(report(core, SHOP))
        every = (await client.call_tool("memory_report", {"all_projects": True, "days": 30})).structured_content
        assert every is not None and every["report"]["sessions"] == {"seen_by_hooks": 7, "captured": 7}
        older = (await client.call_tool("memory_report", {"since": "2026-01-01", "all_projects": True})).structured_content
        assert older is not None and older["report"]["sessions"]["captured"] == 8
        for args, message in (({"days": 0}, "days"), ({"since": "soon"}, "is not a date"),
                              ({"days": 3, "since": "2026-03-01"}, "not both"), ({"weeks": 2}, "weeks")):  # fmt: skip
            bad = await client.call_tool("memory_report", args)
            assert bad.is_error and message in bad.content[0].text, args  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_mcp_memory_report_on_an_empty_store(settings: Settings, core: Core, tmp_path: Path) -> None:
    server = build_server(settings, core=core, default_cwd=str(tmp_path), tools=("health",))
    async with Client(server) as client:
        out = (await client.call_tool("memory_report", {})).structured_content
    assert out is not None and out["empty"] is True and report_text.NO_SESSIONS in out["text"]
