"""Files only their owner can read: the data folder is 0700, everything kenning writes in it 0600.

The store holds what agents and people said about private work, the logs what hooks did, the
install backups copies of agent configs that may carry API keys. Modes are set when a file is
made (never left to the umask) and tightened when an older one is found looser; group and
other bits are only ever removed, and only from what the current user owns (a data folder
pointed at a shared place is not taken over). Windows has no such modes: there these calls do
nothing, and the user's profile folder keeps others out.

Standard library only: the hooks import this on every run.
"""

from __future__ import annotations

import contextlib
import os

TYPE_CHECKING = False  # typing and pathlib are not imported on the hook path
if TYPE_CHECKING:
    from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600
_POSIX = os.name == "posix"


def tighten(path: str | Path, mode: int) -> None:
    """Remove every bit of ``path``'s mode that ``mode`` does not allow (when we own it)."""
    if not _POSIX:
        return
    try:
        st = os.stat(path)
        if st.st_uid == os.getuid() and st.st_mode & 0o777 & ~mode:
            os.chmod(path, st.st_mode & 0o777 & mode)
    except OSError:
        pass  # gone, or not ours to change: nothing to tighten


def folder(path: str | Path) -> None:
    """Make ``path`` (and missing parents) a private folder, or tighten it if it exists."""
    # A file where the folder should be raises FileExistsError: the caller names the setting.
    os.makedirs(path, mode=DIR_MODE, exist_ok=True)
    tighten(path, DIR_MODE)


def create(path: str | Path) -> None:
    """Make an empty private file at ``path`` unless one is there (then tighten it)."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    except FileExistsError:
        tighten(path, FILE_MODE)


def open_append(path: str | Path) -> int:
    """A file descriptor appending to ``path``, made private if it is new."""
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE)


def write(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a private temporary file and an atomic rename."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        tighten(tmp, FILE_MODE)  # an old tmp file of the same name kept its mode
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def prepare_file(db_path: Path) -> None:
    """The store's folder and file exist and are private before SQLite opens the file
    (SQLite gives its -wal and -shm files the database file's mode)."""
    folder(db_path.parent)
    create(db_path)


def tighten_store(db_path: Path) -> None:
    """The database and its -wal and -shm files, as older versions left them, made private."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        tighten(f"{db_path}{suffix}", FILE_MODE)
