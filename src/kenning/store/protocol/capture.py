"""The capture store: captured sessions, their turns and chunks (with a full-text index), the
per-file ledger that makes capture resumable, imported memory files, and capture's small state.

Callers hand it redacted, chunked, classified rows; it only stores and reads them. Every
method names its workspace, and nothing of another workspace is read or written.

``search`` ranks chunks by Okapi BM25 (k1=1.2, b=0.75) over two columns, the chunk's body and
the turn before it (``context``), weighted as the caller says; terms are the words as typed,
stemmed by the store the way its index is (Porter's stemmer over Unicode words, diacritics
folded), so a backend's index and its queries agree. The score is returned as a positive
number; the caller adds its own lifts (recency, importance) in Python.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from kenning.redacted import Redacted


@dataclass(frozen=True)
class LedgerEntry:
    """How far capture read one source file (or one session of a database source)."""

    key: str  # the file's path, or path#session for a database source
    tool: str
    offset: int = 0
    size: int = 0
    mtime_ns: int = 0
    head_hash: str = ""  # hash of the first bytes, to notice a rewritten file
    fingerprint: str = ""
    context: Mapping[str, object] = field(default_factory=dict)  # what the source needs to read on
    turns: int = 0


@dataclass(frozen=True)
class CapturedSession:
    """One session as a batch of newly read turns saw it: the span of their times, and the
    newest turn's folder and branch. Merged into the stored session (the span only widens; a
    project, name or folder once known is kept; a newer branch replaces the older)."""

    id: str  # tool-qualified: claude:<uuid>, codex:<uuid>, ...
    tool: str
    project: str
    project_name: str
    cwd: str
    branch: str
    first_at: str
    last_at: str


@dataclass(frozen=True)
class ChunkRow:
    """A window of a turn, as indexed for search."""

    part: int
    role: str
    body: Redacted
    context: Redacted
    type: str
    importance: int
    confidence: float
    rules_version: int


@dataclass(frozen=True)
class TurnRow:
    """A turn to store, with its chunks."""

    session: str
    uid: str
    role: str
    text: Redacted
    at: str
    tool_calls: list[dict[str, Redacted | str]]
    files: list[str]
    subagent: str
    project: str
    tool: str
    chunks: list[ChunkRow]


@dataclass(frozen=True)
class StoredSession:
    """A captured session as the store keeps it."""

    id: str
    workspace: str
    tool: str
    project: str
    project_name: str
    cwd: str
    branch: str
    title: Redacted  # its first user prompt, cut
    first_at: str
    last_at: str
    turns: int


@dataclass(frozen=True)
class StoredTurn:
    """A stored turn. ``tool_calls`` is each call's name and summary (its input redacted)."""

    id: int
    session: str
    uid: str
    source: str  # the ledger key of the file it came from
    role: str
    text: Redacted
    at: str
    tool_calls: tuple[Mapping[str, str], ...]
    files: tuple[str, ...]
    subagent: str


@dataclass(frozen=True)
class StoredChunk:
    id: int
    session: str
    turn: int
    part: int
    role: str
    body: Redacted
    context: Redacted
    at: str
    project: str
    tool: str
    type: str
    importance: int
    confidence: float
    rules_version: int


@dataclass(frozen=True)
class ChunkFilter:
    """What a session search is limited to ("" = any)."""

    project: str = ""
    tool: str = ""
    type: str = ""
    since: str = ""  # ISO time, inclusive
    until: str = ""  # ISO time, inclusive
    session: str = ""


@dataclass(frozen=True)
class ChunkHit:
    chunk: StoredChunk
    bm25: float  # positive; higher is better
    project_name: str
    title: Redacted


@dataclass(frozen=True)
class CaptureCounts:
    sessions: int
    turns: int
    chunks: int
    text_bytes: int  # UTF-8 bytes of the turns' text


@dataclass(frozen=True)
class SessionHead:
    """A session of a project and its newest turn's id: what extraction compares its progress with."""

    session: str
    newest_turn: int


