"""Facts about a session kept as empty marker files beside the store, not in it.

A tool call that matches no lesson must not open the database (the budget is 50 ms and
opening the store alone can cost more on a busy machine), yet two of its facts matter later:
this session changed files, and this session called ``recall``. The hook records each as an
empty file ``hook-state/<tool>.<session id>.<flag>``; whoever needs the fact later (the end-of-
turn ask, the memory report) reads the marker, and the hooks that do open the database fold
it into the session's row.

Standard library only: this module is on the tool-call fast path.
"""

from __future__ import annotations

import os

FOLDER = "hook-state"
CHANGED_FILES = "edit"
RECALLED = "recall"
FLAGS = (CHANGED_FILES, RECALLED)
# Markers of sessions nobody touched for this long are removed by the background refresh.
KEEP_SECONDS = 30 * 24 * 3600


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
