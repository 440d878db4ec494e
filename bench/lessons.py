"""Lessons on tool calls: do the right lessons arrive? Precision and recall of arrival and the
per-call cap, on a labelled corpus (bench/_lessons_corpus.py) of real-shaped tool calls in
Claude Code, Codex and Gemini CLI across three projects.

Every call goes through the hook's own entry point (``kenning.hooks.main.run``, the function
the hook process runs, here in-process so the corpus runs in seconds), after the session's
SessionStart; what arrived is read from the hook's answer (the refs of the held call). The
core's path (``kenning.core.lessons.for_call``, what `kenning` and the MCP server use) runs on
the same calls beside it as the baseline: the two must agree.

Expected arrivals: the corpus labels each call with the lessons a person would want on it;
kenning's stated rules then say what should arrive — each lesson once per session, at most 2
per call, triggered lessons newest first, then the lessons and decisions citing the touched
file. A lesson held back by the cap is still expected on a later call that wants it.

Run: .venv/bin/python bench/lessons.py   (--quick is accepted and changes nothing: one pass is
a few seconds of CPU)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import _lessons_corpus as corpus  # bench/ is on the path when a script here runs
from _results import write_section
from kenning.clock import FixedClock, to_iso
from kenning.config import Settings
from kenning.core import lessons as core_lessons
from kenning.core.remember import RememberRequest
from kenning.core.service import Core
from kenning.hooks import events
from kenning.hooks import main as hook_main
from kenning.model import Kind, Origin, Placing, Trigger, TriggerTool
from kenning.refscan import refs_in

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "hooks.md"
HEADING = "## Lessons on tool calls: precision and recall of arrival"
RECORDED = ROOT / "tests" / "fixtures" / "claude-code-2.1.328" / "hook-payloads.jsonl"
RECORDED_CWD = "/home/dev/src/shop"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
TARGET = 0.95
EVENT = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}


@dataclass
class Outcome:
    tool: str
    project: str
    kind: str  # shell | read | edit
    label: str  # the call, short
    wanted: frozenset[str]
    expected: tuple[str, ...]
    hook: tuple[str, ...]
    core: tuple[str, ...]
    given: frozenset[str]  # expected to have arrived earlier in the session


def git_projects(base: Path) -> dict[str, Path]:
    env = dict(os.environ, GIT_AUTHOR_NAME="B", GIT_AUTHOR_EMAIL="b@example.com", GIT_COMMITTER_NAME="B",
               GIT_COMMITTER_EMAIL="b@example.com", GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)  # fmt: skip
    roots = {}
    for name, remote in corpus.PROJECTS.items():
        root = base / "src" / name
        for rel in corpus.FILES[name]:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(f"# {rel}\n")
        for args in (["init", "-q", "-b", "main"], ["remote", "add", "origin", remote], ["add", "-A"], ["commit", "-q", "-m", "init"]):
            subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
        roots[name] = root
    return roots


def write_lessons(core: Core, clock: FixedClock, roots: dict[str, Path]) -> dict[str, str]:
    """Each lesson of the corpus as the person writes it, one minute apart; ref -> name."""
    names = {}
    for i, lesson in enumerate(corpus.LESSONS):
        clock.set(START + timedelta(minutes=i))
        trigger = Trigger(TriggerTool(lesson.trigger[0]), lesson.trigger[1]) if lesson.trigger else None
        place = core.place(roots[lesson.project or "shop"])
        done = core.remember(place, RememberRequest(
            text=lesson.text, kind=Kind(lesson.kind), when=trigger, source_ref=lesson.cites, origin=Origin.PERSON,
            reason="the person said so" if lesson.kind == "decision" else "", global_=not lesson.project))  # fmt: skip
        assert done.memory is not None, (lesson.name, done)
        ref = done.memory.ref
        names[ref] = lesson.name
        if lesson.retired:
            core.retire(ref, "replaced")
        for project in lesson.not_here:
            core.place_memory(ref, Placing.NOT_HERE, core.place(roots[project]).project, by="person")
    return names


def recorded_calls(root: Path) -> list[corpus.Call]:
    calls = []
    for line in RECORDED.read_text().splitlines():
        payload = json.loads(line.replace(RECORDED_CWD, str(root)))
        if payload["hook_event_name"] == "PreToolUse":
            calls.append(corpus.Call(payload["tool_name"], payload["tool_input"]))
    assert len(calls) == len(corpus.RECORDED_WANTED), "the recorded session's calls changed: label them again"
    return [corpus.Call(c.tool_name, c.tool_input, w) for c, w in zip(calls, corpus.RECORDED_WANTED, strict=True)]


def payload(tool: str, session: str, cwd: Path, event: str, **fields: Any) -> dict[str, Any]:
    """A hook payload in the tool's own shape (the fields of tests/hooks/hookrun_helper.py)."""
    base: dict[str, Any] = {"session_id": session, "cwd": str(cwd), "hook_event_name": event}
    if tool == "claude-code":
        base.update(transcript_path=f"/home/dev/.claude/projects/x/{session}.jsonl", permission_mode="default")
    elif tool == "codex":
        base.update(turn_id="1", transcript_path=None, model="gpt-5-codex", permission_mode="default")
    else:
        base.update(transcript_path=f"/home/dev/.gemini/tmp/x/chats/{session}.jsonl", timestamp="2026-03-03T09:00:00.000Z")
    if event == "SessionStart":
        base["source"] = "startup"
    base.update(fields)
    return base


