"""What the session hooks need that only git and the core can tell, computed ahead of time.

The start, prompt and end-of-turn hooks, and a tool call that matches a lesson, must not import
the core (about 175 ms of imports on a busy machine) or run git (a process per worktree). What
they need from there is small and changes slowly: the project a folder belongs to (its key,
name, root and group, from git's remote and the scopes table), where its git directory is (the
branch is read from ``HEAD`` live on every run), which worktrees hold uncommitted work, and, for
projects set to start with it, the wake-up bundle. This module keeps that in one small JSON file
per working folder, ``prepared/<hash>.json`` in the data folder (``0600`` in a ``0700`` folder),
written by the detached refresh that session starts and prompts set off (at most every ten
minutes per folder) and by any hook that found no usable file.

How stale it may be: the session start uses a file at most :data:`MAX_AGE` old (one hour), and
computes a fresh one itself otherwise (from git and the scopes table, :func:`compute_light`, or
with the core when the project starts with the wake-up bundle), so a first-ever start, or one
after a long pause, is just as right; the other hooks need only the project's identity and use
a file up to :data:`IDENTITY_MAX_AGE` old (a day). Everything else the hooks show (goal, open
items, tasks, other sessions, rules, notes, lessons, the pull requests cache) is read from the
store at the moment of the hook, never from this file.

Loading is the standard library plus kenning's JSON reader; computing imports the core lazily.
"""

from __future__ import annotations

import os
import time
import zlib

from kenning import jsonfast

TYPE_CHECKING = False  # typing is left unimported on purpose (start-up time); mypy reads True
if TYPE_CHECKING:
    from collections.abc import Callable

    from kenning.core.scopes import Place
    from kenning.core.service import Core
    from kenning.store.hotpath import HotRows

VERSION = 1
FOLDER = "prepared"
MAX_AGE = 3600.0  # seconds: the session start recomputes an older file before using it
IDENTITY_MAX_AGE = 86400.0  # seconds: the other hooks need only the project's identity
GLOBAL_SCOPE = "global"  # kenning.model.GLOBAL_SCOPE (the model is not imported here)


class Where:
    """The prepared facts of one working folder."""

    __slots__ = ("workspace", "cwd", "project", "name", "root", "group", "gitdir", "dirty", "wakeup", "written")

    def __init__(self, *, workspace: str, cwd: str, project: str, name: str, root: str, group: str, gitdir: str,
                 dirty: list[tuple[str, int]], wakeup: str | None, written: float) -> None:  # fmt: skip
        self.workspace, self.cwd, self.project, self.name = workspace, cwd, project, name
        self.root, self.group, self.gitdir = root, group, gitdir  # "" outside a repository
        self.dirty = dirty  # (branch, files changed) of every worktree with uncommitted work
        self.wakeup = wakeup  # the wake-up bundle when it was asked for, else None
        self.written = written  # time.time() when computed

    @property
    def reach(self) -> tuple[str, ...]:
        """Scope keys a session here reads: the project, its group, global (as Place.reach)."""
        keys = [self.project]
        if self.group:
            keys.append(self.group)
        if self.project != GLOBAL_SCOPE:
            keys.append(GLOBAL_SCOPE)
        return tuple(keys)

    def branch(self) -> str:
        """The branch checked out now, read from HEAD ("HEAD" when detached, "" outside git)."""
        return head_branch(self.gitdir) if self.gitdir else ""

    def as_dict(self) -> dict[str, object]:
        return {"version": VERSION, "workspace": self.workspace, "cwd": self.cwd, "project": self.project,
                "name": self.name, "root": self.root, "group": self.group, "gitdir": self.gitdir,
                "dirty": [[b, n] for b, n in self.dirty], "wakeup": self.wakeup, "written": self.written}  # fmt: skip


def head_branch(gitdir: str) -> str:
    """The branch named by ``<gitdir>/HEAD`` (as :func:`kenning.gitinfo.branch_from_head`)."""
    try:
        with open(os.path.join(gitdir, "HEAD"), encoding="utf-8", errors="replace") as fh:
            head = fh.read().strip()
    except OSError:
        return ""
    if head.startswith("ref:"):
        ref = head[4:].strip()
        return ref[len("refs/heads/"):] if ref.startswith("refs/heads/") else ref
    return "HEAD" if head else ""


def file_path(home: str, workspace: str, cwd: str) -> str:
    # crc32 rather than a cryptographic hash (hashlib costs milliseconds to import); the file
    # names its folder and workspace, and a file for another one is never used.
    key = zlib.crc32(f"{workspace}\0{os.path.realpath(cwd)}".encode("utf-8", "replace"))
    return os.path.join(home, FOLDER, f"{key:08x}.json")


