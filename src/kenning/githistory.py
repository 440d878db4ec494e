"""The main branch's history: what landed on it, and what was reverted.

Split from :mod:`kenning.gitinfo` (identity, branches, worktrees); both ask ``git`` itself.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from kenning.clock import from_iso
from kenning.gitinfo import DETACHED, GitError, _env, branches, default_branch, resolve, run_git


def main_ref(root: Path, main: str) -> str:
    """The ref that holds the main branch's history: origin's copy when the local branch is
    behind it (merges made on the forge arrive there first), else the local branch."""
    local, remote = f"refs/heads/{main}", f"refs/remotes/origin/{main}"
    local_sha, remote_sha = resolve(root, local), resolve(root, remote)
    if local_sha and remote_sha and local_sha != remote_sha and is_ancestor(root, local_sha, remote_sha):
        return remote
    return local if local_sha else (remote if remote_sha else local)


def is_ancestor(root: Path, older: str, newer: str) -> bool:
    try:
        done = subprocess.run(
            ["git", "merge-base", "--is-ancestor", older, newer], cwd=root, env=_env(),
            capture_output=True, timeout=20, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def branch_landed(root: Path, branch: str, main: str | None = None) -> bool:
    """True when ``branch`` no longer exists, or every commit on it is on the main branch
    (merged, fast-forwarded, or rebased: `git cherry` matches patches, not ids), so nothing on
    it is missing from main. The main branch itself and a detached HEAD never "land"."""
    main = main or default_branch(root)
    if branch in (main, DETACHED):
        return False
    if branch not in branches(root):
        return True
    tip, main_tip = resolve(root, f"refs/heads/{branch}"), resolve(root, main_ref(root, main))
    if not tip or not main_tip:
        return False
    if is_ancestor(root, tip, main_tip):
        return True
    try:
        cherry = run_git(root, "cherry", main_tip, tip)
    except GitError:
        return False
    lines = [ln for ln in cherry.splitlines() if ln.strip()]
    return bool(lines) and all(ln.startswith("-") for ln in lines)


# ------------------------------------------------------------------------- main's history


@dataclass(frozen=True)
class Commit:
    sha: str
    parents: tuple[str, ...]
    subject: str
    body: str
    date: datetime  # committer date

    @property
    def short(self) -> str:
        return self.sha[:7]

    @property
    def is_merge(self) -> bool:
        return len(self.parents) > 1


_FIELD, _RECORD = "\x1f", "\x1e"


def log(root: Path, rev: str, *extra: str) -> list[Commit]:
    """Commits of ``git log rev`` (newest first), bodies included."""
    fmt = _FIELD.join(["%H", "%P", "%s", "%b", "%cI"]) + _RECORD
    try:
        out = run_git(root, "log", f"--format={fmt}", *extra, rev, "--")
    except GitError:
        return []
    commits = []
    for record in out.split(_RECORD):
        fields = record.strip("\n").split(_FIELD)
        if len(fields) != 5:
            continue
        sha, parents, subject, body, date = fields
        commits.append(Commit(sha, tuple(parents.split()), subject, body.strip(), from_iso(date.strip())))
    return commits


def first_parent_history(root: Path, main: str) -> list[Commit]:
    """Main's own history (first parents only): merges into it and commits made on it."""
    return log(root, main_ref(root, main), "--first-parent")


_REVERTS = re.compile(r"This reverts commit ([0-9a-f]{7,40})", re.IGNORECASE)


def reverted_ids(commit: Commit) -> list[str]:
    """Commit ids a commit says it reverts (`git revert` writes "This reverts commit <id>")."""
    return _REVERTS.findall(f"{commit.subject}\n{commit.body}")
