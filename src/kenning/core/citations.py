"""Citations that notice change: parse a ``source_ref``, fingerprint what it cites, and read
its state later (same, changed, gone, unchecked).

A fingerprint covers the cited lines (or a symbol's block, or the whole file for a bare file).
Lines are found again after an edit above them moved them: the check looks for the same window
of lines anywhere in the file, not only at the cited line numbers. Whitespace at either end of a
line does not count, so re-indenting or a CRLF checkout does not read as a change.

Hand-written rather than a library: difflib would tell *how* text moved, but all we need is
"is this exact window still somewhere in the file", which a set of window hashes answers in
one pass per file.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from kenning.model import Citation, Memory

if TYPE_CHECKING:
    from kenning.core.service import Core
    from kenning.store.protocol import MemoryStore

VERSION = "v1"
MAX_WINDOW = 2000  # a citation of more lines than this is fingerprinted as its whole file
MAX_BLOCK = 400  # a symbol's block stops after this many lines

# A domain is not a file: "stripe.com" ends in one of these, a source file does not.
_TLDS = frozenset(
    [
        "com",
        "org",
        "net",
        "io",
        "dev",
        "ai",
        "app",
        "co",
        "edu",
        "gov",
        "info",
        "biz",
        "me",
        "cloud",
        "tech",
        "xyz",
        "site",
        "uk",
        "de",
        "fr",
        "jp",
        "eu",
        "ca",
        "au",
        "nl",
        "us",
    ]
)
_BARE_FILES = frozenset(
    [
        "makefile",
        "dockerfile",
        "license",
        "readme",
        "procfile",
        "gemfile",
        "rakefile",
        "justfile",
        "codeowners",
        "vagrantfile",
        "containerfile",
        "brewfile",
        "changelog",
    ]
)
_COMMIT = re.compile(r"^(?:commit:)?([0-9a-f]{7,40})$", re.IGNORECASE)
_LINES = re.compile(r"^L?(\d+)(?:\s*[-–:]\s*L?(\d+))?$")
_SYMBOL = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*$")
_EXT = re.compile(r"\.([A-Za-z][A-Za-z0-9_+-]{0,11})$")


@dataclass(frozen=True)
class SourceRef:
    kind: str  # "file", "lines", "symbol", "commit", or "none" (not a path: never judged)
    path: str = ""
    start: int = 0
    end: int = 0
    symbol: str = ""
    commit: str = ""


def looks_like_path(text: str) -> bool:
    """A file path rather than a version ("Node 24.14"), an RFC or a domain ("stripe.com")."""
    if not text or any(ch.isspace() for ch in text) or "://" in text or text.startswith("mailto:"):
        return False
    parts = [p for p in text.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts:
        return False
    first_ext = _EXT.search(parts[0])
    if len(parts) > 1 and first_ext is not None and first_ext.group(1).lower() in _TLDS:
        return False  # "github.com/acme/widget" is an address, not a folder
    if len(parts) > 1:
        return True
    name = parts[0]
    if name.lower() in _BARE_FILES or name.startswith("."):
        return True
    ext = _EXT.search(name)
    return ext is not None and ext.group(1).lower() not in _TLDS


def parse_ref(source_ref: str) -> SourceRef:
    ref = source_ref.strip()
    if not ref:
        return SourceRef("none")
    commit = _COMMIT.match(ref)
    if commit:
        return SourceRef("commit", commit=commit.group(1).lower())
    if "#L" in ref:  # GitHub style: path#L12 or path#L12-L20
        ref = ref.replace("#L", ":", 1)
    path, sep, suffix = ref.partition(":")
    if len(path) == 1 and sep:  # a Windows drive letter, C:\...
        return SourceRef("none")
    path = path[2:] if path.startswith("./") else path
    if not looks_like_path(path):
        return SourceRef("none")
    if not sep or not suffix:
        return SourceRef("file", path)
    lines = _LINES.match(suffix.strip())
    if lines:
        start = int(lines.group(1))
        end = int(lines.group(2) or start)
        start, end = min(start, end), max(start, end)
        if start < 1:
            return SourceRef("file", path)
        return SourceRef("lines", path, start, end)
    if _SYMBOL.match(suffix.strip()):
        return SourceRef("symbol", path, symbol=suffix.strip())
    return SourceRef("file", path)


def _digest(lines: Iterable[str]) -> str:
    return hashlib.blake2b("\n".join(lines).encode("utf-8", "replace"), digest_size=10).hexdigest()


@dataclass
class SourceFile:
    """One file read once per batch: its stripped lines and, built on first need, every
    window's hash per window size and an index of the names it defines."""

    lines: list[str]
    indents: list[int] = field(default_factory=list)
    _windows: dict[int, set[str]] = field(default_factory=dict)
    _names: frozenset[str] | None = None
    _defs: dict[str, int] | None = None

    @classmethod
    def read(cls, path: Path) -> SourceFile:
        raw = path.read_bytes().decode("utf-8", "replace").splitlines()
        return cls([line.strip() for line in raw], [len(line) - len(line.lstrip()) for line in raw])

    def window(self, start: int, end: int) -> str | None:
        if end > len(self.lines):
            return None
        return _digest(self.lines[start - 1 : end])

    def has_window(self, size: int, digest: str) -> bool:
        hashes = self._windows.get(size)
        if hashes is None:
            hashes = {_digest(self.lines[i : i + size]) for i in range(max(0, len(self.lines) - size + 1))}
            self._windows[size] = hashes
        return digest in hashes

    def whole(self) -> str:
        return _digest(self.lines)

    @property
    def names(self) -> frozenset[str]:
        if self._names is None:
            self._names = frozenset(_NAME.findall("\n".join(self.lines)))
        return self._names

    def definition(self, name: str) -> int | None:
        """0-based line where ``name`` is defined (def/class/function/…, or assigned)."""
        if self._defs is None:
            strong: dict[str, int] = {}
            weak: dict[str, int] = {}  # `name = …` or `name(…)`: an assignment, or maybe a call
            for i, line in enumerate(self.lines):
                found = _DEFINITION.match(line)
                if found and found.group(1):
                    strong.setdefault(found.group(1), i)
                elif found:
                    weak.setdefault(found.group(2), i)
            self._defs = {**weak, **strong}
        return self._defs.get(name)


