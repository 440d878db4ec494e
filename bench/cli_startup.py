"""How long `kenning --help` and shell completion take to start, with the lazy command group,
beside the eager baseline measured in the same run (every command module imported up front,
as the flat 0.1 CLI did).

Each row is a fresh Python process; the table gives the median wall time and the median CPU
time (user + system of the child), which is steadier than wall time on a shared machine.

Run: .venv/bin/python bench/cli_startup.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

RESULTS = Path(__file__).parent / "results" / "cli.md"

LAZY_HELP = "from kenning.cli.main import main; main()"
# The baseline: the same CLI, with every command module imported before it starts (0.1 did
# this at import time of kenning.cli.main).
EAGER_HELP = (
    "import importlib\n"
    "from kenning.cli.tree import ROOT\n"
    "for e in ROOT:\n"
    "    g = e.group\n"
    "    targets = [x.target for x in g.entries.values()] if g else [e.target]\n"
    "    for t in targets:\n"
    "        importlib.import_module(t.split(':')[0])\n"
    "from kenning.cli.main import main; main()"
)
CASES = [
    ("kenning --help (lazy)", LAZY_HELP, ["--help"], {}),
    ("kenning --help (eager baseline)", EAGER_HELP, ["--help"], {}),
    ("completion `kenning mem<TAB>` (lazy)", LAZY_HELP, [],
     {"_KENNING_COMPLETE": "bash_complete", "COMP_WORDS": "kenning mem", "COMP_CWORD": "1"}),
    ("completion `kenning mem<TAB>` (eager baseline)", EAGER_HELP, [],
     {"_KENNING_COMPLETE": "bash_complete", "COMP_WORDS": "kenning mem", "COMP_CWORD": "1"}),
    ("kenning memory list (runs a command: opens the store)", LAZY_HELP, ["memory", "list"], {}),
]


def once(code: str, args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, timeout=120)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{args} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(runs: int) -> list[tuple[str, float, float]]:
    rows: dict[str, list[tuple[float, float]]] = {name: [] for name, *_ in CASES}
    with tempfile.TemporaryDirectory(prefix="kenning-bench-cli-") as home:
        base = {**os.environ, "KENNING_HOME": home}
        for _ in range(runs):  # alternate the cases, so background load hits them alike
            for name, code, args, extra in CASES:
                rows[name].append(once(code, args, {**base, **extra}))
    return [(name, statistics.median(w for w, _ in r), statistics.median(c for _, c in r)) for name, r in rows.items()]


def table(rows: list[tuple[str, float, float]], runs: int) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    lines = [
        "## CLI start-up",
        "",
        f"Run {when} on {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
        f"median of {runs} fresh processes per row, rows alternated; load average at start {load:.1f} "
        "(`.venv/bin/python bench/cli_startup.py`).",
        "",
        "| what | wall ms | CPU ms |",
        "| --- | ---: | ---: |",
    ]
    lines += [f"| {name} | {wall * 1000:.0f} | {cpu * 1000:.0f} |" for name, wall, cpu in rows]
    by = {name: cpu for name, _, cpu in rows}
    ratio = by["kenning --help (eager baseline)"] / max(by["kenning --help (lazy)"], 1e-9)
    lines += ["", f"`kenning --help` uses {ratio:.1f}x less CPU with the lazy group than with every command "
              "module imported (the 0.1 CLI)."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 runs per row instead of 21")
    args = parser.parse_args()
    runs = 5 if args.quick else 21
    text = table(measure(runs), runs)
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("# CLI benchmarks\n\n" + text)


if __name__ == "__main__":
    main()
