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
    root = str(info.root) if info.root else ""
    group = (existing.parent if existing else "") or group_holding(store, workspace, root)
    if existing is None or (root and existing.root != root) or existing.removed_at is not None or existing.parent != group:
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


def group_holding(store: MemoryStore, workspace: str, root: str) -> str:
    """The group whose folder holds this project folder (the deepest one), or ''."""
    if not root:
        return ""
    best = ("", -1)
    for scope in store.list_scopes(workspace):
        if scope.kind != "group" or not scope.root or scope.removed_at is not None:
            continue
        folder = scope.root.rstrip("/") + "/"
        if (root + "/").startswith(folder) and len(folder) > best[1]:
            best = (scope.key, len(folder))
    return best[0]


def add_group(store: MemoryStore, workspace: str, name: str, folder: Path, now: datetime) -> ScopeRow:
    """A group is a folder that holds projects; projects below it inherit its policy."""
    from kenning.errors import Invalid

    if not name.strip() or any(ch.isspace() for ch in name):
        raise Invalid(f"group name {name!r} is not usable", fix="give a short name without spaces, e.g. web")
    if not folder.is_dir():
        raise Invalid(f"{folder} is not a folder", fix="give the folder that holds the group's projects")
    row = ScopeRow(workspace, f"group:{name}", "group", name, str(folder.resolve()), "", now)
    store.upsert_scope(row)
    for scope in store.list_scopes(workspace):
        if scope.kind == "project" and scope.root and group_holding(store, workspace, scope.root) == row.key:
            store.upsert_scope(ScopeRow(workspace, scope.key, scope.kind, scope.name, scope.root, row.key, scope.created_at))
    return row
