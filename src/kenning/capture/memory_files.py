"""Import the agents' own memory files, read-only: one file is one memory citing the file.

Claude Code keeps ``<config>/projects/<project>/memory/*.md`` (MEMORY.md is only its index),
Codex ``$CODEX_HOME/memories/*.md`` and Gemini CLI ``~/.gemini/GEMINI.md`` (where its
save_memory tool appends). A changed file replaces its memory; a deleted file retires it.
Claude's files belong to the project of the sessions beside them; the others are global.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from kenning.capture.sources import claude_code, codex, gemini
from kenning.capture.sources.jsonl import iter_records
from kenning.clock import Clock, to_iso
from kenning.config import Settings
from kenning.errors import KenningError
from kenning.model import Origin
from kenning.redacted import Redacted, head
from kenning.store.sqlite.capture_store import CaptureStore
from kenning.store.sqlite.db import Database

MAX_BYTES = 64 * 1024
MAX_HEADLINE = 300
MAX_REASON = 8000


@dataclass(frozen=True)
class MemoryFile:
    path: Path
    tool: str
    cwd: str  # "" = global


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


def discover(home: Path, env: Mapping[str, str] | None = None) -> list[MemoryFile]:
    found: list[MemoryFile] = []
    for config in claude_code.config_dirs(home, env):
        for mem_dir in sorted((config / "projects").glob("*/memory")):
            files = [f for f in sorted(mem_dir.glob("*.md")) if f.name != "MEMORY.md"]
            if files:
                cwd = _cwd_of_project(mem_dir.parent)
                found += [MemoryFile(f, claude_code.TOOL, cwd) for f in files]
    found += [MemoryFile(f, codex.TOOL, "") for f in sorted((codex.codex_home(home, env) / "memories").glob("*.md"))]
    gemini_md = gemini.gemini_home(home, env) / "GEMINI.md"
    if gemini_md.is_file():
        found.append(MemoryFile(gemini_md, gemini.TOOL, ""))
    return found


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


def import_memory_files(db: Database, settings: Settings, home: Path, clock: Clock,
                        env: Mapping[str, str] | None = None) -> dict[str, int]:
    from kenning.core.remember import RememberRequest
    from kenning.core.service import Core

    core = Core.over(db, settings, clock)
    store = CaptureStore(db)
    known = store.memory_files(settings.workspace)
    counts = {"added": 0, "replaced": 0, "retired": 0, "unchanged": 0, "refused": 0}
    seen: set[str] = set()
    for mf in discover(home, env):
        key = str(mf.path)
        seen.add(key)
        try:
            raw = mf.path.read_bytes()[:MAX_BYTES]
        except OSError:
            continue
        digest = hashlib.sha256(raw).hexdigest()
        old = known.get(key)
        if old is not None and old[1] == digest:
            counts["unchanged"] += 1
            continue
        headline, body = split_memory_file(raw.decode("utf-8", "replace"))
        if not headline:
            continue
        place = core.place(mf.cwd) if mf.cwd and Path(mf.cwd).exists() else core.place(None)
        request = RememberRequest(
            text=headline, reason=body, origin=Origin.AUTOMATION, source=mf.tool, source_ref=key,
            replaces=(old[0],) if old else (), global_=not mf.cwd, title=mf.path.stem,
        )
        try:
            result = core.remember(place, request)
        except KenningError:
            counts["refused"] += 1
            continue
        if result.memory is None:
            counts["refused"] += 1
            continue
        store.set_memory_file(settings.workspace, key, result.memory.ref, digest, to_iso(clock.now()))
        counts["replaced" if old else "added"] += 1
    for key, (ref, _digest) in known.items():
        if key in seen:
            continue
        with contextlib.suppress(KenningError):  # already retired by hand
            core.retire(ref, why=f"its file {key} was deleted")
        store.drop_memory_file(key)
        counts["retired"] += 1
    return counts
