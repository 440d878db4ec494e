"""What git knows about a working folder: its project identity, branch, worktrees, uncommitted
work, and what landed on the main branch.

Identity and branch are read straight from ``.git`` (a hook runs this on every tool call, and a
subprocess costs milliseconds); the rest asks ``git`` itself, whose plumbing output is stable.
Nothing here raises on odd folders: a missing path, a folder that is no repository, a repository
with no commits and a detached HEAD all give an answer.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

PERSONAL_KEY = "personal"
DETACHED = "HEAD"  # the branch of a detached HEAD, as `git rev-parse --abbrev-ref HEAD` spells it

# Variables that point git at another repository; a hook inherits them from the agent's shell
# and they would make every folder look like that repository.
_REPO_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY", "GIT_PREFIX")


@dataclass(frozen=True)
class ProjectInfo:
    key: str  # host/owner/repo, else path:<main worktree root>, else "personal"
    name: str
    root: Path | None  # the main worktree's root (a linked worktree reports its main repository's)
    branch: str  # as git spells it; "HEAD" when detached; "" outside a repository
    kind: str  # "project" or "personal"
    worktree: Path | None = None  # the worktree the folder is in (== root outside linked worktrees)


PERSONAL = ProjectInfo(PERSONAL_KEY, PERSONAL_KEY, None, "", "personal", None)


class GitError(Exception):
    """git failed; callers in kenning catch it and carry on (git awareness is best effort)."""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _REPO_ENV}
    env["LC_ALL"] = "C"  # parse English plumbing output only
    env["GIT_TERMINAL_PROMPT"] = "0"  # never wait on a credential prompt
    env["GIT_OPTIONAL_LOCKS"] = "0"  # `git status` must not take the index lock an agent's git needs
    return env


def run_git(cwd: Path, *args: str, check: bool = True, timeout: float = 20.0) -> str:
    """Run git in ``cwd`` and return stdout; :class:`GitError` when it fails and ``check``."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, env=_env(), capture_output=True, text=True,
            encoding="utf-8", errors="replace", timeout=timeout, check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitError(f"git {' '.join(args)}: {exc}") from exc
    if check and done.returncode != 0:
        raise GitError(f"git {' '.join(args)} in {cwd}: {done.stderr.strip()}")
    return done.stdout


# ---------------------------------------------------------------------------------- remotes

_SCHEME = re.compile(r"^(?P<scheme>[a-z][a-z0-9+.-]*)://(?P<rest>.*)$", re.IGNORECASE)
_SCP = re.compile(r"^(?:(?P<user>[^@/]+)@)?(?P<host>[^:/]+):(?P<path>.*)$")


def normalize_remote(url: str) -> str:
    """``host/owner/repo`` in lower case, credentials, port, scheme and ``.git`` stripped, so
    ``git@github.com:O/R.git``, ``ssh://git@github.com:22/o/r`` and
    ``https://user:token@github.com/o/r.git`` are equal. A local path gives ``""``."""
    url = url.strip()
    if not url:
        return ""
    m = _SCHEME.match(url)
    if m:
        if m.group("scheme").lower() == "file":
            return ""
        authority, _, path = m.group("rest").partition("/")
        host = authority.rsplit("@", 1)[-1]  # drop user[:password]@
        if host.startswith("["):  # [ipv6]:port
            host = host.split("]", 1)[0] + "]"
        else:
            host = host.split(":", 1)[0]
    else:
        s = _SCP.match(url)
        # "C:\repo" and "./a:b" are local paths, not scp-like user@host:path.
        if not s or len(s.group("host")) == 1 or url.startswith((".", "/", "~")):
            return ""
        host, path = s.group("host"), s.group("path")
    parts = [p for p in path.replace("\\", "/").split("/") if p and p != "."]
    if parts and parts[-1].lower().endswith(".git"):
        parts[-1] = parts[-1][:-4]
    parts = [p for p in parts if p]
    if not host or not parts:
        return ""
    return "/".join([host.lower(), *parts]).lower()


# ------------------------------------------------------------------------ locating a repo


