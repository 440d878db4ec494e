"""Lesson triggers against long commands: the tool-call hook's matching of 200 ``shell:``
triggers, with RE2 (what kenning runs, linear time) beside Python's ``re`` (the baseline, same
run), and one trigger that backtracks exponentially under ``re``.

The triggers are the shapes lessons use (an anchored command, a command and a flag, an
alternation, a case-insensitive one, a few with no literal the prefilter can use). Commands
are a 200-character one, a 64 KB one (a long heredoc), and the 27-character ``aaa…!`` that held
a hook for 11.9 s with ``(a+)+$`` under ``re`` (issue 11); ``re`` is not run on that one.
CPU time per call is the figure to read (the machine is shared).
Run: .venv/bin/python bench/trigger_matching.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import time
from datetime import UTC, datetime
from pathlib import Path

from _results import write_section
from kenning.domain import matching

RESULTS = Path(__file__).resolve().parent / "results" / "hooks.md"
HEADING = "## Lesson triggers: 200 triggers against long commands"
WORDS = ["deploy", "publish", "migrate", "docker", "kubectl", "terraform", "pytest", "cargo", "helm", "psql"]


def triggers(rng: random.Random, n: int = 200) -> list[str]:
    out = []
    for i in range(n):
        w, v = rng.choice(WORDS), rng.choice(WORDS)
        shape = i % 6
        if shape == 0:
            out.append(f"^{w}{i} ")
        elif shape == 1:
            out.append(f"^{w} .*--{v}{i}")
        elif shape == 2:
            out.append(f"(?:{w}|{v}){i} (?:apply|push)")
        elif shape == 3:
            out.append(f"(?i)^{w.upper()}{i}\\b")
        elif shape == 4:
            out.append(f"[a-z]+{i}[0-9]* --force")  # no literal for the prefilter
        else:
            out.append(f"\\b{w}{i}\\s+\\S+\\s+--dry-run$")
    return out


def commands(quick: bool) -> dict[str, str]:
    long_body = ("echo 'line of a heredoc with words and --flags' >> notes.txt\n" * 1200)[: 16_000 if quick else 64_000]
    return {
        "200-character command": "kubectl apply -f deploy/app.yaml --namespace shop --context prod " * 3,
        f"{len(long_body) // 1000} KB command": f"cat <<'EOF' > notes.txt\n{long_body}\nEOF",
        "27-character 'aaa…!' with (a+)+$": "a" * 26 + "!",
    }


def cpu_per_call(fn: object, repeat: int) -> float:
    start = time.process_time()
    for _ in range(repeat):
        fn()  # type: ignore[operator]
    return (time.process_time() - start) / repeat


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="a 16 KB command instead of 64 KB; fewer repeats")
    args = parser.parse_args()
    rng = random.Random(11)
    pats = triggers(rng)
    hostile = [*pats[:-1], "(a+)+$"]
    repeat = 20 if args.quick else 100
    rows = []
    for label, command in commands(args.quick).items():
        patterns = hostile if "(a+)+" in label else pats
        for p in patterns:  # compile once, as a hook process that matched would
            matching.shell_regex(p)
        kenning = cpu_per_call(lambda c=command, ps=patterns: [matching.shell_fires(p, c) for p in ps], repeat)
        if "(a+)+" in label:
            baseline = "not run (exponential: 11.9 s measured for this one call)"
        else:
            compiled = [re.compile(p) for p in patterns]
            secs = cpu_per_call(lambda c=command, cs=compiled: [r.search(c) for r in cs], repeat)
            baseline = f"{secs * 1000:.2f} ms"
        rows.append(f"| {label} | {kenning * 1000:.2f} ms | {baseline} |")
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    text = "\n".join([
        HEADING + (" (--quick)" if args.quick else ""), "",
        f"{when}, {platform.machine()}, {os.cpu_count()} CPUs, load average {load:.1f}; CPU time per tool call "
        f"(all 200 triggers tried, each with the literal prefilter first); "
        f"`.venv/bin/python bench/trigger_matching.py{' --quick' if args.quick else ''}`", "",
        "| command | kenning (RE2) | Python re (baseline) |", "|---|---|---|", *rows, "",
        "Budget: 50 ms for a tool call that matches no lesson (DESIGN.md); Claude Code cancels a PreToolUse "
        "hook after 5 s.",
    ])  # fmt: skip
    print(text)
    write_section(RESULTS, text.split("\n", 1)[0], text, title="# Hook benchmarks")


if __name__ == "__main__":
    main()
