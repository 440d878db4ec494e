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
    path = path.replace("\\", "/")
    path = path if path.startswith("/") else _plain(path)
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


def _plain(path: str) -> str:
    """A relative path without its leading ``./`` (``lstrip("./")`` would also eat the dot of
    ``.github/…``)."""
    while path.startswith("./"):
        path = path[2:]
    return path.lstrip("/")


def names_file(citation: str, rel: str) -> bool:
    if not citation or not rel:
        return False
    cited = citation.lstrip("/")
    return rel == cited or rel.endswith("/" + cited) or cited.endswith("/" + rel)


def glob_forms(pattern: str) -> tuple[str, ...]:
    """The fnmatch patterns a trigger glob stands for: ``**/`` also matches no folder at all
    (``templates/**/*.html`` holds ``templates/base.html``, as in .gitignore), which fnmatch's
    ``*`` alone does not give. At most three ``**/`` are expanded (2^3 forms)."""
    parts = pattern.split("**/")
    if len(parts) == 1 or len(parts) > 4:
        return (pattern,)
    forms = []
    for mask in range(2 ** (len(parts) - 1)):
        form = parts[0]
        for i, part in enumerate(parts[1:]):
            form += ("**/" if mask >> i & 1 else "") + part
        forms.append(form)
    return tuple(dict.fromkeys(forms))


def glob_matches(pattern: str, path: str) -> bool:
    """Match a repo-relative path against a glob where ``**`` spans folders (none included)."""
    from fnmatch import fnmatchcase

    path = _plain(path)
    if any(fnmatchcase(path, form) for form in glob_forms(pattern)):
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


_compiled: dict[str, object] = {}
_NEVER = object()  # a pattern RE2 cannot compile (written before triggers were checked): it never fires


def shell_regex(pattern: str) -> object:
    """``pattern`` compiled by RE2 (cached), or a marker that it cannot be.

    RE2 matches in time linear in the command, whatever the pattern: Python's ``re``
    backtracks, and ``(a+)+$`` against 27 characters held a hook for 12 s (issue 11). RE2 is
    imported (~4 ms) and a pattern compiled (~15 µs) only once a trigger's literal was found in
    the command. What RE2 does not support (look-arounds, back-references) is refused when a
    lesson is written (:func:`kenning.domain.write_rules.check_trigger`).
    """
    found = _compiled.get(pattern)
    if found is None:
        try:
            found = compile_shell(pattern)
        except ValueError:
            found = _NEVER
        _compiled[pattern] = found
    return found


def compile_shell(pattern: str) -> object:
    """``pattern`` compiled by RE2, quietly; ``ValueError`` when RE2 cannot run it."""
    import re2

    options = re2.Options()
    options.log_errors = False  # a refused pattern is reported by its caller, not on stderr
    options.never_capture = True  # a trigger only asks whether it matches
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        raise ValueError(str(exc)) from exc


def shell_fires(pattern: str, command: str) -> bool:
    """Whether a ``shell:`` trigger's regular expression matches the command (linear time)."""
    if not command:
        return False
    prefix = literal_prefix(pattern)
    if len(prefix) >= 2 and prefix not in command:
        return False
    regex = shell_regex(pattern)
    if regex is _NEVER:
        return False
    if regex.search(command) is not None:  # type: ignore[attr-defined]
        return True
    # Agents chain commands (`cd web && npm publish`): a trigger anchored to a command's start
    # or end (`^npm publish`, `--dry-run$`) also fires on each simple command of the line: the
    # line's simple commands, one per line, searched once in multi-line mode (``^``/``$`` at
    # each line). An unanchored trigger already searched them all. Still linear.
    if "^" not in pattern and "$" not in pattern:
        return False
    lines = simple_commands(command)
    if "\n" not in lines and lines == command:
        return False  # one simple command, already searched
    per_line = shell_regex("(?m)" + pattern)
    return per_line is not _NEVER and per_line.search(lines) is not None  # type: ignore[attr-defined]


_split: list[tuple[str, str]] = []  # the last command split: a call tries every trigger on one command


def simple_commands(command: str) -> str:
    """The simple commands of a shell line, one per line: split at ``&&``, ``||``, ``;``,
    ``|``, ``&`` and newlines, each without surrounding blanks or a leading ``(``/``{``. Quotes
    are not parsed: a quoted operator splits too (``echo 'a; npm publish'`` fires
    ``^npm publish``), rare in the commands agents run and a lesson too many rather than one
    missed."""
    if _split and _split[0][0] == command:
        return _split[0][1]
    text = command
    for op in ("&&", "||", ";", "|", "&"):
        text = text.replace(op, "\n")
    parts = [part.strip().lstrip("({").lstrip() for part in text.split("\n")]
    lines = "\n".join(part for part in parts if part)
    _split[:] = [(command, lines)]
    return lines


def fires(tool: str, pattern: str, kind: str, command: str, rels: list[str]) -> bool:
    """Whether a trigger (``tool``: shell, read or edit; its ``pattern``) fires for a call of
    ``kind`` with this command or these repository-relative paths."""
    if tool == "shell":
        return kind == "shell" and shell_fires(pattern, command)
    return tool == kind and any(glob_matches(pattern, rel) for rel in rels)
