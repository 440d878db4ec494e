"""Tokenising and stemming, shared by every backend and by capture.

Backends never stem on their own: kenning stems in Python and hands the store stemmed
terms, so SQLite and PostgreSQL index (and rank) exactly the same tokens.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import Stemmer

_WORD_RE = re.compile(r"[^\W_]+", re.UNICODE)
_STEMMER = Stemmer.Stemmer("english")

STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "don",
        "shall",
        "may",
        "might",
        "must",
        "also",
        "us",
        "let",
        "lets",
        "get",
        "got",
        "via",
        "per",
    ]
)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return str(_STEMMER.stemWord(word))


def words(text: str) -> list[str]:
    """Lower-cased word tokens, accents folded; underscores and punctuation split words."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _WORD_RE.findall(folded)


def terms(text: str, *, keep_stop_words: bool = False) -> list[str]:
    """Stemmed index terms of ``text`` in order (duplicates kept, stop words dropped)."""
    out: list[str] = []
    for word in words(text):
        if not keep_stop_words and word in STOP_WORDS:
            continue
        if len(word) > 64:
            continue
        out.append(stem(word))
    return out


# Pieces of an identifier: ``ConfigEntry`` -> Config, Entry; ``HTTPServer`` -> HTTP, Server;
# ``mDNS`` -> DNS (one-letter parts are dropped); an acronym's plural is the acronym (``PRs`` ->
# PR, ``getURLs`` -> get, URL), not ``P`` and ``Rs``. A word with digits (k8s, i18n, v2) stays whole.
_CAMEL_RE = re.compile(r"[A-Z]{2,}(?=s$)|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[^\W\d_]+", re.UNICODE)
# What redaction leaves in place of a secret (kenning.redaction.MASK, not imported here: this
# module is loaded by every hook). It is no word of the memory: "[secret]" must not make a
# memory about secrets.
REDACTION_MASK = "[secret]"


# A joined name as written: snake_case, dotted or hyphenated (hass.data, es.use-ilm).
_JOINED_RE = re.compile(r"\w+(?:[.\-]\w+)*", re.UNICODE)


def identifier_words(text: str) -> list[str]:
    """:func:`words`, then what names add: a camelCase word its parts (``SensorStateClass`` ->
    sensor, state, class), a joined name the word its parts make (``PARALLEL_UPDATES`` ->
    parallelupdates), so "sensor state class" finds the identifier and the identifier finds
    itself. (FTS5 splits on "_", so the whole is kept as one word without it.) Every word of
    :func:`words` is among them, whatever the script.
    """
    out = words(text)
    for chunk in _JOINED_RE.findall(unicodedata.normalize("NFKC", text)):
        pieces = _WORD_RE.findall(chunk)
        for raw in pieces:
            if raw.isalpha() and not raw.islower() and not raw.isupper():
                parts = _CAMEL_RE.findall(raw)
                if len(parts) > 1:
                    # A part that stems like the whole word adds nothing (APIs: api).
                    whole = stem(raw.casefold())
                    out.extend(w for p in parts if len(p) > 1 for w in _WORD_RE.findall(p.casefold())
                               if stem(w) != whole)  # fmt: skip
        if len(pieces) > 1 and sum(p.isalpha() for p in pieces) > 1:
            out.extend(_WORD_RE.findall("".join(pieces).casefold()))
    return out


def memory_terms(text: str) -> list[str]:
    """Stemmed terms of a memory's field or of a recall query: :func:`terms` with camelCase
    identifiers split into their parts too (capture keeps :func:`terms`). A redaction mask is
    no term."""
    text = text.replace(REDACTION_MASK, " ")
    return [stem(w) for w in identifier_words(text) if w not in STOP_WORDS and len(w) <= 64]


def memory_index_text(text: str) -> str:
    """The indexed form of a memory field: :func:`memory_terms` joined by spaces."""
    return " ".join(memory_terms(text))


def term_set(text: str) -> frozenset[str]:
    return frozenset(terms(text))


def index_text(text: str) -> str:
    """The form a backend stores in its full-text index: stemmed terms joined by spaces."""
    return " ".join(terms(text))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)
