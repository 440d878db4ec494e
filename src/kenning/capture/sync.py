"""Sync every agent's transcripts into the store: incremental, crash-safe, redacted first.

Each file has a ledger entry (offset, size, mtime, a hash of its first bytes, and the parse
context). A read starts at the offset unless the file changed under it (shorter than the offset,
or different first bytes): then it is read again from the start and its turns replaced. A
file's new turns and its ledger advance are written in ONE transaction, so a kill at any point
loses nothing and duplicates nothing (turns are also unique per session and uid).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from kenning.capture import chunk as chunking
from kenning.capture.classify import RULES_VERSION, classify
from kenning.capture.events import CALL_SUMMARY_LIMIT, TOOL_TEXT_LIMIT, Event, ReadResult, SourceFile
from kenning.capture.sources import claude_code, codex, gemini, opencode
from kenning.clock import Clock, to_iso
from kenning.config import Settings
from kenning.redacted import EMPTY, Redacted, clip, counted, head
from kenning.store.protocol import CapturedSession, CaptureStore, ChunkRow, LedgerEntry, MemoryStore, TurnRow

SOURCES: dict[str, ModuleType] = {
    claude_code.TOOL: claude_code, codex.TOOL: codex, gemini.TOOL: gemini, opencode.TOOL: opencode,
}
HEAD_BYTES = 4096
TOOL_INDEX_CHARS = 500
SWEEP_BATCH = 2000
SWEEP_MAX = 50_000  # chunks reclassified per sync at most; the rest on the next one

Progress = Callable[[int, int, str], None]  # (bytes done, bytes total, current file)


@dataclass
class SyncSummary:
    files: int = 0
    files_read: int = 0
    files_rewritten: int = 0
    turns_added: int = 0
    sessions: int = 0
    bytes_read: int = 0
    skipped_lines: int = 0
    secrets_redacted: int = 0
    capture_off_turns: int = 0
    reclassified: int = 0
    facts_added: int = 0
    memory_files: dict[str, int] = field(default_factory=dict)
    forgotten_turns: int = 0  # turns of sessions forgotten here, left out
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def discover(home: Path, env: Mapping[str, str] | None = None) -> list[SourceFile]:
    found: list[SourceFile] = []
    for module in SOURCES.values():
        found += module.discover(home, env)
    return found


def _head_hash(path: Path, length: int) -> str:
    with path.open("rb") as fh:
        head = fh.read(min(length, HEAD_BYTES))
    return f"{len(head)}:{hashlib.sha1(head).hexdigest()}"


def _same_head(path: Path, recorded: str) -> bool:
    if not recorded:
        return True
    length = int(recorded.split(":", 1)[0])
    return _head_hash(path, length) == recorded


class Projects:
    """Project and capture switch per working folder, looked up once per sync. ``captured``
    says whether a project's sessions are captured (the project's policy, which the core
    resolves: capture sits under the core and is handed the answer)."""

    def __init__(self, memories: MemoryStore, workspace: str, captured: Callable[[str], bool]) -> None:
        self.memories = memories
        self.workspace = workspace
        self.captured = captured
        self._cache: dict[str, tuple[str, str, bool]] = {}
        # Sessions forgotten here (kenning forget --session): their turns are never captured again.
        self.forgotten = frozenset(t.key for t in memories.tombstones(workspace) if t.kind == "session")

    def of(self, cwd: str) -> tuple[str, str, bool]:
        if cwd not in self._cache:
            from kenning.gitinfo import project_for

            if not cwd:
                key, name = "personal", "personal"
            else:
                info = project_for(Path(cwd))
                key, name = info.key, info.name
                if info.kind == "personal" and not Path(cwd).exists():
                    # A folder gone from this machine still names the project its sessions were in.
                    key, name = f"path:{cwd}", Path(cwd).name
            self._cache[cwd] = (key, name, self.captured(key))
        return self._cache[cwd]


def turn_text(ev: Event) -> tuple[Redacted, int]:
    """What capture keeps of an event's text, redacted (and how many secrets it masked). A
    tool's output is kept to its first :data:`TOOL_TEXT_LIMIT` characters, cut after redaction."""
    return counted(ev.text, TOOL_TEXT_LIMIT if ev.role == "tool" else None)


def chunk_rows(role: str, text: Redacted, previous: Redacted) -> list[ChunkRow]:
    """The indexed chunks of one redacted turn; ``previous`` is the session's last turn of talk
    before it (its end is kept beside each chunk). Capture and the team sync's pull both use it."""
    if role == "tool":
        # Tool output is kept whole on the turn but only its head is indexed: it matches many
        # words yet rarely holds the answer, and indexing all of it halves capture speed.
        indexed = clip(text, TOOL_INDEX_CHARS)
        return [ChunkRow(0, role, indexed, EMPTY, "general", 0, 0.0, RULES_VERSION)] if indexed.strip() else []
    context = chunking.context_of(previous)
    chunks = []
    for part, body in enumerate(chunking.windows(text)):
        c = classify(body)
        chunks.append(ChunkRow(part, role, body, context, c.type, c.importance, c.confidence, RULES_VERSION))
    return chunks


