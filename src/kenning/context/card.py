"""The card of a session started from a task: up to 4,000 characters.

Title and goal, project and branch, open items and other sessions, the integrations connected
for this workspace (names only), the user's rules, and at most 5 memories chosen without a
model and without matching words: first those citing a file the task names (a file name in
the title or goal, or the file that defines a code name in them), then pinned ones; never one
whose cited code changed (citations are read when the card is built).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from kenning.context import brief
from kenning.context.brief import MAX_WAITING, clip, section, with_waiting
from kenning.core import deliveries, placements
from kenning.core.citations import read_now
from kenning.core.render import memory_line
from kenning.domain.lifecycle import in_recall_pool
from kenning.domain.matching import cited_path, names_file
from kenning.gitinfo import GitError, run_git
from kenning.model import Citation, Memory
from kenning.quoting import neutral
from kenning.refscan import refs_in
from kenning.store.protocol import MemoryFilter

if TYPE_CHECKING:
    from kenning.core.scopes import Place
    from kenning.core.service import Core
    from kenning.store.protocol import SessionRow, TaskRow

LIMIT = 4000
MAX_MEMORIES = 5
FILE_RE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.[A-Za-z][\w]{0,7})(?![\w/])")
# Names from code: snake_case with an underscore, CamelCase with an inner capital, or name().
CODE_RE = re.compile(r"\b([a-z]+_[a-z0-9_]+|[A-Z][a-z0-9]+[A-Z]\w*|[A-Za-z_]\w*(?=\(\)))")
DEFINES = r"(def|class|function|func|fn|type|interface|struct|enum|const|let|var|trait|module)\s+{}\b"


def named_files(text: str) -> list[str]:
    return list(dict.fromkeys(m.group(1) for m in FILE_RE.finditer(text) if not m.group(1)[0].isdigit()))


def code_names(text: str) -> list[str]:
    return list(dict.fromkeys(CODE_RE.findall(text)))


def defining_files(root: Path | None, names: list[str]) -> list[str]:
    """Files of the project that define one of ``names`` (git grep; no index, no model)."""
    if root is None or not names:
        return []
    found: list[str] = []
    for name in names[:8]:
        try:
            out = run_git(root, "grep", "-l", "-I", "-E", DEFINES.format(re.escape(name)), check=False, timeout=5)
        except GitError:
            continue
        found.extend(line.strip() for line in out.splitlines() if line.strip())
    return list(dict.fromkeys(found))


def connected(core: Core) -> list[str]:
    """Integrations connected for this workspace, by name only (never what they hold)."""
    raw = core.store.get_meta(core.workspace, f"integrations.{core.workspace}")
    try:
        names = json.loads(raw) if raw else []
    except ValueError:
        return []
    return [str(n) for n in names if isinstance(n, str)]


def choose(core: Core, place: Place, task: TaskRow) -> list[Memory]:
    text = f"{task.title}\n{task.goal}"
    files = named_files(text) + defining_files(place.root, code_names(text))
    now = core.now()
    reach = list(place.reach)
    citing: list[Memory] = []
    for f in files:
        base = f.rsplit("/", 1)[-1]
        for m in core.store.find(MemoryFilter(core.workspace, reach, source_ref_like=f"%{base}%"), newest_first=True):
            if m not in citing and names_file(cited_path(m.source_ref), f.lstrip("./")):
                citing.append(m)
    pinned = [m for m in core.store.find(MemoryFilter(core.workspace, reach, pinned=True), newest_first=True)
              if m not in citing]  # fmt: skip
    # What a person said never goes to agent runs stays off every card.
    kept_out = placements.not_for_agent_runs(core.store, core.workspace, [m.ref for m in citing + pinned])
    # Citations read now: a memory whose cited code changed (or is gone) stays off the card,
    # as everywhere a session is given memory.
    chosen = read_now(core.store, [m for m in citing + pinned if in_recall_pool(m, now) and m.ref not in kept_out], now)
    chosen = [m for m in chosen if in_recall_pool(m, now) and m.citation is not Citation.CHANGED]
    return core.give_out(place, chosen)[:MAX_MEMORIES]


def fit(lines: list[str], tail: list[str], limit: int) -> str:
    """Join, dropping lines from the end of the body (never the tail) until it fits."""
    body = list(lines)
    while body:
        text = "\n".join(body + tail)
        if len(text) <= limit:
            return text
        body.pop()
    return clip("\n".join(tail), limit)


def fit_waiting(compose: Callable[[str], list[str]], open_line: str, items: list[str], tail: list[str],
                limit: int) -> list[str]:  # fmt: skip
    """The body with as many waiting items (at most 3) as keep it and ``tail`` within
    ``limit``: the list is trimmed, never another section."""
    for count in range(min(len(items), MAX_WAITING), 0, -1):
        lines = compose(with_waiting(open_line, items, count))
        if len("\n".join(lines + tail)) <= limit:
            return lines
    return compose(open_line)


def build(core: Core, place: Place, task: TaskRow, session: SessionRow | None = None) -> str:
    from kenning.context.prepared import where_of

    branch = place.branch or task.branch or "no branch"
    # A task and its goal are the person's own words (the kenning command): neutral, not quoted.
    head = [f"kenning task #{task.id}: {clip(neutral(task.title), 200)}"]
    if task.goal:
        head.append(clip(f"Goal: {neutral(task.goal)}", 900))
    head.append(f"Project {neutral(place.name or place.project)} · branch {neutral(branch)}")
    # Open, Others, the rules and what waits on GitHub: read as the brief reads them.
    where = where_of(core, place, task.cwd or (str(place.root) if place.root else ""))
    parts = brief.gather(brief.StoresSource(core.stores), where, place.branch, session.session if session else "",
                         core.now().timestamp())  # fmt: skip
    rest: list[str] = []
    if parts.others:
        rest.append(section("Others", parts.others, 450))
    names = connected(core)
    if names:
        rest.append(clip("Connected: " + ", ".join(neutral(n) for n in names), 300))
    rest.extend(parts.rule_lines())
    memories = choose(core, place, task)
    if memories:
        rest.append("Memory:")
        rest.extend(f"- {memory_line(m)}" for m in memories)

    def compose(open_line: str) -> list[str]:
        return head + ([open_line] if open_line else []) + rest

    tail = ["For more, call `recall` with what you need in your own words."]
    open_line = section("Open", parts.open, 450)
    text = fit(fit_waiting(compose, open_line, parts.waiting, tail, LIMIT), tail, LIMIT)
    # What reached the session (the card of its task): the refs the card as printed carries.
    key = session.session if session is not None else task.session
    if key:
        deliveries.record(core, "card", refs_in(text), session=key, project=place.project)
    return text


def cwd_of(task: TaskRow) -> str:
    return task.cwd or os.getcwd()
