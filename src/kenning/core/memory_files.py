"""Import, read-only, what agents and their people keep in files.

Two kinds of file:

- **Agents' memory files**, one file one memory citing the file: Claude Code's
  ``<config>/projects/<project>/memory/*.md`` (MEMORY.md is only its index) and Codex's
  ``$CODEX_HOME/memories/*.md``. A changed file replaces its memory; a deleted file retires it.
- **Instruction files** people write for their agents, one memory per rule
  (:mod:`kenning.capture.instructions`): ``CLAUDE.md`` (also ``.claude/CLAUDE.md`` and
  ``CLAUDE.local.md``), ``AGENTS.md`` and ``GEMINI.md`` at the root of each project kenning
  knows, and the global ``~/.claude/CLAUDE.md``, ``~/.codex/AGENTS.md`` and
  ``~/.gemini/GEMINI.md`` (where Gemini CLI's save_memory appends bullets under "Gemini Added
  Memories"). Each rule cites its lines. On a re-import an unchanged rule keeps its memory, a
  new rule is added, and a rule gone from the file is retired.

Every import is written as the ``memory-files`` writer (origin automation, origin_tool
``<tool>-memory-file``), so a project's policy can turn it off.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from kenning.capture.instructions import rules_of, tag_of
from kenning.capture.sources import claude_code, codex, gemini
from kenning.capture.sources.jsonl import iter_records
from kenning.clock import to_iso
from kenning.core.policy import MEMORY_FILE_TOOL_SUFFIX
from kenning.core.portable import text_digest
from kenning.core.service import Core
from kenning.errors import KenningError
from kenning.model import Origin
from kenning.redacted import Redacted, head

MAX_BYTES = 64 * 1024
MAX_HEADLINE = 300
MAX_REASON = 8000
# Instruction files at a project root, and which tool reads each.
PROJECT_FILES = (("CLAUDE.md", claude_code.TOOL), (".claude/CLAUDE.md", claude_code.TOOL),
                 ("CLAUDE.local.md", claude_code.TOOL), ("AGENTS.md", codex.TOOL), ("GEMINI.md", gemini.TOOL))  # fmt: skip
RULE_KEY = "#rule:"  # capture_memory_files key of one rule: "<file>#rule:<hash of its text>"


@dataclass(frozen=True)
class MemoryFile:
    path: Path
    tool: str
    cwd: str  # "" = global
    rules: bool = False  # an instruction file: one memory per rule
    root: str = ""  # the project root a rule's citation is relative to


def _cwd_of_project(project_dir: Path) -> str:
    """The working folder of a Claude project folder, read from one of its transcripts (the
    folder name is a lossy encoding of it)."""
    for transcript in sorted(project_dir.glob("*.jsonl"))[:3]:
        try:
            records, _, _ = iter_records(transcript, 0, limit=256 * 1024)
        except OSError:
            continue
        for _at, rec in records:
            if isinstance(rec.get("cwd"), str):
                return str(rec["cwd"])
    return ""


def discover(home: Path, env: Mapping[str, str] | None = None, roots: list[Path] | tuple[Path, ...] = ()) -> list[MemoryFile]:
    """Every memory and instruction file: the agents' own under ``home``, and the instruction
    files at each project root in ``roots``. A file reached twice (a symlink) is read once."""
    found: list[MemoryFile] = []
    configs = claude_code.config_dirs(home, env)
    for config in configs:
        for mem_dir in sorted((config / "projects").glob("*/memory")):
            files = [f for f in sorted(mem_dir.glob("*.md")) if f.name != "MEMORY.md"]
            if files:
                cwd = _cwd_of_project(mem_dir.parent)
                found += [MemoryFile(f, claude_code.TOOL, cwd) for f in files]
    found += [MemoryFile(f, codex.TOOL, "") for f in sorted((codex.codex_home(home, env) / "memories").glob("*.md"))]
    globals_ = [(c / "CLAUDE.md", claude_code.TOOL) for c in configs]
    globals_ += [(codex.codex_home(home, env) / "AGENTS.md", codex.TOOL), (gemini.gemini_home(home, env) / "GEMINI.md", gemini.TOOL)]
    found += [MemoryFile(path, tool, "", rules=True) for path, tool in globals_ if path.is_file()]
    for root in roots:
        for name, tool in PROJECT_FILES:
            if (root / name).is_file():
                found.append(MemoryFile(root / name, tool, str(root), rules=True, root=str(root)))
    seen: set[Path] = set()
    unique = []
    for mf in found:
        real = mf.path.resolve()
        if real not in seen:
            seen.add(real)
            unique.append(mf)
    return unique


def split_memory_file(text: str) -> tuple[Redacted, Redacted]:
    """(one-line memory, the rest as its reason). Claude's files open with YAML front matter
    whose ``description`` is the line; otherwise the first non-empty line is."""
    text = text.strip()
    description = ""
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end > 0:
            for line in text[3:end].splitlines():
                if line.strip().startswith("description:"):
                    description = line.split(":", 1)[1].strip().strip("\"'")
            text = text[end + 4:].strip()
    lines = [ln.strip().lstrip("#").strip() for ln in text.splitlines() if ln.strip()]
    headline = description or (lines[0] if lines else "")
    # Redacted before the cut: a token cut in two would no longer be recognised.
    return head(headline, MAX_HEADLINE), head(text, MAX_REASON)


def _project_roots(core: Core) -> list[Path]:
    """Roots on this machine of the projects kenning knows (from memory and from captured
    sessions), where instruction files may be."""
    from kenning.gitinfo import project_for

    roots = {Path(r.root) for r in core.store.list_scopes(core.workspace) if r.kind == "project" and r.root}
    for cwd in core.stores.capture.session_folders(core.workspace):
        info = project_for(cwd) if Path(cwd).is_dir() else None
        if info is not None and info.root is not None:
            roots.add(info.root)
    return sorted(r for r in roots if r.is_dir())


class _Importer:
    def __init__(self, core: Core) -> None:
        self.core = core
        self.store = core.stores.capture
        self.workspace = core.workspace
        self.now = to_iso(core.now())
        self.known = self.store.memory_files(self.workspace)
        self.seen: set[str] = set()
        self.counts = {"added": 0, "replaced": 0, "retired": 0, "unchanged": 0, "refused": 0, "forgotten": 0}
        # Hashes of forgotten memories' text: a file's rule with one is never imported again.
        self.forgotten = frozenset(t.digest for t in core.store.tombstones(self.workspace)
                                   if t.kind == "memory" and t.digest)  # fmt: skip

    def _remember(self, mf: MemoryFile, **fields: object) -> str:
        """The ref of the memory-file memory written (or strengthened); "" when refused, or
        when the text strengthened a memory someone else wrote (never retired from here)."""
        from kenning.core.remember import RememberRequest

        place = self.core.place(mf.cwd) if mf.cwd and Path(mf.cwd).exists() else self.core.place(None)
        request = RememberRequest(origin=Origin.AUTOMATION, source=mf.tool + MEMORY_FILE_TOOL_SUFFIX,
                                  global_=not mf.cwd, **fields)  # type: ignore[arg-type]
        try:
            result = self.core.remember(place, request)
        except KenningError:
            self.counts["refused"] += 1
            return ""
        if result.memory is None:
            self.counts["refused"] += 1
            return ""
        return result.memory.ref if result.memory.origin_tool.endswith(MEMORY_FILE_TOOL_SUFFIX) else ""

    def whole_file(self, mf: MemoryFile, raw: bytes, digest: str) -> None:
        key = str(mf.path)
        old = self.known.get(key)
        headline, body = split_memory_file(raw.decode("utf-8", "replace"))
        if not headline:
            return
        if text_digest(headline) in self.forgotten:  # forgotten here: never imported again
            self.counts["forgotten"] += 1
            return
        refused = self.counts["refused"]
        ref = self._remember(mf, text=headline, reason=body, source_ref=key, replaces=(old[0],) if old and old[0] else (),
                             title=mf.path.stem)  # fmt: skip
        if self.counts["refused"] == refused:
            self.store.set_memory_file(self.workspace, key, ref, digest, self.now)
            self.counts["replaced" if old else "added"] += 1

    def instruction_file(self, mf: MemoryFile, raw: bytes, digest: str) -> None:
        key = str(mf.path)
        cited = str(mf.path.relative_to(mf.root)) if mf.root else key
        for rule in rules_of(raw.decode("utf-8", "replace")):
            rule_key = key + RULE_KEY + hashlib.sha1(rule.text.casefold().encode()).hexdigest()[:16]
            if rule_key in self.seen:
                continue  # the same rule twice in one file is one memory
            self.seen.add(rule_key)
            if rule_key in self.known:
                self.counts["unchanged"] += 1
                continue
            if text_digest(rule.text) in self.forgotten:  # forgotten here: never imported again
                self.counts["forgotten"] += 1
                continue
            lines = f"{rule.first_line}" if rule.first_line == rule.last_line else f"{rule.first_line}-{rule.last_line}"
            tag = tag_of(rule.section)
            refused = self.counts["refused"]
            ref = self._remember(mf, text=rule.text, source_ref=f"{cited}:{lines}", tags=(tag,) if tag else ())
            if self.counts["refused"] == refused:
                self.store.set_memory_file(self.workspace, rule_key, ref, digest, self.now)
                self.counts["added"] += 1
        self.store.set_memory_file(self.workspace, key, "", digest, self.now)

    def retire_unseen(self) -> None:
        still = {ref for key, (ref, _d) in self.known.items() if key in self.seen and ref}
        for key, (ref, _digest) in self.known.items():
            if key in self.seen:
                continue
            if ref and ref not in still:  # a rule also kept in another file stays
                with contextlib.suppress(KenningError):  # already retired by hand
                    self.core.retire(ref, why=f"it is no longer in {key.split(RULE_KEY)[0]}")
                self.counts["retired"] += 1
            self.store.drop_memory_file(self.workspace, key)


def import_memory_files(core: Core, home: Path, env: Mapping[str, str] | None = None) -> dict[str, int]:
    """Import every memory and instruction file (see the module doc); returns counts."""
    importer = _Importer(core)
    for mf in discover(home, env, _project_roots(core)):
        key = str(mf.path)
        try:
            raw = mf.path.read_bytes()[:MAX_BYTES]
        except OSError:
            continue
        importer.seen.add(key)
        digest = hashlib.sha256(raw).hexdigest()
        old = importer.known.get(key)
        if old is not None and old[1] == digest:
            if mf.rules:  # its rules stand as they are
                importer.seen.update(k for k in importer.known if k.startswith(key + RULE_KEY))
            importer.counts["unchanged"] += 1
            continue
        if mf.rules:
            importer.instruction_file(mf, raw, digest)
        else:
            importer.whole_file(mf, raw, digest)
    importer.retire_unseen()
    return importer.counts
