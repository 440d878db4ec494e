"""Decisions learn what came of them: when work that cited a decision lands, its Outcome says so.

Work is linked to a decision when a session on a branch cited it (a ``used`` ref recorded
with that branch). Evidence comes from git (merges and fast-forwards into the main branch,
commits saying "This reverts commit <id>") and, where ``gh`` is installed and signed in, from
pull requests (merged, closed without merging, reverted by GitHub's Revert button).

Only exact evidence counts. Each piece of evidence (a landing commit, a pull request, a revert)
is remembered per doc in the ``meta`` table, so git and gh reporting the same merge write one
line, and a line is never written twice.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from kenning import ghinfo as gh_mod
from kenning import githistory, gitinfo
from kenning.clock import from_iso, to_iso
from kenning.model import DecisionDoc

if TYPE_CHECKING:
    from kenning.core.service import Core

REVERT_WINDOW = timedelta(days=30)
CHECK_EVERY = timedelta(hours=1)

_MERGE_SUBJECTS = (
    re.compile(r"^Merge pull request #(?P<pr>\d+) from [^/\s]+/(?P<branch>\S+)"),
    re.compile(r"^Merge (?:remote-tracking )?branch '(?:origin/)?(?P<branch>[^']+)'"),
)


@dataclass(frozen=True)
class Landing:
    """Where a branch's work reached the main branch."""

    branch: str
    commit: githistory.Commit  # the merge commit, or the tip itself for a fast-forward
    title: str
    link: str  # a pull request URL, or ""

    @property
    def where(self) -> str:
        return self.link or self.commit.short


@dataclass
class OutcomeReport:
    project: str
    lines: dict[str, list[str]] = field(default_factory=dict)  # doc title -> lines added
    used_gh: bool = False
    skipped: list[str] = field(default_factory=list)


def shipped_line(title: str, where: str, when: datetime) -> str:
    return f'Shipped in "{title}" ({where}), {when.date().isoformat()}'


def not_shipped_line(title: str, where: str) -> str:
    return f'Not shipped: "{title}" ({where}) was closed without merging'


def reverted_line(title: str, where: str, when: datetime) -> str:
    return f'Reverted: "{title}" was undone in {where}, {when.date().isoformat()}'


def _pr_link(project_key: str, number: str) -> str:
    return f"https://{project_key}/pull/{number}" if project_key.startswith("github.com/") else ""


def _title_of(commit: githistory.Commit, branch: str) -> tuple[str, str]:
    """(title, pull request number) of a landing commit; GitHub puts the PR title in the body."""
    match = _MERGE_SUBJECTS[0].match(commit.subject)
    if match:
        return (commit.body.splitlines()[0].strip() if commit.body else branch), match.group("pr")
    if commit.is_merge:
        return branch, ""
    return commit.subject, ""  # a fast-forward: the tip commit speaks for the work


def find_landing(root: Path, branch: str, main: str, history: list[githistory.Commit], since: datetime,
                 project_key: str = "") -> Landing | None:  # fmt: skip
    """The commit on main's first-parent history that brought ``branch`` in, made after
    ``since`` (the first time a session on the branch cited the decision)."""
    on_main = {c.sha: c for c in history}
    tip = gitinfo.resolve(root, f"refs/heads/{branch}") if branch in gitinfo.branches(root) else ""
    landing: githistory.Commit | None = None
    if tip:
        if tip in on_main:
            landing = on_main[tip]  # fast-forward (or never left main: the date check decides)
        else:
            try:
                out = gitinfo.run_git(root, "rev-list", "--first-parent", "--ancestry-path", f"{tip}..{githistory.main_ref(root, main)}")
            except gitinfo.GitError:
                out = ""
            oldest = out.split()[-1] if out.split() else ""
            landing = on_main.get(oldest)
    if landing is not None and landing.date < since:
        landing = None  # it was on main before any session on the branch cited the decision
    if landing is None:
        # The branch is gone (or moved on since it merged): a merge commit naming it is evidence.
        for commit in reversed(history):
            named = next((m for m in (p.match(commit.subject) for p in _MERGE_SUBJECTS) if m), None)
            if named and named.group("branch") == branch and commit.date >= since:
                landing = commit
                break
    if landing is None or landing.date < since:
        return None
    title, pr = _title_of(landing, branch)
    return Landing(branch, landing, title, _pr_link(project_key, pr) if pr else "")


def find_revert(root: Path, main: str, landing: githistory.Commit) -> githistory.Commit | None:
    """A commit on main saying "This reverts commit <landing id>" within 30 days of it."""
    until = landing.date + REVERT_WINDOW
    candidates = githistory.log(root, githistory.main_ref(root, main), "--grep=This reverts commit", f"--since={to_iso(landing.date)}")
    for commit in reversed(candidates):
        if commit.date > until or commit.date < landing.date:
            continue
        if any(len(named) >= 7 and landing.sha.startswith(named.lower()) for named in githistory.reverted_ids(commit)):
            return commit
    return None


