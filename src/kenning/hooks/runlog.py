"""``hook-runs.log``: one line per hook run (time, hook, tool, milliseconds), tab-separated, and
``hook-errors.log`` for a hook that failed on its own fault (it still exits 0, silently).

Nothing a session wrote reaches these files raw: a hook or tool name is written only when it
is one kenning knows (anything else reads ``other``), and an error's message and traceback
are redacted first (a failing write may carry the prompt it was writing in its message).
"""

from __future__ import annotations

import os

from kenning.hooks.events import ALIASES, KINDS, TOOLS

# Hook names that are not agent events: the start-of-session refresh, and argv given by hand.
_OWN = frozenset({"refresh", "kenning", "-"})
_KNOWN = frozenset(KINDS) | frozenset(TOOLS) | frozenset(ALIASES) | _OWN


def _name(value: str) -> str:
    if not value:
        return "-"
    return value if value in _KNOWN else "other"

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
    _append(os.path.join(home, RUNS), f"{when}\t{_name(hook)}\t{_name(tool)}\t{ms:.1f}\n")


def error(home: str, when: str, hook: str, tool: str, exc: BaseException | str) -> None:
    if isinstance(exc, BaseException):
        import traceback

        detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).strip()
    else:
        detail = exc
    try:
        from kenning.redacted import redacted

        detail = redacted(detail)
    except Exception:  # the redactor itself failed: keep the error's kind, drop its words
        detail = type(exc).__name__ if isinstance(exc, BaseException) else "error (message withheld)"
    detail = detail.replace("\n", "\n    ")
    _append(os.path.join(home, ERRORS), f"{when}\t{_name(hook)}\t{_name(tool)}\t{detail}\n")
