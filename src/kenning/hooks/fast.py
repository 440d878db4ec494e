"""The tool-call fast path: a small compiled trigger file kept next to the store.

Every watched tool call runs a hook, so the hook first reads ``triggers.json`` and opens the
database only when something could match. The file holds, per trigger, a literal that any
matching command or path must contain (cheap ``in`` tests; the regex or glob is compiled only
when its literal is there), plus the file names that lessons and decisions cite; each entry
names its memory (ref, workspace, scope, creation time), so the hook that hands a lesson out
reads only those memories' rows.

It is rebuilt lazily. ``triggers.sig`` records the database files' signature (mtimes and
sizes) and the lesson stamp the file was built from; SQL triggers bump that stamp whenever a
lesson, a trigger or a citation changes. Same signature: nothing to check. Different: read the
stamp (read-only); rebuild only when it moved. Compiling a regex costs ~75 µs, so compiling
all 200 on every call would eat the budget; ``re``, ``json`` and ``fnmatch`` are imported only
when a literal matched or the file is rebuilt.
"""

from __future__ import annotations

import os

from kenning import jsonfast

TYPE_CHECKING = False  # typing costs milliseconds to import; mypy reads this name as True
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

FILE = "triggers.json"
SIG = "triggers.sig"
VERSION = 4
EMPTY: dict[str, Any] = {"shell": [], "read": [], "edit": [], "cited": {}}
# One candidate: (kind, ref, workspace, scope, created_at, id, pattern); kind is shell, read,
# edit or cited, pattern the regex, the glob or the cited path.
Entry = tuple[str, str, str, str, str, int, str]


def _sig(db: str) -> str:
    out: list[str] = []
    for p in (db, f"{db}-wal"):
        try:
            st = os.stat(p)
            out += [str(st.st_mtime_ns), str(st.st_size)]
        except OSError:
            out += ["0", "0"]
    return " ".join(out)


def regex_hint(pattern: str) -> tuple[str, bool]:
    """The longest literal every match must contain (top level only), and whether the pattern
    ignores case. "" means no literal is known: the pattern is always tried."""
    import re

    try:
        from re import _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(pattern)
        literal = _parser.LITERAL
    except Exception:
        return "", False
    ci = bool(parsed.state.flags & re.IGNORECASE)
    best = cur = ""
    for op, av in parsed:
        if op is literal:
            cur += chr(av)
        else:
            best, cur = max(best, cur, key=len), ""
    best = max(best, cur, key=len)
    return (best.lower() if ci else best), ci


def glob_hint(glob: str) -> str:
    import re

    runs = re.split(r"[*?\[\]]+", glob)
    best = max(runs, key=len) if runs else ""
    return best[2:] if best.startswith("./") else best


def compile_rows(rows: list[tuple[str, str | None, str, str, str, str, str, int]]) -> dict[str, Any]:
    """(ref, trigger text, source_ref, kind, workspace, scope, created_at, id) rows -> the
    file's matching tables."""
    from kenning.domain.matching import cited_path

    data: dict[str, Any] = {"shell": [], "read": [], "edit": [], "cited": {}}
    for ref, trigger, source_ref, _kind, workspace, scope, created, rowid in rows:
        who = [ref, workspace, scope, created, rowid]
        if trigger:
            tool, _, pattern = trigger.partition(":")
            if tool == "shell":
                hint, ci = regex_hint(pattern)
                data["shell"].append([hint, pattern, ci, *who])
            elif tool in ("read", "edit"):
                data[tool].append([glob_hint(pattern), pattern, *who])
        path = cited_path(source_ref or "")
        if path:
            data["cited"].setdefault(path.rsplit("/", 1)[-1], []).append([*who, path])
    return data


def _write(path: str, text: str) -> None:
    # Readable by its owner only, like everything in the data folder (kenning.private).
    import contextlib

    from kenning import private

    with contextlib.suppress(OSError):  # a file not written is rebuilt by the next call
        private.write(path, text.encode("utf-8"))


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError:
        return ""


