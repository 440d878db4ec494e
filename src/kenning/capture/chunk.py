"""Turns become chunks: windows of at most 2,000 characters packed on paragraph boundaries.

One turn gives one chunk unless it is long, so a search result is one turn (which is also how
the LoCoMo bench counts results). A paragraph longer than a window is cut with a 100-character
overlap so a sentence on the cut is whole in one of the two windows.
"""

from __future__ import annotations

from kenning.redacted import EMPTY, Redacted, join, part, strip

WINDOW = 2000
OVERLAP = 100
CONTEXT = 300  # characters of the previous turn kept beside a chunk for matching


def windows(text: Redacted, size: int = WINDOW, overlap: int = OVERLAP) -> list[Redacted]:
    """Windows of an already redacted turn (cutting redacted text reveals nothing)."""
    text = strip(text)
    if not text:
        return []
    if len(text) <= size:
        return [text]
    out: list[Redacted] = []
    current = EMPTY
    paragraphs = [strip(part(text, a, b)) for a, b in _spans(text, "\n\n")]
    for para in paragraphs:
        if not para:
            continue
        if len(para) > size:
            if current:
                out.append(current)
                current = EMPTY
            step = size - overlap
            out += [part(para, i, i + size) for i in range(0, max(1, len(para) - overlap), step)]
            continue
        if current and len(current) + 2 + len(para) > size:
            out.append(current)
            current = para
        else:
            current = join([current, para], "\n\n") if current else para
    if current:
        out.append(current)
    return out


def _spans(text: str, sep: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    while True:
        end = text.find(sep, start)
        if end < 0:
            spans.append((start, len(text)))
            return spans
        spans.append((start, end))
        start = end + len(sep)


def context_of(previous: Redacted) -> Redacted:
    """The end of the turn before: a reply is found by the words of the question it answers."""
    previous = strip(previous)
    return part(previous, -CONTEXT) if len(previous) > CONTEXT else previous
