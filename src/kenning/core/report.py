"""Store status: what kenning holds, for `kenning status` and `make run`."""

from __future__ import annotations

from collections import Counter
from typing import Any

from kenning.core.lifecycle import is_resting, is_stale
from kenning.core.service import Core


def status(core: Core) -> dict[str, Any]:
    now = core.now()
    kinds: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    flags: Counter[str] = Counter()
    scopes: Counter[str] = Counter()
    for memory in core.store.iter_all(core.workspace):
        statuses[memory.status.value] += 1
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
    size = 0
    if db_path is not None:
        for suffix in ("", "-wal", "-shm"):
            candidate = db_path.with_name(db_path.name + suffix)
            if candidate.exists():
                size += candidate.stat().st_size
    reviews = sum(len(core.store.reviews(core.workspace, [s.key])) for s in core.store.list_scopes(core.workspace))
    return {
        "db_path": str(db_path) if db_path else None,
        "db_bytes": size,
        "workspace": core.workspace,
        "active_by_kind": dict(kinds),
        "by_status": dict(statuses),
        "flags": dict(flags),
        "projects": dict(scopes.most_common(10)),
        "needs_review": reviews,
    }
