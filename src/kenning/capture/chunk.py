"""Turns become chunks: windows of at most 2,000 characters packed on paragraph boundaries.

One turn gives one chunk unless it is long, so a search result is one turn (which is also how
the LoCoMo bench counts results). A paragraph longer than a window is cut with a 100-character
overlap so a sentence on the cut is whole in one of the two windows.
"""

from __future__ import annotations

WINDOW = 2000
OVERLAP = 100
CONTEXT = 300  # characters of the previous turn kept beside a chunk for matching


def windows(text: str, size: int = WINDOW, overlap: int = OVERLAP) -> list[str]:
    text = text.strip()
    if not text:
        return []
    if len(text) <= size:
        return [text]
    out: list[str] = []
    current = ""
    for para in text.split("\n\n"):
        para = para.strip()
        if not para:
            continue
        if len(para) > size:
            if current:
                out.append(current)
                current = ""
            step = size - overlap
            out += [para[i:i + size] for i in range(0, max(1, len(para) - overlap), step)]
            continue
        if current and len(current) + 2 + len(para) > size:
            out.append(current)
            current = para
        else:
            current = f"{current}\n\n{para}" if current else para
    if current:
        out.append(current)
    return out


def context_of(previous: str) -> str:
    """The end of the turn before: a reply is found by the words of the question it answers."""
    previous = previous.strip()
    return previous[-CONTEXT:] if len(previous) > CONTEXT else previous
