"""``hook-runs.log``: one line per hook run (time, hook, tool, milliseconds), tab-separated, and
``hook-errors.log`` for a hook that failed on its own fault (it still exits 0, silently)."""

from __future__ import annotations

import os

RUNS = "hook-runs.log"
ERRORS = "hook-errors.log"


def _append(path: str, line: str) -> None:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        # O_APPEND: concurrent hooks each add whole lines.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except OSError:
        pass  # a log that cannot be written must never fail the hook


def run(home: str, when: str, hook: str, tool: str, ms: float) -> None:
    _append(os.path.join(home, RUNS), f"{when}\t{hook or '-'}\t{tool or '-'}\t{ms:.1f}\n")


def error(home: str, when: str, hook: str, tool: str, exc: BaseException | str) -> None:
    if isinstance(exc, BaseException):
        import traceback

        detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).strip()
    else:
        detail = exc
    detail = detail.replace("\n", "\n    ")
    _append(os.path.join(home, ERRORS), f"{when}\t{hook or '-'}\t{tool or '-'}\t{detail}\n")
