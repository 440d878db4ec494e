"""Store status: what kenning holds, for `kenning status` and `make run`; and the sessions the
hooks saw, per tool and group (pointed at memory, or the holdout), for the web app's report."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kenning.core.service import Core
from kenning.domain.lifecycle import is_resting, is_stale


def status(core: Core) -> dict[str, Any]:
    now = core.now()
    kinds: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    flags: Counter[str] = Counter()
    scopes: Counter[str] = Counter()
    text_bytes = 0
    for memory in core.store.iter_all(core.workspace):
        statuses[memory.status.value] += 1
        text_bytes += len(memory.text.encode()) + len(memory.reason.encode()) + len(memory.rejected.encode())
        if memory.status.value != "active":
            continue
        kinds[memory.kind.value] += 1
        scopes[memory.scope] += 1
        for flag in ("pinned", "hidden", "held", "protected"):
            if getattr(memory, flag):
                flags[flag] += 1
        if is_resting(memory, now):
            flags["resting"] += 1
        if is_stale(memory, now):
            flags["stale"] += 1
    db_path = core.settings.db_path if core.settings else None
    on_disk = 0
    if db_path is not None:
        for suffix in ("", "-wal", "-shm"):
            candidate = db_path.with_name(db_path.name + suffix)
            if candidate.exists():
                on_disk += candidate.stat().st_size
    reviews = sum(len(core.store.reviews(core.workspace, [s.key])) for s in core.store.list_scopes(core.workspace))
    captured = core.stores.capture.counts(core.workspace)
    return {
        "db_path": str(db_path) if db_path else None,
        # The files on disk (database, write-ahead log, shared memory), and of the database the
        # pages that hold data. A new, empty store is a few hundred KiB of schema and indexes.
        "db_bytes": on_disk,
        "db_bytes_in_use": core.stores.bytes_in_use(),
        "memory_text_bytes": text_bytes,
        "captured": {"sessions": captured.sessions, "turns": captured.turns, "text_bytes": captured.text_bytes},
        "workspace": core.workspace,
        "active_by_kind": dict(kinds),
        "by_status": dict(statuses),
        "flags": dict(flags),
        "projects": dict(scopes.most_common(10)),
        "needs_review": reviews,
    }


@dataclass(frozen=True)
class ToolSessions:
    """Sessions of one agent tool that the hooks saw, split by group."""

    tool: str
    pointed: int
    holdout: int
    recalled: int  # sessions that called recall at least once
    changed_files: int
    asked_at_end: int  # sent back once at the end of a turn to look the task up
    from_task: int

    @property
    def total(self) -> int:
        return self.pointed + self.holdout


def sessions_by_tool(core: Core, since: datetime | None = None, project: str = "") -> list[ToolSessions]:
    """Per tool, the sessions the hooks saw (started at or after ``since``, in ``project`` when
    given), most sessions first. Only what the hooks record: nothing is estimated."""
    counts: dict[str, Counter[str]] = {}
    for s in core.stores.hooks.all_sessions(core.workspace):
        if (since is not None and s.started_at < since) or (project and s.project != project):
            continue
        c = counts.setdefault(s.tool, Counter())
        c["holdout" if s.holdout else "pointed"] += 1
        c["recalled"] += s.recalled
        c["changed_files"] += s.changed_files
        c["asked_at_end"] += s.stop_asked
        c["from_task"] += s.task_id is not None
    rows = [ToolSessions(tool, c["pointed"], c["holdout"], c["recalled"], c["changed_files"], c["asked_at_end"],
                         c["from_task"]) for tool, c in counts.items()]  # fmt: skip
    return sorted(rows, key=lambda r: (-r.total, r.tool))
