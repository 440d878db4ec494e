"""Build ``src/kenning/core/word_prior.txt``: how common each stemmed English word is in general text.

Recall weighs a matched word by how specific it is. Over a store of a hundred memories that
is noisy ("limit" in one memory looks as telling as "cassandra" in one memory); this table
gives every term a prior from general English, which recall blends with the store's own
document frequency (kenning.core.prior). It is built once, offline, and shipped; nothing is
fetched at run time.

Source: wordfreq 3.1.1 (Robyn Speer), its English "large" list. Each word is tokenised and
stemmed exactly as kenning indexes memories (kenning.text.words and stem); the frequencies of
the words that share a stem are added up, and the stem's Zipf value (log10 of its frequency
per billion words) is written rounded to 0.1. Stems rarer than MIN_ZIPF are left out: recall
treats a term missing from the table as rare.

Licence of the output: wordfreq's data is CC BY-SA 4.0 (it includes Wikipedia, OpenSubtitles,
the Leeds Internet Corpus, ParaCrawl and Google Books Ngrams data), so the table is too; its
header says so.

Run (wordfreq is not a kenning dependency; install it in a throwaway environment):
    python -m venv /tmp/wf && /tmp/wf/bin/pip install wordfreq==3.1.1 pystemmer -e .
    /tmp/wf/bin/python tools/build_word_prior.py
"""

from __future__ import annotations

import math
import sys
from collections import defaultdict
from pathlib import Path

from wordfreq import iter_wordlist, word_frequency  # type: ignore[import-not-found]

from kenning.text import stem, words

OUT = Path(__file__).resolve().parent.parent / "src" / "kenning" / "core" / "word_prior.txt"
MIN_ZIPF = 2.0
HEADER = """\
# Stemmed English words and how common they are in general text: Zipf value (log10 of the
# frequency per billion words), rounded to 0.1, then the stems with that value.
# Built by tools/build_word_prior.py from wordfreq 3.1.1 (Robyn Speer), English "large" list;
# stems rarer than Zipf {min_zipf} are left out.
# Licence: CC BY-SA 4.0, as wordfreq's data, which includes data from Wikipedia, OPUS
# OpenSubtitles 2018 (OpenSubtitles), the Leeds Internet Corpus, ParaCrawl and Google Books Ngrams.
"""


def main() -> int:
    totals: dict[str, float] = defaultdict(float)
    for word in iter_wordlist("en", wordlist="large"):
        tokens = words(word)
        if len(tokens) != 1 or not tokens[0].isalpha():
            continue
        totals[stem(tokens[0])] += word_frequency(word, "en", wordlist="large")
    by_value: dict[float, list[str]] = defaultdict(list)
    for term, freq in totals.items():
        zipf = round(math.log10(freq * 1e9), 1)
        if zipf >= MIN_ZIPF:
            by_value[zipf].append(term)
    lines = [HEADER.format(min_zipf=MIN_ZIPF)]
    for zipf in sorted(by_value, reverse=True):
        lines.append(f"{zipf:.1f}\t{' '.join(sorted(by_value[zipf]))}\n")
    OUT.write_text("".join(lines), encoding="utf-8")
    print(f"{sum(map(len, by_value.values()))} stems written to {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