def _find_dotgit(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / ".git"
        if candidate.exists():
            return candidate
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _gitdir_of(dotgit: Path) -> Path | None:
    """The git directory behind a ``.git`` folder, or behind a ``.git`` file (``gitdir: …``)
    that a linked worktree or submodule has."""
    if dotgit.is_dir():
        return dotgit
    text = _read(dotgit).strip()
    if not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:"):].strip())
    if not target.is_absolute():
        target = dotgit.parent / target
    return target.resolve() if target.exists() else None


def branch_from_head(gitdir: Path) -> str:
    """The current branch from the HEAD file ("HEAD" when detached, "" when unreadable)."""
    head = _read(gitdir / "HEAD").strip()
    if head.startswith("ref:"):
        ref = head[4:].strip()
        return ref[len("refs/heads/"):] if ref.startswith("refs/heads/") else ref
    return DETACHED if head else ""


def _remote_urls(common: Path) -> list[tuple[str, str]]:
    """(remote, url) in config order, with ``url.<base>.insteadOf`` applied as git would.
    One subprocess: `git config` handles includes and the user's global config."""
    try:
        out = run_git(common, f"--git-dir={common}", "config", "--get-regexp", r"^(remote\..*\.url|url\..*\.insteadof)$", check=False)
    except GitError:
        return []
    pairs: list[tuple[str, str]] = []
    rewrites: list[tuple[str, str]] = []  # (prefix, replacement)
    for line in out.splitlines():
        key, _, value = line.partition(" ")
        if key.startswith("url.") and key.endswith(".insteadof"):
            rewrites.append((value.strip(), key[len("url."):-len(".insteadof")]))
            continue
        name = key[len("remote."):-len(".url")]
        if not any(n == name for n, _ in pairs):
            pairs.append((name, value.strip()))

    def rewrite(url: str) -> str:
        best = max((r for r in rewrites if url.startswith(r[0])), key=lambda r: len(r[0]), default=None)
        return best[1] + url[len(best[0]):] if best else url

    return [(name, rewrite(url)) for name, url in pairs]


def remote_key(common: Path) -> str:
    urls = _remote_urls(common)
    ordered = sorted(urls, key=lambda pair: pair[0] != "origin")  # origin first, else config order
    for _, url in ordered:
        key = normalize_remote(url)
        if key:
            return key
    return ""


def _main_root(gitdir: Path, found_at: Path) -> tuple[Path, Path]:
    """(main worktree root, common git dir) for the git dir found at ``found_at``."""
    commondir = _read(gitdir / "commondir").strip()
    if not commondir:
        return found_at, gitdir  # a main worktree (or a submodule's own checkout)
    common = Path(commondir)
    if not common.is_absolute():
        common = (gitdir / common).resolve()
    if common.name == ".git":
        return common.parent, common
    # A bare repository or a submodule's git dir: ask git where its main worktree is.
    try:
        out = run_git(found_at, "worktree", "list", "--porcelain")
        first = next((ln[9:] for ln in out.splitlines() if ln.startswith("worktree ")), "")
        if first:
            return Path(first).resolve(), common
    except GitError:
        pass
    return common, common


@lru_cache(maxsize=256)
def _project_cached(cwd: str) -> tuple[ProjectInfo, Path | None]:
    """The project (branch left blank) and its git dir; the identity does not change while
    a process runs, but the branch does (an MCP server outlives many checkouts)."""
    start = Path(cwd)
    if not start.exists():
        return PERSONAL, None
    if start.is_file():
        start = start.parent
    dotgit = _find_dotgit(start)
    gitdir = _gitdir_of(dotgit) if dotgit else None
    if dotgit is None or gitdir is None:
        return PERSONAL, None
    worktree = dotgit.parent
    root, common = _main_root(gitdir, worktree)
    key = remote_key(common)
    if key:
        name = key.rsplit("/", 1)[-1]
    else:
        key, name = f"path:{root}", root.name
    return ProjectInfo(key, name, root, "", "project", worktree), gitdir


def project_for(cwd: Path | str) -> ProjectInfo:
    """The project of a working folder: identity cached per process, branch read fresh from
    HEAD on every call. Never raises."""
    try:
        info, gitdir = _project_cached(os.path.realpath(cwd))
        return replace(info, branch=branch_from_head(gitdir)) if gitdir is not None else info
    except Exception:  # a hook must never fail on a strange folder
        return PERSONAL


def clear_cache() -> None:
    _project_cached.cache_clear()


def git_dir(cwd: Path | str) -> Path | None:
    """The git directory of the worktree holding ``cwd`` (behind a ``.git`` file for a linked
    worktree), or None outside a repository."""
    try:
        dotgit = _find_dotgit(Path(os.path.realpath(cwd)))
        return _gitdir_of(dotgit) if dotgit else None
    except OSError:
        return None


def current_branch(cwd: Path) -> str:
    """The branch of the worktree at ``cwd``, read fresh (not cached)."""
    dotgit = _find_dotgit(Path(os.path.realpath(cwd)))
    gitdir = _gitdir_of(dotgit) if dotgit else None
    return branch_from_head(gitdir) if gitdir else ""


# ------------------------------------------------------------------- branches and worktrees


@dataclass(frozen=True)
class Worktree:
    path: Path
    branch: str  # "HEAD" when detached
    head: str  # commit id, "" before the first commit
    bare: bool = False


@dataclass(frozen=True)
class WorkState:
    """Uncommitted work in one worktree."""

    worktree: Path
    branch: str
    changes: tuple[str, ...]  # `git status --porcelain` lines: "XY path"


def worktrees(root: Path) -> list[Worktree]:
    try:
        out = run_git(root, "worktree", "list", "--porcelain")
    except GitError:
        return []
    found: list[Worktree] = []
    block: dict[str, str] = {}
    for line in [*out.splitlines(), ""]:
        if line:
            key, _, value = line.partition(" ")
            block[key] = value
            continue
        if "worktree" in block:
            ref = block.get("branch", "")
            branch = ref[len("refs/heads/"):] if ref.startswith("refs/heads/") else (ref or DETACHED)
            head = block.get("HEAD", "")
            found.append(Worktree(Path(block["worktree"]), branch, "" if set(head) <= {"0"} else head, "bare" in block))
        block = {}
    return found


def uncommitted(worktree: Path) -> tuple[str, ...]:
    """Porcelain status lines of a worktree (untracked files count; ignored ones do not)."""
    try:
        out = run_git(worktree, "status", "--porcelain=v1", "-z", "--untracked-files=all")
    except GitError:
        return ()
    entries = out.split("\0")
    lines: list[str] = []
    i = 0
    while i < len(entries):
        entry = entries[i]
        i += 1
        if not entry:
            continue
        lines.append(entry)
        if entry[:1] in ("R", "C"):  # renames carry their old path as the next entry
            i += 1
    return tuple(lines)


def dirty_worktrees(root: Path) -> list[WorkState]:
    """Every worktree of the repository at ``root`` that has uncommitted work."""
    states = []
    for tree in worktrees(root):
        if tree.bare or not tree.path.exists():
            continue
        changes = uncommitted(tree.path)
        if changes:
            states.append(WorkState(tree.path, tree.branch, changes))
    return states


def branches(root: Path) -> list[str]:
    try:
        out = run_git(root, "for-each-ref", "--format=%(refname)", "refs/heads/")
    except GitError:
        return []
    return [line[len("refs/heads/"):] for line in out.splitlines() if line.startswith("refs/heads/")]


def resolve(root: Path, rev: str) -> str:
    """The full commit id of ``rev``, or "" when it names no commit here."""
    try:
        return run_git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").strip()
    except GitError:
        return ""


def default_branch(root: Path) -> str:
    """The main branch: origin's HEAD when known, else main/master/trunk, else init.defaultBranch."""
    try:
        ref = run_git(root, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD", check=False).strip()
    except GitError:
        ref = ""
    if ref.startswith("refs/remotes/origin/"):
        name = ref[len("refs/remotes/origin/"):]
        if name in branches(root):
            return name
    local = branches(root)
    for name in ("main", "master", "trunk", "develop"):
        if name in local:
            return name
    try:
        configured = run_git(root, "config", "--get", "init.defaultBranch", check=False).strip()
    except GitError:
        configured = ""
    return configured or (local[0] if len(local) == 1 else "main")