def fill(value: Any, root: Path) -> Any:
    if isinstance(value, str):
        return value.replace("{root}", str(root))
    if isinstance(value, list):
        return [fill(v, root) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, root) for k, v in value.items()}
    return value


def expected_of(wanted: frozenset[str], given: set[str]) -> tuple[str, ...]:
    """What kenning's rules say should arrive: not given yet this session, triggered lessons
    newest first, then the citing ones newest first, at most 2."""
    order = {lesson.name: i for i, lesson in enumerate(corpus.LESSONS)}
    by_name = {lesson.name: lesson for lesson in corpus.LESSONS}
    fresh = [n for n in wanted if n not in given]
    triggered = sorted((n for n in fresh if by_name[n].trigger), key=lambda n: -order[n])
    citing = sorted((n for n in fresh if not by_name[n].trigger), key=lambda n: -order[n])
    return tuple([*triggered, *citing][: core_lessons.PER_CALL])


def run_corpus(home: Path, core: Core, roots: dict[str, Path], names: dict[str, str]) -> tuple[list[Outcome], float, float]:
    env = {"KENNING_HOME": str(home), "KENNING_NOW": to_iso(START + timedelta(days=1)), "KENNING_HOLDOUT": "off",
           "KENNING_BACKGROUND": "off", "PATH": os.environ.get("PATH", ""), "HOME": str(home.parent)}  # fmt: skip
    outcomes, cpu, wall, n = [], 0.0, 0.0, 0
    for s_index, session in enumerate(corpus.SESSIONS):
        sid = f"{s_index:08x}-be0c-4000-8000-{s_index:012x}"
        root = roots[session.project]
        calls = recorded_calls(root) if session.calls and session.calls[0].tool_name == corpus.RECORDED else session.calls
        start = payload(session.tool, sid, root, "SessionStart")
        hook_main.run([session.tool, "SessionStart"], json.dumps(start).encode(), env)
        given: set[str] = set()
        place = core.place(root)
        for call in calls:
            tool_input = fill(call.tool_input, root)
            body = payload(session.tool, sid, root, EVENT[session.tool], tool_name=call.tool_name, tool_input=tool_input)
            c0, w0 = time.process_time(), time.perf_counter()
            _, out = hook_main.run([session.tool, EVENT[session.tool]], json.dumps(body).encode(), env)
            cpu, wall, n = cpu + time.process_time() - c0, wall + time.perf_counter() - w0, n + 1
            hook = tuple(names.get(ref, ref) for ref in dict.fromkeys(refs_in(out)))
            event = events.normalise(session.tool, EVENT[session.tool], body)
            assert event is not None
            got = core_lessons.for_call(core, place, core_lessons.ToolCall(event.call_kind, event.command, event.paths),
                                        f"core-{session.tool}:{sid}", str(root))  # fmt: skip
            expected = expected_of(call.wanted, given)
            outcomes.append(Outcome(session.tool, session.project, event.call_kind, describe(call, root), call.wanted,
                                    expected, hook, tuple(names.get(m.ref, m.ref) for m in got), frozenset(given)))  # fmt: skip
            given |= set(expected)
    return outcomes, cpu / max(n, 1), wall / max(n, 1)


def describe(call: corpus.Call, root: Path) -> str:
    raw = call.tool_input
    text = raw.get("command") or raw.get("file_path") or raw.get("absolute_path") or raw.get("paths") or ""
    if isinstance(text, list):
        text = " ".join(str(t) for t in text)
    text = str(text).replace("{root}/", "").replace(str(root) + "/", "")
    if call.tool_name == "apply_patch":
        text = " ".join(line.split(": ", 1)[1] for line in text.splitlines() if line.startswith("*** ") and ": " in line)
    return f"{call.tool_name} {text}"[:70]


def scores(rows: list[Outcome], which: str) -> tuple[int, int, int, float, float]:
    tp = arrived = expected = 0
    for r in rows:
        got = set(getattr(r, which))
        tp += len(got & set(r.expected))
        arrived += len(got)
        expected += len(r.expected)
    precision = tp / arrived if arrived else 1.0
    recall = tp / expected if expected else 1.0
    return tp, arrived, expected, precision, recall