class FileCache:
    """Reads each file at most once while a batch of citations is checked."""

    def __init__(self) -> None:
        self._files: dict[Path, SourceFile | None] = {}

    def get(self, path: Path) -> SourceFile | None:
        if path not in self._files:
            try:
                self._files[path] = SourceFile.read(path) if path.is_file() else None
            except OSError:
                self._files[path] = None
        return self._files[path]


_DEF_WORDS = (
    r"def|class|function|func|fn|struct|enum|trait|interface|type|const|let|var|impl|module|object|"
    r"record|val|macro|sub|proc|protocol|extension"
)
# Compiled once: a per-symbol pattern costs more than the whole check (see bench/git_citations.py).
_DEFINITION = re.compile(
    rf"^(?:[\w@]+\s+)*?(?:{_DEF_WORDS})\s+(?:\([^)]*\)\s*)?\*?([A-Za-z_$][\w$]*)"
    rf"|^([A-Za-z_$][\w$]*)\s*(?:[:=(<]|$)"
)
_NAME = re.compile(r"[A-Za-z_$][\w$]*")


def _symbol_block(source: SourceFile, symbol: str) -> tuple[int, int] | None:
    """(first, last) 1-based lines of the symbol's definition block; None when the name (or a
    qualifier before it, like the class in ``Core.remember``) appears nowhere."""
    parts = [p for p in re.split(r"\.|::|#", symbol) if p]
    if not parts or not all(part in source.names for part in parts):
        return None
    name, lines = parts[-1], source.lines
    hit = source.definition(name)
    if hit is None:
        word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
        hit = next((i for i, line in enumerate(lines) if word.search(line)), None)
        return (hit + 1, hit + 1) if hit is not None else None
    indent = source.indents[hit]
    last = hit
    for j in range(hit + 1, min(len(lines), hit + MAX_BLOCK)):
        if not lines[j]:
            continue
        if source.indents[j] > indent:
            last = j
            continue
        if lines[j][0] in "})]" or lines[j] in ("end", "end;"):
            last = j  # the closing line of a brace or `end` block belongs to it
        break
    return hit + 1, last + 1