class _Ledger:
    """Evidence already turned into Outcome lines, per doc, in the ``meta`` table."""

    def __init__(self, core: Core, doc: DecisionDoc) -> None:
        self.core, self.key = core, f"outcomes.seen.{doc.id}"
        self.seen: set[str] = set(json.loads(core.store.get_meta(core.workspace, self.key) or "[]"))
        self.added: list[str] = []

    def add(self, doc: DecisionDoc, evidence: str, line: str) -> DecisionDoc:
        if evidence in self.seen:
            return doc
        self.seen.add(evidence)
        updated = self.core.add_outcome(doc, line)
        if updated.outcome != doc.outcome:
            self.added.append(line)
        self.core.store.set_meta(self.core.workspace, self.key, json.dumps(sorted(self.seen)))
        return updated


def _linked_branches(core: Core, doc: DecisionDoc, skip: set[str]) -> dict[str, datetime]:
    """Branch -> the first time a session on it cited the decision."""
    first: dict[str, datetime] = {}
    for use in core.store.uses(core.workspace, doc.memory_ref) if doc.memory_ref else []:
        if use.branch and use.branch not in skip and (use.branch not in first or use.at < first[use.branch]):
            first[use.branch] = use.at
    return first


def check(core: Core, cwd: Path | str, *, gh: gh_mod.GhClient | None | bool = True) -> OutcomeReport:
    """Add what came of each decision of the project at ``cwd``. ``gh=True`` uses gh when it
    is installed and signed in; pass a client (tests) or False."""
    gitinfo.clear_cache()
    info = gitinfo.project_for(cwd)
    report = OutcomeReport(info.key)
    if info.kind != "project" or info.root is None:
        report.skipped.append("not a git repository")
        return report
    root, place = info.root, core.place(info.root)
    client = gh_mod.GhClient.detect(root) if gh is True else (gh or None)
    report.used_gh = client is not None
    main = gitinfo.default_branch(root)
    history: list[githistory.Commit] | None = None
    for doc in core.decision_docs(place):
        if doc.scope != place.project:
            continue
        branches = _linked_branches(core, doc, {main, gitinfo.DETACHED})
        if not branches:
            continue
        if history is None:
            history = githistory.first_parent_history(root, main)
        ledger = _Ledger(core, doc)
        for branch, since in sorted(branches.items()):
            doc = _from_gh(client, ledger, doc, branch, since) if client else doc
            landing = find_landing(root, branch, main, history, since, info.key)
            if landing is None:
                continue
            doc = ledger.add(doc, f"merge:{landing.commit.sha}",
                             shipped_line(landing.title, landing.where, landing.commit.date))  # fmt: skip
            revert = find_revert(root, main, landing.commit)
            if revert is not None:
                doc = ledger.add(doc, f"revert:{revert.sha}",
                                 reverted_line(landing.title, revert.short, revert.date))  # fmt: skip
        if ledger.added:
            report.lines[doc.title] = ledger.added
    return report


def _from_gh(client: gh_mod.GhClient, ledger: _Ledger, doc: DecisionDoc, branch: str, since: datetime) -> DecisionDoc:
    for pr in client.pulls_for(branch):
        opened = pr.created_at or pr.merged_at or pr.closed_at
        if opened is not None and (pr.merged_at or pr.closed_at or opened) < since:
            continue  # finished before any session on the branch cited the decision
        if pr.state == "MERGED" and pr.merged_at is not None:
            evidence = f"merge:{pr.merge_commit}" if pr.merge_commit else f"pr:{pr.number}"
            ledger.seen.add(f"pr:{pr.number}")
            doc = ledger.add(doc, evidence, shipped_line(pr.title, pr.url, pr.merged_at))
            revert = client.revert_of(pr)
            if revert is not None and revert.merged_at is not None and revert.merged_at - pr.merged_at <= REVERT_WINDOW:
                evidence = f"revert:{revert.merge_commit}" if revert.merge_commit else f"pr:{revert.number}"
                doc = ledger.add(doc, evidence, reverted_line(pr.title, revert.url, revert.merged_at))
        elif pr.state == "CLOSED":
            doc = ledger.add(doc, f"closed:{pr.number}", not_shipped_line(pr.title, pr.url))
    return doc


def last_run_key(core: Core, project: str) -> str:
    return f"outcomes.last_run.{core.workspace}.{project}"


def maybe_check_outcomes(core: Core, project: Path | str) -> OutcomeReport | None:
    """Run :func:`check` for the project at ``project`` (a working folder) at most hourly, and
    with it the cache of what waits on you in gh (:mod:`kenning.core.waiting`); the time of
    the last run lives in ``meta``. Best effort: never raises."""
    try:
        info = gitinfo.project_for(project)
        if info.kind != "project":
            return None
        key, now = last_run_key(core, info.key), core.now()
        last = core.store.get_meta(core.workspace, key)
        if last and now - from_iso(last) < CHECK_EVERY:
            return None
        core.store.set_meta(core.workspace, key, to_iso(now))
        client = gh_mod.GhClient.detect(info.root) if info.root is not None else None
        report = check(core, project, gh=client or False)
        if client is not None:  # gh is asked anyway: refresh what waits on you in the same pass
            from kenning.core import waiting

            waiting.refresh(core, project, gh=client)
        return report
    except (gitinfo.GitError, OSError):
        return None