def _rows(events: list[Event], projects: Projects, settings: Settings, summary: SyncSummary,
          previous: dict[str, Redacted]) -> tuple[list[CapturedSession], list[TurnRow]]:
    # Per session, the newest event's details and the earliest time; rows are built once at the end.
    sessions: dict[str, tuple[str, tuple[str, ...]]] = {}
    first: dict[str, str] = {}
    turns: list[TurnRow] = []
    # A title line comes before any line that names the folder: borrow the session's folder.
    folder: dict[str, str] = {}
    for ev in events:
        if ev.cwd:
            folder.setdefault(ev.session, ev.cwd)
    for ev in events:
        if ev.session in projects.forgotten:
            summary.forgotten_turns += 1
            continue
        cwd = ev.cwd or folder.get(ev.session, "")
        if cwd:
            project, name, enabled = projects.of(cwd)
        else:
            project, name, enabled = "", "", projects.of("")[2]
        if not enabled:
            summary.capture_off_turns += 1
            continue
        text, found = turn_text(ev)
        summary.secrets_redacted += found
        if ev.session not in sessions or (ev.time and ev.time > sessions[ev.session][0]):
            sessions[ev.session] = (ev.time, (ev.session, ev.tool, project, name, cwd, ev.branch, ev.time))
        if ev.time and (ev.session not in first or ev.time < first[ev.session]):
            first[ev.session] = ev.time
        chunks = chunk_rows(ev.role, text, previous.get(ev.session, EMPTY))
        if text.strip() and ev.role != "tool":
            previous[ev.session] = text
        calls = [{"name": c.name, "input": head(c.summary, CALL_SUMMARY_LIMIT), **({"refs": " ".join(c.refs)} if c.refs else {})}
                 for c in ev.tool_calls]  # fmt: skip
        turns.append(TurnRow(ev.session, ev.uid, ev.role, text, ev.time, calls, list(ev.files), ev.subagent,
                             project, ev.tool, chunks))
    rows = [CapturedSession(sid, tool, project, name, cwd, branch, first.get(sid, last), last)
            for _at, (sid, tool, project, name, cwd, branch, last) in sessions.values()]  # fmt: skip
    return rows, turns


def sync_file(store: CaptureStore, source: SourceFile, settings: Settings, clock: Clock, projects: Projects,
              summary: SyncSummary, progress: Callable[[int], None] | None = None) -> None:
    module = SOURCES[source.tool]
    ws = settings.workspace
    entry = store.ledger(ws, source.ledger_key)
    previous: dict[str, Redacted] = {}
    if source.mode == "whole":
        fingerprint = (opencode.fingerprint(source) if source.tool == opencode.TOOL
                       else f"{source.path.stat().st_size}:{source.path.stat().st_mtime_ns}")
        if entry is not None and entry.fingerprint == fingerprint:
            return
        result: ReadResult = module.read(source, 0, {})
        sessions, turns = _rows(result.events, projects, settings, summary, previous)
        size = source.path.stat().st_size
        new = LedgerEntry(source.ledger_key, source.tool, size, size, 0, "", fingerprint, result.context)
        summary.turns_added += store.commit_file(ws, new, sessions, turns, replace=True, now=to_iso(clock.now()))
        summary.files_read += 1
        summary.bytes_read += size
        if progress:
            progress(size)
        return
    stat = source.path.stat()
    offset, context, replace = 0, {}, False
    if entry is not None:
        if entry.size == stat.st_size and entry.mtime_ns == stat.st_mtime_ns and entry.offset == stat.st_size:
            return
        if stat.st_size < entry.offset or not _same_head(source.path, entry.head_hash):
            # Truncated or rewritten under us: read it again and replace what it gave before.
            summary.files_rewritten += 1
            replace = True
        else:
            offset, context = entry.offset, dict(entry.context)
    summary.files_read += 1
    while True:
        result = module.read(source, offset, context)
        if result.offset == offset and not replace:
            break
        sessions, turns = _rows(result.events, projects, settings, summary, previous)
        summary.skipped_lines += result.skipped_lines
        head = _head_hash(source.path, result.offset)
        new = LedgerEntry(source.ledger_key, source.tool, result.offset, stat.st_size if result.offset >= stat.st_size
                          else result.offset, stat.st_mtime_ns, head, "", result.context)
        summary.turns_added += store.commit_file(ws, new, sessions, turns, replace=replace, now=to_iso(clock.now()))
        summary.bytes_read += result.offset - offset
        if progress:
            progress(result.offset - offset)
        replace = False
        if result.offset == offset:
            break
        offset, context = result.offset, result.context


def reclassify_sweep(store: CaptureStore, workspace: str, limit: int = SWEEP_MAX) -> int:
    """Classify again, in batches, chunks stamped with an older rules version."""
    done, after = 0, 0
    while done < limit:
        batch = store.chunks_to_reclassify(workspace, RULES_VERSION, after, SWEEP_BATCH)
        if not batch:
            break
        rows = []
        for cid, body in batch:
            c = classify(body)
            rows.append((cid, c.type, c.importance, c.confidence, RULES_VERSION))
        store.set_classes(workspace, rows)
        done += len(batch)
        after = batch[-1][0]
    return done


ENV_KEYS = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME")
SAMPLES = Path(__file__).parent / "samples"


def watch_roots(home: Path, env: Mapping[str, str] | None = None) -> list[Path]:
    """Folders whose changes mean a transcript grew."""
    roots = [c / "projects" for c in claude_code.config_dirs(home, env)]
    roots.append(codex.codex_home(home, env) / "sessions")
    roots.append(gemini.gemini_home(home, env) / "tmp")
    roots.append(opencode.db_path(home, env).parent)
    return roots


def sample_env() -> dict[str, str]:
    """Tool homes pointing at the bundled sample sessions (for a first run with none of its own)."""
    return {"CLAUDE_CONFIG_DIR": str(SAMPLES / "claude"), "CODEX_HOME": str(SAMPLES / "codex"),
            "GEMINI_CLI_HOME": str(SAMPLES / "none"), "XDG_DATA_HOME": str(SAMPLES / "none")}
