"""Citation checking: 1,000 memories citing 200 files, target under 1 s.

Builds a project of 200 source files, files 1,000 cited memories in a real SQLite store
(line ranges, single lines, symbols and bare files), then edits the project (lines moved by
an edit above, lines changed, a renamed symbol, deleted files) and times:

- ``check_all``: the real sweep through the store (reads each file once, updates states);
- ``Checker`` batch: the same checks without the store;
- naive baseline: a fresh reading of the file for every memory (what a per-memory check does).

Run: .venv/bin/python bench/git_citations.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.citations import Checker, check, check_all, fingerprint
from kenning.core.service import Core
from kenning.ids import new_ref
from kenning.model import Kind, Memory, Origin
from kenning.store.protocol import MemoryFilter, ScopeRow
from kenning.store.sqlite.stores import open_sqlite

RESULTS = Path(__file__).parent / "results" / "git.md"


def source_file(i: int, functions: int = 20) -> str:
    lines = [f'"""Module {i}."""', "", "import os", ""]
    for f in range(functions):
        lines += [
            "",
            f"def func_{i}_{f}(value, limit={f}):",
            f"    # step {f} of module {i}",
            "    if value > limit:",
            f"        return value - {f}",
            f"    total = sum(range(value + {i}))",
            "    return total",
        ]
    return "\n".join(lines) + "\n"


def build(root: Path, files: int) -> list[str]:
    paths = []
    for i in range(files):
        rel = f"src/pkg{i % 10}/mod_{i}.py"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(source_file(i))
        paths.append(rel)
    return paths


def refs_for(paths: list[str], count: int, rng: random.Random) -> list[str]:
    refs = []
    for n in range(count):
        rel = paths[n % len(paths)]
        i = int(rel.rsplit("_", 1)[1][:-3])
        f = rng.randrange(20)
        first = 6 + f * 7 + 1
        roll = rng.random()
        if roll < 0.4:
            refs.append(f"{rel}:{first}-{first + 4}")
        elif roll < 0.55:
            refs.append(f"{rel}:{first + 2}")
        elif roll < 0.85:
            refs.append(f"{rel}:func_{i}_{f}")
        else:
            refs.append(rel)
    return refs


def edit(root: Path, paths: list[str], rng: random.Random) -> None:
    """A day of work: moves, changes, a rename, deletions."""
    chosen = rng.sample(paths, k=len(paths) // 4)
    for n, rel in enumerate(chosen):
        path = root / rel
        text = path.read_text()
        if n % 4 == 0:
            path.write_text("# a new header line\n# and another\n" + text)
        elif n % 4 == 1:
            path.write_text(text.replace("return total", "return total * 2", 3))
        elif n % 4 == 2:
            path.write_text(text.replace("def func_", "def renamed_func_", 1))
        else:
            path.unlink()


def timed(fn: object, repeat: int) -> tuple[float, object]:
    runs, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()  # type: ignore[operator]
        runs.append(time.perf_counter() - start)
    return statistics.median(runs), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="200 memories over 40 files (CI size)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    memories_n, files_n = (200, 40) if args.quick else (1000, 200)
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        paths = build(root, files_n)
        refs = refs_for(paths, memories_n, rng)
        clock = FixedClock(datetime(2026, 3, 1, tzinfo=UTC))
        settings = Settings(home=Path(tmp) / "home")
        core = Core(open_sqlite(settings.db_path), clock, settings)
        scope = "bench/project"
        core.store.upsert_scope(ScopeRow(core.workspace, scope, "project", "project", str(root), "", clock.now()))
        now = clock.now()
        writer = Checker(root)
        with core.store.transaction():
            for n, ref in enumerate(refs):
                core.store.insert(Memory(
                    new_ref(), core.workspace, scope, f"Memory {n} about {ref}", Kind.FACT, 0.7, Origin.AGENT,
                    now, now, source_ref=ref, source_hash=writer.fingerprint(ref),
                ))  # fmt: skip
        assert fingerprint(root, refs[0])
        edit(root, paths, rng)
        stored = core.store.find(MemoryFilter(core.workspace, [scope]))
        items = [(m.source_ref, m.source_hash) for m in stored]

        def batch() -> Counter[str]:
            checker = Checker(root)
            return Counter(checker.check(r, h).value for r, h in items)

        def naive() -> Counter[str]:
            return Counter(check(root, r, h).value for r, h in items)

        def reset() -> None:
            # Put every stored state back to "unchecked", so the sweep writes every state.
            with core.store.transaction():
                for m in stored:
                    core.store.update(m)

        first_runs, moved = [], 0
        for _ in range(args.repeat):
            reset()
            start = time.perf_counter()
            moved = sum(len(s.changed) for s in check_all(core, scope))
            first_runs.append(time.perf_counter() - start)
        t_sweep = statistics.median(first_runs)
        t_steady, _ = timed(lambda: check_all(core, scope), args.repeat)
        t_batch, states = timed(batch, args.repeat)
        t_naive, naive_states = timed(naive, max(1, args.repeat // 2))
        assert states == naive_states, (states, naive_states)
        core.close()

    rows = [
        ("check_all, first sweep (store; every state written)", t_sweep),
        ("check_all, steady state (store; nothing moved)", t_steady),
        ("Checker batch (no store)", t_batch),
        ("naive: re-read the file per memory", t_naive),
    ]
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    table = [
        f"## Citation checking ({memories_n} memories citing {files_n} files)",
        "",
        f"Run {stamp} on {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
        f"median of {args.repeat} runs (naive: {max(1, args.repeat // 2)}). Command: "
        f"`.venv/bin/python bench/git_citations.py{' --quick' if args.quick else ''}`",
        "",
        "| method | time | per memory |",
        "|---|---:|---:|",
        *[f"| {name} | {t * 1000:.1f} ms | {t / memories_n * 1e6:.0f} µs |" for name, t in rows],
        "",
        f"States after the edits: {dict(sorted(states.items()))}; states moved by the sweep: {moved}. "  # type: ignore[union-attr]
        f"Target: under 1 s for 1,000 memories. Speed-up over naive: {t_naive / t_batch:.1f}x.",
        "",
    ]
    text = "\n".join(table)
    print(text)
    if not args.quick:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text("# Git awareness benchmarks\n\n" + text)


if __name__ == "__main__":
    main()
