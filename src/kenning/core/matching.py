"""Whether a lesson's trigger or citation matches a tool call: the one definition, used by the
core (:mod:`kenning.core.lessons`) and by the hook that hands lessons out before a call.

The standard library only, and ``re`` / ``fnmatch`` imported when a pattern is actually tried:
a hook process imports this on a call that may match a lesson.
"""

from __future__ import annotations

import os

_HEX = frozenset("0123456789abcdef")
_META = set(".^$*+?{}[]\\|()")


def cited_path(source_ref: str) -> str:
    """The file part of a citation (``path``, ``path:line``, ``path:symbol``, ``path#L3-9``);
    "" for a commit or anything that names no file."""
    ref = source_ref.strip()
    if not ref or (7 <= len(ref) <= 40 and set(ref) <= _HEX):
        return ""
    path = ref.split("#", 1)[0]
    drive = len(path) > 2 and path[0].isascii() and path[0].isalpha() and path[1] == ":" and path[2] in "\\/"
    if ":" in path and not drive:
        path = path.split(":", 1)[0]
    path = path.replace("\\", "/").lstrip("./") if not path.startswith("/") else path.replace("\\", "/")
    return path if ("." in path.rsplit("/", 1)[-1] or "/" in path) else ""


def relative(path: str, root: str | None, cwd: str) -> str:
    """A touched file as a repository-relative path (as globs and citations are written)."""
    p = path.replace("\\", "/")
    if not os.path.isabs(p) and cwd:
        p = os.path.normpath(os.path.join(cwd, p))
    if root:
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


def glob_matches(pattern: str, path: str) -> bool:
    """Match a repo-relative path against a glob where ``**`` spans folders."""
    from fnmatch import fnmatchcase

    path = path.lstrip("./")
    if fnmatchcase(path, pattern):
        return True
    if pattern.startswith("**/") and fnmatchcase(path, pattern[3:]):
        return True
    # A glob with no folder part matches the file name anywhere.
    return "/" not in pattern and fnmatchcase(path.rsplit("/", 1)[-1], pattern)


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


def shell_fires(pattern: str, command: str) -> bool:
    """Whether a ``shell:`` trigger's regular expression matches the command."""
    if not command:
        return False
    prefix = literal_prefix(pattern)
    if len(prefix) >= 2 and prefix not in command:
        return False
    import re

    try:
        return re.search(pattern, command) is not None
    except re.error:
        return False


def fires(tool: str, pattern: str, kind: str, command: str, rels: list[str]) -> bool:
    """Whether a trigger (``tool``: shell, read or edit; its ``pattern``) fires for a call of
    ``kind`` with this command or these repository-relative paths."""
    if tool == "shell":
        return kind == "shell" and shell_fires(pattern, command)
    return tool == kind and any(glob_matches(pattern, rel) for rel in rels)