class Checker:
    """Fingerprints and checks citations under one project root, reading each file once."""

    def __init__(self, root: Path | None) -> None:
        self.root = root.resolve() if root is not None and root.exists() else None
        self.files = FileCache()
        self._commits: dict[str, bool] = {}

    def _locate(self, path: str) -> Path | None:
        """The file a citation names; None when its folder is not on this machine."""
        candidate = Path(path)
        if candidate.is_absolute():
            if self.root is not None and candidate.is_relative_to(self.root):
                return candidate
            return candidate if candidate.parent.exists() else None
        return self.root / candidate if self.root is not None else None

    def fingerprint(self, source_ref: str) -> str:
        """What ``source_hash`` stores; "" when there is nothing to compare."""
        ref = parse_ref(source_ref)
        if ref.kind == "commit":
            return f"commit:{ref.commit}" if self._commit_exists(ref.commit) else ""
        if ref.kind == "none":
            return ""
        located = self._locate(ref.path)
        source = self.files.get(located) if located is not None else None
        if located is None or source is None:
            return ""
        if ref.kind == "lines" and ref.end - ref.start < MAX_WINDOW:
            digest = source.window(ref.start, ref.end)
            return f"{VERSION}:{digest}" if digest else ""
        if ref.kind == "symbol":
            block = _symbol_block(source, ref.symbol)
            digest = source.window(*block) if block else None
            return f"{VERSION}:{digest}" if digest else ""
        return f"{VERSION}:{source.whole()}"

    def check(self, source_ref: str, source_hash: str) -> Citation:
        ref = parse_ref(source_ref)
        if ref.kind == "none" or self.root is None and not Path(ref.path).is_absolute():
            return Citation.UNCHECKED
        if ref.kind == "commit":
            if not source_hash or self.root is None:
                return Citation.UNCHECKED
            # A commit never changes; one this clone lacks (shallow, other fork) is not judged.
            return Citation.SAME if self._commit_exists(ref.commit) else Citation.UNCHECKED
        located = self._locate(ref.path)
        if located is None:
            return Citation.UNCHECKED
        source = self.files.get(located)
        if source is None:
            return Citation.UNCHECKED if located.is_dir() else Citation.GONE
        stored = source_hash.removeprefix(f"{VERSION}:") if source_hash.startswith(f"{VERSION}:") else ""
        if ref.kind == "lines" and ref.end - ref.start < MAX_WINDOW:
            size = ref.end - ref.start + 1
            if not stored:
                return Citation.CHANGED if ref.end > len(source.lines) else Citation.UNCHECKED
            if source.window(ref.start, ref.end) == stored or source.has_window(size, stored):
                return Citation.SAME
            return Citation.CHANGED
        if ref.kind == "symbol":
            block = _symbol_block(source, ref.symbol)
            if block is None:
                return Citation.CHANGED
            if not stored:
                return Citation.UNCHECKED
            return Citation.SAME if source.window(*block) == stored else Citation.CHANGED
        if not stored:
            return Citation.UNCHECKED
        return Citation.SAME if source.whole() == stored else Citation.CHANGED

    def _commit_exists(self, sha: str) -> bool:
        if self.root is None:
            return False
        if sha not in self._commits:
            from kenning.gitinfo import resolve

            self._commits[sha] = bool(resolve(self.root, sha))
        return self._commits[sha]

    def prefetch_commits(self, shas: Iterable[str]) -> None:
        """Ask git about many commits in one subprocess (`cat-file --batch-check`)."""
        wanted = [s for s in {*shas} if s not in self._commits]
        if not wanted or self.root is None:
            return
        import subprocess

        from kenning.gitinfo import _env

        try:
            done = subprocess.run(
                ["git", "cat-file", "--batch-check"],
                cwd=self.root,
                env=_env(),
                check=False,
                input="".join(f"{s}^{{commit}}\n" for s in wanted),
                capture_output=True,
                text=True,
                timeout=30,
            )
        except (OSError, subprocess.SubprocessError):
            return
        for sha, line in zip(wanted, done.stdout.splitlines(), strict=False):
            self._commits[sha] = line.endswith(" commit") or " commit " in line


