"""How a memory reads when handed out, as one line: the one definition, used by
:func:`kenning.core.render.memory_line` and by the hook that hands lessons out before a call
(which cannot afford to import the memory model). Words anyone but the person wrote are
quoted as data (:mod:`kenning.quoting`), a widget's with its label; never obeyed.

The standard library only.
"""

from __future__ import annotations

from kenning.quoting import by_origin, neutral

LINE_LIMIT = 220


def clip(text: str, limit: int) -> str:
    """Plain (already neutral) text cut to ``limit``; quote it after cutting, never before."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def quote(text: str, origin: str) -> str:
    """Text as it may be handed to an agent, by who wrote it (see kenning.quoting.by_origin)."""
    return by_origin(text, origin)


def line(ref: str, kind: str, text: str, *, reason: str = "", source_ref: str = "", origin: str = "agent",
         limit: int = LINE_LIMIT, marks: list[str] | None = None) -> str:  # fmt: skip
    """``m:1234abcd [kind] «text» (why: «reason») — cites path · marks``, at most ``limit``
    characters: the words are cut inside their quotes, so a quote always closes."""
    head = f"{ref} [{neutral(kind)}] "
    tail = ""
    if source_ref:
        tail += f" — cites {clip(neutral(source_ref), 120)}"
    if marks:
        tail += " · " + " · ".join(marks)
    room = max(40, limit - len(head) - len(tail))
    wrapper = len(by_origin("", origin))  # the quote marks (and a widget's label) take room too
    body = by_origin(clip(neutral(text), max(12, room - wrapper)), origin)
    if reason and origin != "widget":
        left = room - len(body) - len(" (why: )") - wrapper
        if left >= 12:
            body = f"{body} (why: {by_origin(clip(neutral(reason), left), origin)})"
    return head + body + tail
