"""The memory report as text (``kenning report``, MCP ``memory_report``'s ``text``) and the
sample sheet a person judges deliveries on (``kenning report --sample N``)."""

from __future__ import annotations

from datetime import datetime

from kenning.clock import to_iso
from kenning.context.memory_report import Report, SampleItem
from kenning.core.render import memory_line
from kenning.domain.welch import ENOUGH
from kenning.quoting import as_data, cut

NO_SESSIONS = ("No sessions in this window: nothing to report. Sessions appear once kenning's hooks run in an "
               "agent tool (kenning install) or its transcripts are captured (kenning sessions sync).")  # fmt: skip


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.0f}%"


def _n(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        return "  " + "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True)))
    return [line(head), *(line(r) for r in rows)]


def render(report: Report) -> str:
    w = report.window
    where = w.project or "all projects"
    out = [f"Memory report — {where}, {to_iso(w.since)[:10]} to {to_iso(w.until)[:10]} ({w.days:g} days)"]
    if report.empty:
        return "\n".join([*out, "", NO_SESSIONS])
    out += ["", f"Sessions (the hooks saw {report.seen} start; {report.captured} captured)"]
    out += _table(["tool", "pointed", "holdout", "from task", "not seen by hooks", "captured", "work", "handed memory", "reach"],
                  [[t.tool, str(t.pointed), str(t.holdout), str(t.from_task), str(t.unseen), str(t.captured), str(t.work),
                    str(t.handed), _pct(t.reach)] for t in report.tools])  # fmt: skip
    out += ["  reach: captured work sessions handed memory ÷ sessions captured", ""]
    out += ["Given vs used (used: its ref cited later, listed in used=, or — recall — its file then touched)"]
    out += _table(["channel", "given", "sessions", "judged", "used", "share used"],
                  [[c.channel, str(c.given), str(c.sessions), str(c.judged), str(c.used), _pct(c.share)]
                   for c in report.channels])  # fmt: skip
    out += ["  judged: given to a session whose transcript was captured; the brief and notes carry no memory by design", ""]
    h = report.holdout
    out += [f"Does memory help? Per session, pointed at memory (n={h.pointed}) vs the holdout (n={h.holdout})"]
    out += _table(["measure", "pointed", "holdout", "difference", "95% interval", "sessions needed"],
                  [[m.label, _n(m.comparison.a.mean), _n(m.comparison.b.mean), _n(m.comparison.difference),
                    f"{_n(m.comparison.low)} to {_n(m.comparison.high)}" if m.comparison.low is not None else "—",
                    f"{m.comparison.needed_a} + {m.comparison.needed_b}" if m.comparison.needed_a else "—"]
                   for m in h.measures])  # fmt: skip
    if not h.enough:
        out.append(f"  fewer than {ENOUGH} sessions in a group: read the interval, not the difference")
    out.append("  difference: pointed − holdout (Welch); sessions needed: pointed + holdout to tell it at 5 % with 80 % power")
    health = report.health
    out += ["", "Health",
            f"  memories written ÷ distinct memories cited: {health.written} ÷ {health.cited}"
            f" = {_n(health.written_per_cited)} (lower is better)"]  # fmt: skip
    imported = ", ".join(f"{tool} {n}" for tool, n in sorted(health.imported.items())) or "none"
    out.append(f"  imported from the agents' own memory files: {imported}")
    if health.projects:
        out += _table(["project", "active", "index lines", "changed citations", "gone citations"],
                      [[p.project, str(p.active), str(p.index_lines), str(p.changed), str(p.gone)]
                       for p in health.projects])  # fmt: skip
    return "\n".join(out)


def sheet(items: list[SampleItem], seed: int, now: datetime, where: str) -> str:
    """The sample sheet: each delivery, what was given, the session's next turns, and a line
    for the person's judgement. Memory and transcript text is quoted (it is data)."""
    out = [f"# Memory deliveries to judge — {where}, {to_iso(now)[:10]}", "",
           f"{len(items)} deliveries drawn at random (seed {seed}: `kenning report --sample {len(items)} --seed {seed}` "
           "draws the same ones). For each, read what the session did next and mark whether the memory was used.",
           "kenning's own verdict is shown for comparison: cited (its ref appeared later), used= (listed as used), "
           "acted on (a recall hit whose file was then touched), not used, or not judged (no transcript).", ""]  # fmt: skip
    for n, item in enumerate(items, 1):
        d = item.delivery
        given = memory_line(item.memory, limit=400) if item.memory is not None else f"{d.ref} (no longer stored)"
        out += [f"## {n}. {d.channel} · {d.ref} · {d.session} ({item.group}) · {to_iso(d.at)[:16].replace('T', ' ')}", "",
                f"- Given: {given}", f"- kenning's verdict: {item.verdict}", "- Next turns:"]  # fmt: skip
        if not item.next_turns:
            out.append("  - (none captured)")
        for turn in item.next_turns:
            calls = "; ".join(f"{c.name} {cut(as_data(c.input), 160)}" + (f" (refs {' '.join(c.refs)})" if c.refs else "")
                              for c in turn.calls)  # fmt: skip
            said = [cut(as_data(turn.text), 400)] if turn.text.strip() else []
            out.append(f"  - {turn.role}: " + " — ".join([*said, *([f"calls: {calls}"] if calls else [])]))
        out += ["- Your judgement: [ ] used  [ ] not used  [ ] can't tell", ""]
    return "\n".join(out)
