"""The memory map: a project's files as a tree, each with the memories that cite it and the
state of each citation (same, changed, gone, unchecked); and, for one file, its memories and
the lessons that arrive when a session reads or edits it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kenning.core.lessons import ToolCall, cited_path, matching_memories
from kenning.model import Citation, Memory, Status
from kenning.store.protocol import MemoryFilter

if TYPE_CHECKING:
    from kenning.core.service import Core

# A repository larger than this is shown by its cited files only (a tree of 100k entries
# helps nobody and would cost the page its speed).
MAX_FILES = 5000
STATE_ORDER = (Citation.GONE, Citation.CHANGED, Citation.SAME, Citation.UNCHECKED)


@dataclass
class FileNode:
    name: str
    path: str  # repository-relative, "/" separated; "" for the root
    is_dir: bool
    memories: list[Memory] = field(default_factory=list)  # citing this file (files only)
    children: list[FileNode] = field(default_factory=list)
    cited: int = 0  # memories citing this file or anything below it
    states: dict[str, int] = field(default_factory=dict)  # citation state -> count, below it

    @property
    def worst(self) -> str:
        """The most urgent citation state below this node ("" when nothing cites it)."""
        return next((s.value for s in STATE_ORDER if self.states.get(s.value)), "")


@dataclass(frozen=True)
class FileMap:
    project: str
    root: Path | None  # the project's folder on this machine, if it is here
    tree: FileNode
    files: int  # files shown
    cited_files: int
    truncated: bool  # the repository had more than MAX_FILES files: only cited ones are shown
    uncited_paths: list[str] = field(default_factory=list)  # cited paths with no file in the tree


def _project_files(root: Path | None) -> tuple[list[str], bool]:
    if root is None or not root.is_dir():
        return [], False
    from kenning.gitinfo import GitError, run_git

    try:
        out = run_git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", timeout=5.0)
    except GitError:  # not a git folder, git missing: show the cited files only
        return [], False
    paths = [p for p in out.split("\0") if p]
    if len(paths) > MAX_FILES:
        return [], True
    return paths, False


def _cited(core: Core, project: str) -> dict[str, list[Memory]]:
    flt = MemoryFilter(core.workspace, [project], statuses=(Status.ACTIVE,), source_ref_like="_%")
    by_path: dict[str, list[Memory]] = {}
    for memory in core.store.find(flt):
        path = cited_path(memory.source_ref)
        if path and not path.startswith("/"):
            by_path.setdefault(path, []).append(memory)
    return by_path


def _insert(root: FileNode, path: str) -> FileNode:
    node = root
    parts = path.split("/")
    for i, part in enumerate(parts):
        is_dir = i < len(parts) - 1
        child = next((c for c in node.children if c.name == part and c.is_dir == is_dir), None)
        if child is None:
            child = FileNode(part, "/".join(parts[: i + 1]), is_dir)
            node.children.append(child)
        node = child
    return node


def _total(node: FileNode) -> None:
    for child in node.children:
        _total(child)
    node.children.sort(key=lambda c: (not c.is_dir, c.name.lower()))
    own: dict[str, int] = {}
    for m in node.memories:
        own[m.citation.value] = own.get(m.citation.value, 0) + 1
    for child in node.children:
        for state, n in child.states.items():
            own[state] = own.get(state, 0) + n
    node.states = own
    node.cited = sum(own.values())


def file_map(core: Core, project: str) -> FileMap:
    """The project's files (git's list, when its folder is on this machine) with the memories
    citing each; a cited path that is not among the files is listed too (its file is gone or
    the folder is elsewhere)."""
    row = core.store.get_scope(core.workspace, project)
    root = Path(row.root) if row is not None and row.root else None
    files, truncated = _project_files(root)
    cited = _cited(core, project)
    tree = FileNode("", "", True)
    known = set(files)
    for path in files:
        _insert(tree, path)
    uncited = sorted(p for p in cited if p not in known)
    for path in {*cited}:
        node = _insert(tree, path)
        node.memories = sorted(cited[path], key=lambda m: m.created_at, reverse=True)
    _total(tree)
    return FileMap(project, root if root is not None and root.is_dir() else None, tree,
                   len(known | set(cited)), len(cited), truncated, uncited if files else [])  # fmt: skip


@dataclass(frozen=True)
class FileMemories:
    project: str
    path: str
    citing: list[Memory]  # every memory (any status) citing this file, active first
    lessons: list[Memory]  # lessons and decisions a read or edit of this file brings up


def file_memories(core: Core, project: str, path: str) -> FileMemories:
    """One file of the map: the memories citing it and what a session touching it is given."""
    clean = path.strip().lstrip("/")
    base = clean.rsplit("/", 1)[-1]
    flt = MemoryFilter(core.workspace, [project], statuses=tuple(Status), source_ref_like=f"%{base}%")
    citing = [m for m in core.store.find(flt, newest_first=True) if cited_path(m.source_ref) == clean]
    citing.sort(key=lambda m: m.status is not Status.ACTIVE)
    place = core.place(project=project)
    lessons: list[Memory] = []
    seen: set[str] = set()
    for kind in ("read", "edit"):
        for m in matching_memories(core, place, ToolCall(kind, paths=(clean,))):
            if m.ref not in seen:
                lessons.append(m)
                seen.add(m.ref)
    return FileMemories(project, clean, citing, lessons)
