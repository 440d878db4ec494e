"""Memory refs (``m:`` and 8 hex digits) found in text, without ``re``: hooks use this on
text they hand out, and importing ``re`` costs more than a hook may spend."""

from __future__ import annotations

_HEX = frozenset("0123456789abcdef")


def _word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def refs_in(text: str) -> list[str]:
    """Every ref in ``text``, in order of first appearance, each once; a ref must stand as a
    word of its own (``xm:…`` or ``m:…`` followed by a ninth hex digit is not one)."""
    found: dict[str, None] = {}
    start = text.find("m:")
    while start != -1:
        body = text[start + 2 : start + 10]
        after = text[start + 10 : start + 11]
        before = text[start - 1 : start] if start else ""
        if len(body) == 8 and set(body) <= _HEX and not (after and _word(after)) and not (before and _word(before)):
            found[f"m:{body}"] = None
        start = text.find("m:", start + 2)
    return list(found)
