"""Where a call lands: the workspace, the project of a working folder, and the scopes its
recall reaches (the project, the group above it, and global memories)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from kenning.model import GLOBAL_SCOPE, PERSONAL_SCOPE
from kenning.store.protocol import MemoryStore, ScopeRow


@dataclass(frozen=True)
class Place:
    workspace: str
    project: str  # the scope key memories are filed under
    name: str = ""
    root: Path | None = None
    branch: str = ""
    group: str = ""

    @property
    def reach(self) -> tuple[str, ...]:
        """Scope keys recall reads: the project, its group (legacy filing), global."""
        keys = [self.project]
        if self.group:
            keys.append(self.group)
        if self.project != GLOBAL_SCOPE:
            keys.append(GLOBAL_SCOPE)
        return tuple(keys)


def place_for(store: MemoryStore, workspace: str, cwd: Path | None, now: datetime) -> Place:
    """Resolve a working folder to its project (from git) and register the scope."""
    if cwd is None:
        return personal(store, workspace, now)
    from kenning.gitinfo import project_for

    info = project_for(cwd)
    if info.kind == "personal" or not info.key or info.key == PERSONAL_SCOPE:
        return personal(store, workspace, now)
    existing = store.get_scope(workspace, info.key)
    group = existing.parent if existing else ""
    root = str(info.root) if info.root else ""
    if existing is None or (root and existing.root != root) or existing.removed_at is not None:
        store.upsert_scope(ScopeRow(workspace, info.key, "project", info.name, root, group, now))
    return Place(workspace, info.key, info.name, info.root, info.branch, group)


def personal(store: MemoryStore, workspace: str, now: datetime) -> Place:
    if store.get_scope(workspace, PERSONAL_SCOPE) is None:
        store.upsert_scope(ScopeRow(workspace, PERSONAL_SCOPE, "personal", "personal", "", "", now))
    return Place(workspace, PERSONAL_SCOPE, "personal")


def named(store: MemoryStore, workspace: str, key: str, now: datetime) -> Place:
    """A place given by its project key (for tools that pass a project rather than a folder)."""
    row = store.get_scope(workspace, key)
    if row is None:
        return Place(workspace, key, key.rsplit("/", 1)[-1])
    return Place(workspace, key, row.name, Path(row.root) if row.root else None, "", row.parent)
