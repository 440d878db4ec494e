"""Facts about a session kept as files beside the store, not in it.

A tool call that matches no lesson must not open the database (the budget is 50 ms and
opening the store alone can cost more on a busy machine), yet two of its facts matter later:
this session changed files, and this session called ``recall``. The hook records each as an
empty file ``hook-state/<tool>.<session id>.<flag>``; whoever needs the fact later (the end-of-
turn ask, the memory report) reads the marker, and the hooks that do open the database fold
it into the session's row.

A call to one of kenning's own MCP tools that hands out memory (``recall``, ``memory_index``)
is also written as one line of ``hook-state/calls.log`` (time, session, tool, and a checksum of
the query: no words). The MCP server, which is never told which session calls it, finds the
line of the call it is answering and records what it handed out against that session, for the
memory report (:func:`log_call`, :func:`find_call`).

Standard library only: this module is on the tool-call fast path.
"""

from __future__ import annotations

import os
import zlib

FOLDER = "hook-state"
CHANGED_FILES = "edit"
RECALLED = "recall"
FLAGS = (CHANGED_FILES, RECALLED)
# Markers of sessions nobody touched for this long are removed by the background refresh.
KEEP_SECONDS = 30 * 24 * 3600
CALLS = "calls.log"
CALLS_KEEP_BYTES = 256 * 1024  # the background refresh keeps the calls log's newest half past this
CALLS_READ_BYTES = 64 * 1024  # how far back the MCP server looks for the call it answers
CALL_WINDOW = 120.0  # seconds between the hook's line and the server's answer, at most


def folder(home: str) -> str:
    return os.path.join(home, FOLDER)


def path(home: str, tool: str, session_id: str, flag: str) -> str:
    """The marker's file: tool and session id cut to characters safe in any file name."""
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "_.-") else "_" for c in f"{tool}.{session_id}")[:180]
    return os.path.join(home, FOLDER, f"{safe}.{flag}")


def ensure_folder(home: str) -> str:
    """The marker folder, created readable by its owner only."""
    where = folder(home)
    if not os.path.isdir(where):
        os.makedirs(where, mode=0o700, exist_ok=True)
        os.chmod(where, 0o700)  # makedirs' mode is filtered by the umask
    return where


def mark(home: str, tool: str, session_id: str, flag: str) -> bool:
    """Record the fact; True when it was new. Never raises: a marker that cannot be written
    only costs the end-of-turn ask its knowledge of this call."""
    target = path(home, tool, session_id, flag)
    if os.path.exists(target):
        return False
    try:
        ensure_folder(home)
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o600))
    except OSError:
        return False
    return True


def has(home: str, tool: str, session_id: str, flag: str) -> bool:
    return os.path.exists(path(home, tool, session_id, flag))


def call_key(text: str) -> str:
    """A checksum of what a call asked (its query), so the log holds no words."""
    return f"{zlib.crc32(' '.join(text.split()).encode('utf-8', 'replace')):08x}"


def log_call(home: str, tool: str, session_id: str, what: str, asked: str, at: str) -> bool:
    """Append one line for a call of kenning's MCP tool ``what`` (recall, index) in this session;
    False when it could not be written (the report then cannot tie that call to the session)."""
    line = f"{at}\t{tool}:{session_id}\t{what}\t{call_key(asked)}\n".encode("utf-8", "replace")
    try:
        ensure_folder(home)
        fd = os.open(os.path.join(home, FOLDER, CALLS), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError:
        return False
    return True


def find_call(home: str, what: str, asked: str, at: float, window: float = CALL_WINDOW) -> str:
    """The session ("<tool>:<id>") whose hook logged a ``what`` call asking ``asked`` closest
    before ``at`` (within ``window`` seconds, or a few seconds after: clocks of two processes);
    "" when none did."""
    from kenning import isotime

    try:
        with open(os.path.join(home, FOLDER, CALLS), "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - CALLS_READ_BYTES))
            tail = fh.read().decode("utf-8", "replace")
    except OSError:
        return ""
    key = call_key(asked)
    for line in reversed(tail.splitlines()):
        parts = line.split("\t")
        if len(parts) != 4 or parts[2] != what or parts[3] != key:
            continue
        try:
            when = isotime.parse(parts[0])
        except ValueError:
            continue
        if at - window <= when <= at + 5:
            return parts[1]
    return ""


def prune_calls(home: str, keep_bytes: int = CALLS_KEEP_BYTES) -> bool:
    """Keep the calls log's newest half once it passes ``keep_bytes``; True when it was cut."""
    where = os.path.join(home, FOLDER, CALLS)
    try:
        if os.path.getsize(where) <= keep_bytes:
            return False
        with open(where, "rb") as fh:
            fh.seek(-(keep_bytes // 2), os.SEEK_END)
            kept = fh.read()
        kept = kept[kept.find(b"\n") + 1 :]
        tmp = f"{where}.{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, kept)
        finally:
            os.close(fd)
        os.replace(tmp, where)
    except OSError:
        return False
    return True


def prune(home: str, now: float, keep_seconds: float = KEEP_SECONDS) -> int:
    """Remove session markers older than ``keep_seconds``; returns how many went."""
    removed = 0
    try:
        entries = list(os.scandir(folder(home)))
    except OSError:
        return 0
    for entry in entries:
        if not entry.name.endswith(tuple(f".{f}" for f in FLAGS)):
            continue
        try:
            if now - entry.stat().st_mtime > keep_seconds:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue
    return removed
