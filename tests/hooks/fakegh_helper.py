"""A stand-in `gh` on PATH that replays recorded `--json` output (gh 2.x prints it indented).

Touch ``<data>/offline`` to make every list call fail (exit 1) as gh does without a network, and
``<data>/signed-out`` to make `gh auth status` fail.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

# `gh pr list --search "review-requested:@me" --state open --json number,title,url`
REVIEW_REQUESTED = [
    {"number": 12, "title": "Fix rounding", "url": "https://github.com/acme/shop/pull/12"},
]
# `gh pr list --author "@me" --state open --json number,title,url,reviewDecision`
MINE = [
    {"number": 17, "reviewDecision": "CHANGES_REQUESTED", "title": "Add CSV export",
     "url": "https://github.com/acme/shop/pull/17"},
    {"number": 19, "reviewDecision": "", "title": "Draft: new cart page", "url": "https://github.com/acme/shop/pull/19"},
]  # fmt: skip
# `gh issue list --assignee "@me" --state open --json number,title,url`
ASSIGNED = [
    {"number": 40, "title": "Flaky login test", "url": "https://github.com/acme/shop/issues/40"},
]


def install(folder: Path, review: list[dict[str, object]] | None = None, mine: list[dict[str, object]] | None = None,
            assigned: list[dict[str, object]] | None = None) -> Path:  # fmt: skip
    """Write the recorded answers and a `gh` script into ``folder``; returns the data folder.
    Put ``folder / "bin"`` on PATH to use it."""
    data, bin_dir = folder / "gh-data", folder / "bin"
    data.mkdir(parents=True, exist_ok=True)
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name, rows in (("review", review if review is not None else REVIEW_REQUESTED),
                       ("mine", mine if mine is not None else MINE),
                       ("assigned", assigned if assigned is not None else ASSIGNED)):  # fmt: skip
        (data / f"{name}.json").write_text(json.dumps(rows, indent=2) + "\n")
    script = bin_dir / "gh"
    script.write_text(f"""#!/bin/sh
data={data}
echo "$*" >> "$data/calls.log"
case "$1 $2" in
  "auth status")
    [ -e "$data/signed-out" ] && {{ echo "You are not logged into any GitHub hosts." >&2; exit 1; }}
    exit 0 ;;
esac
if [ -e "$data/offline" ]; then
  echo "error connecting to api.github.com" >&2; exit 1
fi
case "$1 $2" in
  "pr list")
    case "$*" in
      *"review-requested:@me"*) cat "$data/review.json" ;;
      *"--author @me"*) cat "$data/mine.json" ;;
      *) echo "[]" ;;
    esac ;;
  "issue list")
    case "$*" in
      *"--assignee @me"*) cat "$data/assigned.json" ;;
      *) echo "[]" ;;
    esac ;;
  *) echo "unknown command" >&2; exit 1 ;;
esac
""")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return data


def path_without_gh(folder: Path) -> str:
    """A PATH holding git and nothing else (so no real `gh` either)."""
    bin_dir = folder / "bin-no-gh"
    bin_dir.mkdir(parents=True, exist_ok=True)
    git = shutil.which("git")
    assert git is not None
    link = bin_dir / "git"
    if not link.exists():
        link.symlink_to(git)
    return str(bin_dir)


def path_with_gh(folder: Path) -> str:
    return f"{folder / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
