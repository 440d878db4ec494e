"""Where a search's words appear in a text: the text cut into plain and matching pieces, so a
template can wrap the matches in ``<mark>`` while autoescape still escapes every piece."""

from __future__ import annotations

import re
import unicodedata

from kenning.text import STOP_WORDS, stem, words

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def query_stems(query: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words(query) if w not in STOP_WORDS and len(w) <= 64)


def segments(text: str, query: str) -> list[tuple[str, bool]]:
    """``text`` as ``(piece, matches)`` pairs that join back to ``text`` exactly."""
    wanted = query_stems(query)
    if not wanted or not text:
        return [(text, False)]
    out: list[tuple[str, bool]] = []
    last = 0
    for match in _TOKEN.finditer(text):
        word = unicodedata.normalize("NFKC", match.group()).casefold()
        if stem(word) in wanted:
            if match.start() > last:
                out.append((text[last : match.start()], False))
            out.append((match.group(), True))
            last = match.end()
    if last < len(text):
        out.append((text[last:], False))
    return out