def rebuild(home: str, db_path: str, workspace: str) -> dict[str, Any]:
    """Read the workspace's triggers and citations from the store and rewrite both files."""
    import json

    from kenning.store import hotpath

    sig = _sig(db_path)
    stamp, rows = hotpath.triggers(db_path, workspace)
    data = {"version": VERSION, "workspace": workspace, "stamp": stamp, **compile_rows(rows)}
    _write(os.path.join(home, FILE), json.dumps(data))
    _write(os.path.join(home, SIG), f"{VERSION} {stamp} {sig}")
    return data


def load(home: str, db_path: str, workspace: str) -> dict[str, Any]:
    """The workspace's trigger tables, fresh: from the file when the database did not move or
    its lesson stamp is unchanged, else rebuilt. No database yet means nothing can match."""
    if not os.path.exists(db_path):
        return EMPTY
    version, _, rest = _read(os.path.join(home, SIG)).partition(" ")
    built_stamp, _, built_sig = rest.partition(" ")
    if version != str(VERSION):
        return rebuild(home, db_path, workspace)
    sig = _sig(db_path)
    if built_sig != sig:
        from kenning.store.hotpath import lesson_stamp

        stamp = lesson_stamp(db_path)
        if stamp is None or str(stamp) != built_stamp:
            return rebuild(home, db_path, workspace)
        _write(os.path.join(home, SIG), f"{VERSION} {built_stamp} {sig}")
    try:
        data = jsonfast.loads(_read(os.path.join(home, FILE)))
    except ValueError:
        return rebuild(home, db_path, workspace)
    if isinstance(data, dict) and data.get("stamp") == int(built_stamp or -1) and data.get("workspace") == workspace:
        return data
    return rebuild(home, db_path, workspace)


def after_writes(home: str, db_path: str, read_stamp: Callable[[], int]) -> None:
    """Called by a hook that wrote to the database (its own session rows): when the lesson
    stamp is still the one the file was built from, record the database's new signature so
    the next tool call need not open the database to check."""
    version, _, rest = _read(os.path.join(home, SIG)).partition(" ")
    built_stamp = rest.partition(" ")[0]
    # The signature first, the stamp second: a lesson written in between changes the files
    # again, so the next call sees a new signature and checks the stamp itself.
    sig = _sig(db_path)
    if version == str(VERSION) and built_stamp == str(read_stamp()):
        _write(os.path.join(home, SIG), f"{VERSION} {built_stamp} {sig}")


def _suffixes(path: str) -> list[str]:
    parts = path.replace("\\", "/").strip("/").split("/")
    return ["/".join(parts[i:]) for i in range(len(parts))]


def candidates(data: dict[str, Any], kind: str, command: str, paths: tuple[str, ...]) -> list[Entry]:
    """The triggers and citations that could fire for this call: never a false "no"; whether
    one really fires is decided with the touched files made repository-relative
    (:func:`kenning.domain.matching.fires`). A shell pattern is compiled only when its literal is
    in the command."""
    found: list[Entry] = []
    if kind == "shell":
        lowered = None
        for hint, pattern, ci, ref, workspace, scope, created, rowid in data.get("shell", []):
            if ci:
                lowered = command.lower() if lowered is None else lowered
                if hint not in lowered:
                    continue
            elif hint not in command:
                continue
            from kenning.domain.matching import shell_fires

            if shell_fires(pattern, command):
                found.append(("shell", ref, workspace, scope, created, rowid, pattern))
        return found
    if kind not in ("read", "edit") or not paths:
        return found
    cited = data.get("cited", {})
    for path in paths:
        norm = path.replace("\\", "/")
        for ref, workspace, scope, created, rowid, cited_as in cited.get(norm.rsplit("/", 1)[-1], []):
            found.append(("cited", ref, workspace, scope, created, rowid, cited_as))
        for hint, glob, ref, workspace, scope, created, rowid in data.get(kind, []):
            if hint and hint not in norm:
                continue
            from fnmatch import fnmatchcase

            from kenning.domain.matching import glob_forms

            globs = glob_forms(glob)
            if any(fnmatchcase(s, g) for s in _suffixes(norm) for g in globs) or (
                "/" not in glob and fnmatchcase(norm.rsplit("/", 1)[-1], glob)
            ):
                found.append((kind, ref, workspace, scope, created, rowid, glob))
    return list(dict.fromkeys(found))
