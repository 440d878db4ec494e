"""The capture job: sync every agent's transcripts (:mod:`kenning.capture.sync`), import the
agents' memory and instruction files (:mod:`kenning.core.memory_files`), and add the facts the
new sessions name to the graph (:mod:`kenning.graph.extract`), over one core's stores."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path

from kenning.capture.sync import (
    ENV_KEYS,
    SAMPLES,
    Progress,
    Projects,
    SyncSummary,
    discover,
    reclassify_sweep,
    sample_env,
    sync_file,
)
from kenning.config import Settings
from kenning.core.policy import capture_enabled
from kenning.core.service import Core


def sync_all(core: Core, home: Path, progress: Progress | None = None, *, env: Mapping[str, str] | None = None,
             import_memory_files: bool = True) -> SyncSummary:  # fmt: skip
    """Capture every transcript found under ``home`` (the CLI passes ``Path.home()``)."""
    started = time.perf_counter()
    settings = core.settings or Settings(home=home, workspace=core.workspace)
    store, workspace = core.stores.capture, core.workspace
    summary = SyncSummary()
    summary.reclassified = reclassify_sweep(store, workspace)
    sources = discover(home, env)
    summary.files = len(sources)
    projects = Projects(core.store, workspace, lambda key: capture_enabled(core.store, workspace, key))
    sizes = {}
    for s in sources:
        try:
            sizes[s.ledger_key] = s.path.stat().st_size if s.mode == "append" else 0
        except OSError:
            sizes[s.ledger_key] = 0
    total = sum(sizes.values())
    done = 0
    for source in sources:
        def advance(n: int, label: str = source.path.name) -> None:
            nonlocal done
            done += n
            if progress:
                progress(done, max(total, done), label)

        try:
            sync_file(store, source, settings, core.clock, projects, summary, advance)
        except (OSError, ValueError) as exc:
            summary.errors.append(f"{source.ledger_key}: {exc}")
    if import_memory_files:
        from kenning.core.memory_files import import_memory_files as run_import

        try:
            summary.memory_files = run_import(core, home, env=env)
        except Exception as exc:  # the import must never cost the transcripts their sync
            summary.errors.append(f"memory files: {exc}")
    # Facts the new sessions name (tools, projects, people, decisions) join the graph.
    from kenning.graph.extract import extract_pending

    summary.facts_added = extract_pending(core.stores, workspace, core.clock)
    summary.sessions = store.counts(workspace).sessions
    summary.seconds = round(time.perf_counter() - started, 3)
    return summary


def run_capture_job(core: Core, home: Path, env: Mapping[str, str], say: Callable[[str], None] = print) -> SyncSummary:
    """What ``make run`` does: capture this machine's transcripts, or, when it has none, the
    bundled sample sessions into a separate demo store (and say so). Called by an entry point."""
    env = {k: env[k] for k in ENV_KEYS if k in env}
    if discover(home, env):
        summary = sync_all(core, home, env=env)
        say(f"captured {summary.turns_added} new turns from {summary.files} transcript files "
            f"({summary.sessions} sessions, {summary.secrets_redacted} secrets redacted)")
        return summary
    base = core.settings or Settings(home=home)
    demo = Settings(home=base.home / "demo-capture", workspace=core.workspace)
    demo_core = Core.open(demo, core.clock)
    try:
        summary = sync_all(demo_core, Path(SAMPLES / "none"), env=sample_env(), import_memory_files=False)
    finally:
        demo_core.close()
    say(f"no agent transcripts on this machine yet; captured {summary.turns_added} turns of the bundled "
        f"sample sessions into a separate demo store: {demo.db_path}")
    say(f"  try: kenning --home {demo.home} search login CI")
    return summary
