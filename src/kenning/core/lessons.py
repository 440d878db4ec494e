"""Lessons on tool calls: a lesson whose trigger matches the call (a shell regex, or a read/edit
file glob), then lessons and decisions whose citation names the touched file. At most 2 per
call, each once per session, after the user's rules and every withholding rule."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kenning.core.lifecycle import in_recall_pool
from kenning.core.write_rules import glob_matches
from kenning.model import Kind, Memory, TriggerTool
from kenning.store.protocol import MemoryFilter
from kenning.store.sqlite.hooks_store import HookStore

if TYPE_CHECKING:
    from kenning.core.scopes import Place
    from kenning.core.service import Core

PER_CALL = 2


@dataclass(frozen=True)
class ToolCall:
    kind: str  # "shell" | "read" | "edit"
    command: str = ""
    paths: tuple[str, ...] = ()


def cited_path(source_ref: str) -> str:
    """The file part of a citation (``path``, ``path:line``, ``path:symbol``, ``path#L3-9``);
    "" for a commit or anything that names no file."""
    ref = source_ref.strip()
    if not ref or re.fullmatch(r"[0-9a-f]{7,40}", ref):
        return ""
    path = ref.split("#", 1)[0]
    if ":" in path and not re.match(r"^[A-Za-z]:[\\/]", path):
        path = path.split(":", 1)[0]
    path = path.replace("\\", "/").lstrip("./") if not path.startswith("/") else path.replace("\\", "/")
    return path if ("." in path.rsplit("/", 1)[-1] or "/" in path) else ""


def relative(path: str, root: Path | None, cwd: str) -> str:
    """A touched file as a repository-relative path (as globs and citations are written)."""
    p = path.replace("\\", "/")
    if not os.path.isabs(p) and cwd:
        p = os.path.normpath(os.path.join(cwd, p))
    if root is not None:
        base = str(root).replace("\\", "/").rstrip("/") + "/"
        real = os.path.realpath(p)
        for candidate in (p, real):
            if candidate.startswith(base):
                return candidate[len(base):]
    return p.lstrip("/")


def names_file(citation: str, rel: str) -> bool:
    if not citation or not rel:
        return False
    cited = citation.lstrip("/")
    return rel == cited or rel.endswith("/" + cited) or cited.endswith("/" + rel)


_META = set(".^$*+?{}[]\\|()")


def _top_level_alternation(pattern: str) -> bool:
    depth, i, in_class = 0, 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth <= 0:
            return True
        i += 1
    return False


def literal_prefix(pattern: str) -> str:
    """A literal every match must contain, read off the pattern's start without compiling it
    (200 compiles cost more than this hook's budget). "" when unsure: alternation anywhere,
    a flag group, or a quantifier on the last literal character."""
    if _top_level_alternation(pattern):
        return ""
    body = pattern[1:] if pattern.startswith("^") else pattern
    out: list[str] = []
    for ch in body:
        if ch in _META:
            if ch in "*?{" and out:
                out.pop()
            break
        out.append(ch)
    return "".join(out)


def trigger_fires(memory: Memory, call: ToolCall, rels: list[str]) -> bool:
    trig = memory.trigger
    if trig is None:
        return False
    if trig.tool is TriggerTool.SHELL:
        if call.kind != "shell" or not call.command:
            return False
        prefix = literal_prefix(trig.pattern)
        if len(prefix) >= 2 and prefix not in call.command:
            return False
        try:
            return re.search(trig.pattern, call.command) is not None
        except re.error:
            return False
    if trig.tool.value != call.kind:
        return False
    return any(glob_matches(trig.pattern, rel) for rel in rels)


def matching(core: Core, place: Place, call: ToolCall, cwd: str = "") -> list[Memory]:
    """Every lesson or decision this call should bring up, triggered ones first, newest first."""
    store, now = core.store, core.now()
    rels = [relative(p, place.root, cwd) for p in call.paths if p]
    reach = list(place.reach)
    found: list[Memory] = []
    lessons = store.find(MemoryFilter(core.workspace, reach, kinds=(Kind.LESSON,), with_trigger=True),
                         newest_first=True)  # fmt: skip
    found.extend(m for m in lessons if trigger_fires(m, call, rels))
    seen = {m.ref for m in found}
    for rel in rels:
        base = rel.rsplit("/", 1)[-1]
        flt = MemoryFilter(core.workspace, reach, kinds=(Kind.LESSON, Kind.DECISION), source_ref_like=f"%{base}%")
        for m in store.find(flt, newest_first=True):
            if m.ref not in seen and names_file(cited_path(m.source_ref), rel):
                found.append(m)
                seen.add(m.ref)
    return [m for m in found if in_recall_pool(m, now)]


def for_call(core: Core, place: Place, call: ToolCall, session: str, cwd: str = "") -> list[Memory]:
    """At most 2 for this call, none given before in this session; records them as given."""
    if core.db is None:
        return []
    hooks = HookStore(core.db)
    given = hooks.shown(session, "lesson")
    fresh = [m for m in matching(core, place, call, cwd) if m.ref not in given]
    chosen = core.give_out(place, fresh)[:PER_CALL]
    if chosen:
        with core.store.transaction():
            hooks.mark_shown(session, "lesson", [m.ref for m in chosen], core.now())
    return chosen