def table(outcomes: list[Outcome]) -> list[str]:
    lines = ["| calls | path | slice | expected arrivals | arrived | right | precision | recall |", "|---|---|---|---|---|---|---|---|"]
    slices: list[tuple[str, list[Outcome]]] = [("all", outcomes)]
    slices += [(f"tool: {t}", [o for o in outcomes if o.tool == t]) for t in ("claude-code", "codex", "gemini")]
    slices += [(f"call: {k}", [o for o in outcomes if o.kind == k]) for k in ("shell", "read", "edit")]
    for which, label in (("hook", "hook (`kenning.hooks.main.run`)"), ("core", "core (`lessons.for_call`)")):
        for name, rows in slices:
            tp, arrived, expected, p, r = scores(rows, which)
            bold = "**" if name == "all" else ""
            lines.append(f"| {len(rows)} | {label} | {bold}{name}{bold} | {expected} | {arrived} | {tp} | {bold}{p:.3f}{bold} | "
                         f"{bold}{r:.3f}{bold} |")  # fmt: skip
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--quick", action="store_true", help="accepted for run_all; the corpus is small")
    parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kenning-lessons-") as tmp:
        base = Path(tmp)
        home = base / "kenning"
        roots = git_projects(base)
        clock = FixedClock(START)
        core = Core.open(Settings(home=home), clock)
        try:
            names = write_lessons(core, clock, roots)
            clock.set(START + timedelta(days=1))
            outcomes, cpu, wall = run_corpus(home, core, roots, names)
        finally:
            core.close()
    over = [o for o in outcomes if len(o.wanted) > core_lessons.PER_CALL]
    fresh_over = [o for o in over if len(o.wanted - o.given) > core_lessons.PER_CALL]
    most = max((len(o.hook) for o in outcomes), default=0)
    capped_right = sum(1 for o in fresh_over if o.hook == o.expected)
    wrong = [o for o in outcomes if set(o.hook) != set(o.expected) or set(o.core) != set(o.expected)]
    _, _, _, p, r = scores(outcomes, "hook")
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    sessions = Counter(s.tool for s in corpus.SESSIONS)
    text = "\n".join([
        HEADING, "",
        f"{when}, {platform.machine()}, {os.cpu_count()} CPUs, load average {load:.1f}; {len(outcomes)} labelled tool calls in "
        f"{len(corpus.SESSIONS)} sessions ({', '.join(f'{t} {n}' for t, n in sessions.items())}) over 3 projects, "
        f"{len(corpus.LESSONS)} lessons and decisions (one retired, one placed not-here in a project, two personal); "
        f"`.venv/bin/python bench/lessons.py`", "",
        "Expected arrivals: the corpus's labels (the lessons a person would want on each call, bench/_lessons_corpus.py) "
        "with kenning's rules applied: once per session, at most 2 per call, triggered lessons newest first, then the ones "
        "citing the touched file. Precision: right arrivals ÷ arrivals. Recall: right arrivals ÷ expected arrivals.", "",
        *table(outcomes), "",
        f"Per-call cap ({core_lessons.PER_CALL}): most lessons that arrived on one call: {most}. Calls wanting more than "
        f"{core_lessons.PER_CALL} lessons: {len(over)}; on the {len(fresh_over)} of them where more than "
        f"{core_lessons.PER_CALL} were still new in the session, exactly the {core_lessons.PER_CALL} expected arrived, in "
        f"the stated order, on {capped_right}. Hook CPU time per call {cpu * 1000:.1f} ms (wall {wall * 1000:.1f} ms; "
        "in-process, so no interpreter start).", "",
        "The first run of this corpus (before issue 18's fixes) had recall 0.927 (51 of 55 on the 101 calls then): "
        "a citation of `.github/…` lost its leading dot, `templates/**/*.html` did not hold `templates/base.html`, and "
        "`^npm publish` / `^terraform apply` did not fire on `cd web && npm publish`. kenning.domain.matching now keeps "
        "the dot, lets `**/` match no folder, and tries a shell trigger on each simple command of a chained line.", "",
        f"Targets: precision and recall ≥ {TARGET} — {'met' if p >= TARGET and r >= TARGET else 'NOT met'} "
        f"(hook path: precision {p:.3f}, recall {r:.3f}).",
        *(["", "Calls where a path and the labels disagree:", "",
           "| tool | project | call | expected | hook | core |", "|---|---|---|---|---|---|",
           *(f"| {o.tool} | {o.project} | `{o.label}` | {', '.join(o.expected) or '—'} | {', '.join(o.hook) or '—'} | "
             f"{', '.join(o.core) or '—'} |" for o in wrong)] if wrong else []),
    ])  # fmt: skip
    print(text)
    write_section(RESULTS, HEADING, text, title="# Hook benchmarks")


if __name__ == "__main__":
    main()
