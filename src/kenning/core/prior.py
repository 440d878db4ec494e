"""How telling a word is before any store has been seen: its frequency in general English.

Recall weighs a matched word by its specificity. Over a store of a hundred one-sentence
memories the store's own document frequency is noisy: "limit" held by one memory looks as
telling as "cassandra" held by one. The shipped table ``word_prior.txt`` (built offline by
tools/build_word_prior.py from wordfreq's English list, CC BY-SA 4.0; see its header) gives
each stemmed term its Zipf value in general text, and :func:`prior_specificity` turns that
into a prior in [0, 1] that :mod:`kenning.core.ranking` blends with the store's own.

Pure data and arithmetic, read once per process on first use; no store, no network.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

# Zipf values (log10 of a word's frequency per billion words): a word at COMMON or above
# ("people", "use", "change") tells nothing by itself; one at RARE or below ("yaml",
# "webpack", "changeset"), or missing from the table, is as specific as a word can be.
COMMON = 6.0
RARE = 2.0


@lru_cache(maxsize=1)
def _table() -> dict[str, float]:
    text = (resources.files("kenning.core") / "word_prior.txt").read_text(encoding="utf-8")
    table: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        value, _, terms = line.partition("\t")
        table.update(dict.fromkeys(terms.split(), float(value)))
    return table


def zipf(term: str) -> float | None:
    """The Zipf value of a stemmed term in general English, None when it is rarer than the
    table goes (identifiers, most product names, other languages)."""
    return _table().get(term)


def prior_specificity(term: str) -> float:
    """0 for a word of everyday English, 1 for a rare one, linear in its Zipf value between."""
    value = zipf(term)
    if value is None:
        return 1.0
    return min(1.0, max(0.0, (COMMON - value) / (COMMON - RARE)))