class CaptureStore(Protocol):
    # ledger and writing
    def ledger(self, workspace: str, key: str) -> LedgerEntry | None: ...
    def commit_file(self, workspace: str, entry: LedgerEntry, sessions: Sequence[CapturedSession],
                    turns: Sequence[TurnRow], *, replace: bool, now: str) -> int:  # fmt: skip
        """Store a file's new turns (those whose (session, uid) is not stored yet) and advance
        its ledger in one transaction: a crash leaves both or neither. ``replace`` first drops
        every turn read from this file before. Returns the number of turns added."""
        ...

    # classification sweep
    def chunks_to_reclassify(self, workspace: str, version: int, after: int, limit: int) -> list[tuple[int, Redacted]]:
        """(id, body) of chunks (not tool output) classified by another rules version, after
        ``after`` in id order."""
        ...

    def set_classes(self, workspace: str, rows: Iterable[tuple[int, str, int, float, int]]) -> None:
        """(chunk id, type, importance, confidence, rules version) for each chunk."""
        ...

    # reading
    def search(self, workspace: str, terms: Sequence[str], flt: ChunkFilter, limit: int,
               weights: tuple[float, float]) -> list[ChunkHit]:  # fmt: skip
        """The ``limit`` chunks holding any of ``terms`` with the best BM25, best first; equal
        scores in the order the chunks were stored (by id), so every backend cuts alike."""
        ...

    def session(self, workspace: str, session_id: str) -> StoredSession | None: ...
    def find_sessions(self, workspace: str, prefix: str, limit: int = 5) -> list[StoredSession]:
        """Sessions whose id, or id after its tool prefix, starts with ``prefix``; newest first."""
        ...

    def newest_session(self, workspace: str, project: str = "", branch: str = "") -> StoredSession | None:
        """The session that ended last (of ``project``, and on ``branch``, when given)."""
        ...

    def sessions(self, workspace: str, project: str = "", limit: int = 50) -> list[StoredSession]:
        """Newest first."""
        ...

    def all_sessions(self, workspace: str) -> list[StoredSession]:
        """Every session, the first started first (ties by id)."""
        ...

    def session_folders(self, workspace: str) -> list[str]:
        """The working folders captured sessions ran in."""
        ...

    def session_heads(self, workspace: str) -> list[SessionHead]:
        """Sessions filed under a project, each with its newest turn's id; oldest ended first."""
        ...

    def turns(self, workspace: str, session_id: str, *, talk_only: bool = False, limit: int = 10_000
              ) -> list[StoredTurn]:  # fmt: skip
        """A session's turns in time order (ties by id). ``talk_only``: the user's and the
        assistant's turns of the main agent (no tool output, no subagent)."""
        ...

    def last_turn(self, workspace: str, session_id: str) -> StoredTurn | None:
        """The turn stored last (highest id): its ``source`` is the transcript read last."""
        ...

    def turn_count(self, workspace: str, session_id: str) -> int: ...
    def important_chunks(self, workspace: str, project: str, types: Sequence[str], *, min_importance: int,
                         limit: int) -> list[StoredChunk]:  # fmt: skip
        """A project's chunks of ``types`` (not tool output) at least this important, newest
        first (by time, then id)."""
        ...

    def chunk(self, workspace: str, chunk_id: int) -> StoredChunk | None: ...
    def counts(self, workspace: str) -> CaptureCounts: ...

    # imported memory files (CLAUDE.md, AGENTS.md, ...)
    def memory_files(self, workspace: str) -> dict[str, tuple[str, str]]:
        """path -> (memory ref, hash of what was imported)."""
        ...

    def set_memory_file(self, workspace: str, path: str, ref: str, digest: str, now: str) -> None: ...
    def drop_memory_file(self, workspace: str, path: str) -> None: ...
    def forget_memory_file_ref(self, workspace: str, ref: str) -> None:
        """A file (or rule) whose memory was forgotten stays known with no memory, so the next
        import leaves it out rather than import it again."""
        ...

    # small state (the classification rules version, ...)
    def get_meta(self, workspace: str, key: str) -> str | None: ...
    def set_meta(self, workspace: str, key: str, value: str) -> None: ...

    # erasure
    def delete_session(self, workspace: str, session_id: str) -> None:
        """A captured session deleted for real: its chunks (and their index entries), turns and row."""
        ...