def load(home: str, workspace: str, cwd: str, now: float, max_age: float = MAX_AGE) -> Where | None:
    """The prepared facts of ``cwd``, or None when there are none, they are for another folder
    or workspace, or older than ``max_age`` seconds."""
    if not cwd:
        return None
    try:
        with open(file_path(home, workspace, cwd), encoding="utf-8") as fh:
            data = jsonfast.loads(fh.read())
        if not isinstance(data, dict) or data.get("version") != VERSION:
            return None
        written = float(data["written"])
        if data["workspace"] != workspace or data["cwd"] != os.path.realpath(cwd) or not 0 <= now - written <= max_age:
            return None
        wakeup = data.get("wakeup")
        return Where(
            workspace=str(data["workspace"]), cwd=str(data["cwd"]), project=str(data["project"]),
            name=str(data["name"]), root=str(data["root"]), group=str(data["group"]), gitdir=str(data["gitdir"]),
            dirty=[(str(b), int(n)) for b, n in data["dirty"]], wakeup=wakeup if isinstance(wakeup, str) else None,
            written=written,
        )  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save(home: str, where: Where) -> None:
    """Write the file atomically, readable by its owner only. Never raises: without the file
    the next hook computes the facts itself."""
    target = file_path(home, where.workspace, where.cwd)
    folder = os.path.dirname(target)
    tmp = f"{target}.{os.getpid()}.tmp"
    try:
        if not os.path.isdir(folder):
            os.makedirs(folder, mode=0o700, exist_ok=True)
            os.chmod(folder, 0o700)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(jsonfast.dumps(where.as_dict()))
        os.replace(tmp, target)
    except OSError:
        if os.path.exists(tmp):
            os.unlink(tmp)


def where_of(core: Core, place: Place, cwd: str, *, wakeup: bool = False) -> Where:
    """The facts of ``place`` (a folder the core resolved), computed now: git's worktrees and
    their uncommitted work, and the wake-up bundle when asked for."""
    from kenning import gitinfo

    dirty: list[tuple[str, int]] = []
    if place.root is not None:
        try:
            dirty = [(s.branch, len(s.changes)) for s in gitinfo.dirty_worktrees(place.root)]
        except (gitinfo.GitError, OSError):
            dirty = []
    gitdir = gitinfo.git_dir(cwd) if cwd else None
    bundle = None
    if wakeup:
        from kenning.context import wakeup as wakeup_mod

        bundle = wakeup_mod.bundle(core, place)
    return Where(
        workspace=core.workspace, cwd=os.path.realpath(cwd) if cwd else "", project=place.project,
        name=place.name or place.project, root=str(place.root) if place.root else "", group=place.group,
        gitdir=str(gitdir) if gitdir else "", dirty=dirty, wakeup=bundle, written=time.time(),
    )  # fmt: skip


def compute_light(rows: HotRows, workspace: str, cwd: str) -> Where:
    """The facts of ``cwd`` computed now from git and the scopes table, without the core (a
    hook's first start in a folder must stay inside its budget). It registers nothing: the
    refresh the start sets off files the project through the core. No wake-up bundle."""
    from kenning import gitinfo

    info = gitinfo.project_for(cwd)
    if info.kind != "project" or not info.key or info.root is None:
        return Where(workspace=workspace, cwd=os.path.realpath(cwd), project=gitinfo.PERSONAL_KEY,
                     name=gitinfo.PERSONAL_KEY, root="", group="", gitdir="", dirty=[], wakeup=None,
                     written=time.time())  # fmt: skip
    try:
        dirty = [(s.branch, len(s.changes)) for s in gitinfo.dirty_worktrees(info.root)]
    except (gitinfo.GitError, OSError):
        dirty = []
    gitdir = gitinfo.git_dir(cwd)
    return Where(
        workspace=workspace, cwd=os.path.realpath(cwd), project=info.key, name=info.name or info.key,
        root=str(info.root), group=rows.scope_group(workspace, info.key, str(info.root)),
        gitdir=str(gitdir) if gitdir else "", dirty=dirty, wakeup=None, written=time.time(),
    )  # fmt: skip


def compute(core: Core, cwd: str, wakeup_on: Callable[[str], bool]) -> Where:
    """Resolve ``cwd`` through the core (which registers its project) and compute its facts;
    ``wakeup_on(project)`` says whether the project starts with the wake-up bundle."""
    place = core.place(cwd or None)
    return where_of(core, place, cwd, wakeup=wakeup_on(place.project))
