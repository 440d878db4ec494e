"""Pull requests and issues through the user's own ``gh``, only where it is installed and signed in.

Parsing is separate from running, so tests feed recorded ``gh --json`` output and the code
path that runs ``gh`` is skipped cleanly on machines without it. Only commands run ``gh``
(``kenning refresh``, the outcomes check): a hook never uses the network.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from kenning.clock import from_iso

PR_FIELDS = "number,title,url,state,createdAt,mergedAt,closedAt,mergeCommit,headRefName,body"
WAITING_TIMEOUT = 5  # seconds per gh call: a slow network leaves the previous list, it never waits
WAITING_LIMIT = "20"
# gh's reviewDecision of your own pull request -> what the brief says about it.
DECISIONS = {"CHANGES_REQUESTED": "changes requested", "APPROVED": "approved", "REVIEW_REQUIRED": "awaiting review"}


@dataclass(frozen=True)
class PullRequest:
    number: int
    title: str
    url: str
    state: str  # OPEN, CLOSED (without merging) or MERGED
    head: str
    body: str
    created_at: datetime | None
    merged_at: datetime | None
    closed_at: datetime | None
    merge_commit: str


def _time(value: object) -> datetime | None:
    # gh writes null, or the zero time, for a date that did not happen.
    if not isinstance(value, str) or not value or value.startswith("0001-"):
        return None
    try:
        return from_iso(value)
    except ValueError:
        return None


def parse_pulls(text: str) -> list[PullRequest]:
    """Pull requests from ``gh pr list --json <PR_FIELDS>`` output; malformed entries are skipped."""
    try:
        rows = json.loads(text or "[]")
    except json.JSONDecodeError:
        return []
    pulls = []
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, dict) or not isinstance(row.get("number"), int):
            continue
        commit = row.get("mergeCommit")
        pulls.append(PullRequest(
            number=row["number"], title=str(row.get("title") or ""), url=str(row.get("url") or ""),
            state=str(row.get("state") or "").upper(), head=str(row.get("headRefName") or ""),
            body=str(row.get("body") or ""), created_at=_time(row.get("createdAt")),
            merged_at=_time(row.get("mergedAt")), closed_at=_time(row.get("closedAt")),
            merge_commit=str(commit.get("oid") or "") if isinstance(commit, dict) else "",
        ))  # fmt: skip
    return pulls


def reverts(candidate: PullRequest, original: PullRequest) -> bool:
    """GitHub's Revert button opens a pull request whose body says "Reverts owner/repo#N"."""
    pattern = rf"(?m)^\s*Reverts\s+(?:[\w.-]+/[\w.-]+)?#{original.number}\b"
    return candidate.state == "MERGED" and bool(re.search(pattern, candidate.body))


@dataclass(frozen=True)
class Waiting:
    """A pull request or issue waiting on you."""

    kind: str  # "PR" or "issue"
    number: int
    title: str
    url: str
    why: str  # "review requested", "changes requested", ... or "" (an assigned issue)

    @property
    def line(self) -> str:
        return f"{self.kind} #{self.number} {self.title}" + (f" ({self.why})" if self.why else "")


def parse_waiting(text: str, kind: str, why: str = "") -> list[Waiting] | None:
    """Items from ``gh pr list`` / ``gh issue list --json number,title,url[,reviewDecision]``
    output; None when it is not a JSON list (gh failed), malformed entries skipped."""
    try:
        rows = json.loads(text)
    except json.JSONDecodeError:
        return None
    if not isinstance(rows, list):
        return None
    found = []
    for row in rows:
        if not isinstance(row, dict) or not isinstance(row.get("number"), int) or isinstance(row["number"], bool):
            continue
        reason = why
        if kind == "PR" and not why:  # your own pull request: where its review stands
            reason = DECISIONS.get(str(row.get("reviewDecision") or ""), "yours")
        title = " ".join(str(row.get("title") or "").split())
        found.append(Waiting(kind, row["number"], title, str(row.get("url") or ""), reason))
    return found


class GhClient:
    """Runs ``gh`` in one repository."""

    def __init__(self, root: Path, executable: str = "gh") -> None:
        self.root, self.executable = root, executable

    @classmethod
    def detect(cls, root: Path) -> GhClient | None:
        """A client when ``gh`` is installed and authenticated, else None (nothing to ask)."""
        executable = shutil.which("gh")
        if executable is None:
            return None
        client = cls(root, executable)
        return client if client._run("auth", "status") is not None else None

    def _run(self, *args: str, timeout: float = 10) -> str | None:
        try:
            done = subprocess.run(
                [self.executable, *args], cwd=self.root, capture_output=True, text=True, timeout=timeout, check=False,
                env={**_gh_env()},
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None

    def pulls_for(self, branch: str) -> list[PullRequest]:
        out = self._run("pr", "list", "--state", "all", "--head", branch, "--limit", "20", "--json", PR_FIELDS)
        return parse_pulls(out or "")

    def revert_of(self, pull: PullRequest) -> PullRequest | None:
        out = self._run("pr", "list", "--state", "merged", "--search", f"Reverts #{pull.number} in:body",
                        "--limit", "20", "--json", PR_FIELDS)  # fmt: skip
        found = [p for p in parse_pulls(out or "") if reverts(p, pull)]
        return min(found, key=lambda p: p.merged_at or datetime.max.replace(tzinfo=UTC)) if found else None

    def waiting(self) -> list[Waiting] | None:
        """Pull requests asking for your review, your own open pull requests, and issues
        assigned to you; None when any of the three calls fails (the caller keeps what it had)."""
        calls = (
            ("PR", "review requested", ("pr", "list", "--search", "review-requested:@me", "--state", "open",
                                        "--json", "number,title,url")),
            ("PR", "", ("pr", "list", "--author", "@me", "--state", "open",
                        "--json", "number,title,url,reviewDecision")),
            ("issue", "", ("issue", "list", "--assignee", "@me", "--state", "open", "--json", "number,title,url")),
        )  # fmt: skip
        found: dict[str, Waiting] = {}
        for kind, why, args in calls:
            out = self._run(*args, "--limit", WAITING_LIMIT, timeout=WAITING_TIMEOUT)
            items = parse_waiting(out, kind, why) if out is not None else None
            if items is None:
                return None
            for item in items:
                found.setdefault(item.url or f"{item.kind}#{item.number}", item)
        return list(found.values())


def _gh_env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env["GH_PROMPT_DISABLED"] = "1"  # never wait on a prompt
    env["NO_COLOR"] = "1"
    return env