def fingerprint(root: Path, source_ref: str) -> str:
    """``source_hash`` for a citation written now under project ``root`` ("" when none)."""
    try:
        return Checker(root).fingerprint(source_ref)
    except OSError:
        return ""


def check(root: Path | None, source_ref: str, source_hash: str) -> Citation:
    """The citation's state now. Never raises; an unreadable file reads as unchecked."""
    try:
        return Checker(root).check(source_ref, source_hash)
    except OSError:
        return Citation.UNCHECKED


@dataclass(frozen=True)
class SweepResult:
    scope: str
    checked: int
    changed: dict[str, Citation]  # ref -> its new state, only where the state moved
    not_judged: bool  # the project folder is not on this machine


def check_all(core: Core, scope: str | None = None) -> list[SweepResult]:
    """Read every active cited memory of ``scope`` (default: every scope of the workspace)
    and store each citation state that moved. Each file is read once per scope."""
    from kenning.model import MemoryEvent, Status
    from kenning.store.protocol import MemoryFilter

    store = core.store
    rows = {row.key: row for row in store.list_scopes(core.workspace)}
    keys = [scope] if scope else sorted(rows)
    results = []
    for key in keys:
        row = rows.get(key)
        root = Path(row.root) if row is not None and row.root else None
        checker = Checker(root)
        cited = store.find(MemoryFilter(core.workspace, [key], statuses=(Status.ACTIVE,), source_ref_like="_%"))
        checker.prefetch_commits(p.commit for p in map(parse_ref, (m.source_ref for m in cited)) if p.commit)
        moved: dict[str, Citation] = {}
        now = core.now()
        with store.transaction():
            for memory in cited:
                try:
                    state = checker.check(memory.source_ref, memory.source_hash)
                except OSError:
                    state = Citation.UNCHECKED
                if state is not memory.citation:
                    store.update(memory.evolve(citation=state))
                    store.add_event(memory.workspace, MemoryEvent(memory.ref, now, "citation", state.value))
                    moved[memory.ref] = state
        results.append(SweepResult(key, len(cited), moved, checker.root is None))
    return results


def read_now(store: MemoryStore, memories: Sequence[Memory], now: datetime, *, persist: bool = True) -> list[Memory]:
    """The memories with their citations as they are now, for the few about to be given out
    (recall's hits, a card's memories): each cited file is read once and the cited lines
    hashed. A state that moved is stored (unless ``persist`` is off), with an event, as the
    sweep would; a citation that cannot be judged here (its project folder is not on this
    machine) keeps its last state."""
    from kenning.model import MemoryEvent

    checkers: dict[str, Checker] = {}
    out = []
    for memory in memories:
        if not memory.source_ref.strip():
            out.append(memory)
            continue
        checker = checkers.get(memory.scope)
        if checker is None:
            row = store.get_scope(memory.workspace, memory.scope)
            checker = checkers[memory.scope] = Checker(Path(row.root) if row is not None and row.root else None)
        try:
            state = checker.check(memory.source_ref, memory.source_hash)
        except OSError:
            state = Citation.UNCHECKED
        if state is not memory.citation and state is not Citation.UNCHECKED:
            memory = memory.evolve(citation=state)
            if persist:
                store.update(memory)
                store.add_event(memory.workspace, MemoryEvent(memory.ref, now, "citation", state.value))
        out.append(memory)
    return out


def fresh_reading(root: Path | None, source_ref: str) -> tuple[str, Citation]:
    """``(source_hash, citation)`` for a memory written or restated now: a fresh reading, so a
    restated claim is ``same`` again (or ``gone``/``unchecked`` when there is nothing to read)."""
    if root is None or not source_ref.strip():
        return "", Citation.UNCHECKED
    checker = Checker(root)
    digest = checker.fingerprint(source_ref)
    return digest, checker.check(source_ref, digest)
