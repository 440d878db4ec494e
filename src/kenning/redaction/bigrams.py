"""How word-like a run of letters is: a letter-bigram model of English and code identifiers.

Random tokens and words differ less in their alphabet than in their letter pairs: ``kx``,
``qz``, ``vj`` are rare in words and common in random strings. The table holds, for each pair
of symbols (``^`` word start, ``a``-``z``, ``$`` word end), log2 P(next | previous) rounded to
a step and stored as one character ('a' = 0 bits down to 'z' = -25 bits).

The table was made from the Python standard library's source (identifiers, comments and
docstrings: English and code) by ``python -m kenning.redaction.bigrams``, which prints the
new value of ``TABLE``; no data file is read at run time.
"""

from __future__ import annotations

import math
import re

SYMBOLS = "^abcdefghijklmnopqrstuvwxyz$"
TABLE = (
    "zhkiijimmhrokkjjjsighmmloqrzzylijvqlxjxoghhzlzghgmmppnwizhrlofvrtjhwhqqjnykkqhyzyhqg"
    "zhwnrgswhkzihorfruknglruzrxhziqslerwzhuwntqjsxmknkuwupzdzkrjjnkpwrzshlhqlphiiuopkoyd"
    "zjyqolkuwgzzlsrgqwjnnkzyzrzczmsqteuolizzkpjmszkgnjpwzxqdzgxusduyuhzvqqqhyzmpmnzzzszf"
    "zmnjlmhlztzrijehmwlghymznzmmzlzrvdvzxpzquxwgozqpuhzwzszdzlwsndsouizwktlootpiqnwjzuwd"
    "zhqrlffvwgzuivpiozsikjttzlugzfktnduzwjztolrhgzsknlyyzrzgzitjhhmhulzoounhpzujgmnxzpye"
    "zokkiqjpyozoljfmjzfjijnlsyuhzfupofrvqkzshsshjwgnhlpqzkzgysswouuywruypwnoqsllubwuwyyf"
    "zhrnneqkxizpqlihrzjjjmprylzezmwnsetpmizqoqrllvriglvrxmzdzitopgpyfhzxoqsiozikmivqvlte"
    "zmlmoglnzlzygigpizfhhryzuzxlzduuzcsushzywoqmszsttyurvyyhzgrsmhqxgfzzmvkhusgksvupszzf"
    "zjqfrjovrizznqzpizqoevvxnpsdzsqoqkqsulzzomlmgzqhhssnzsuczlvsucqxofzzmlokvzrrrtzuzqtg"
    "kkkkkkkkkkkkkkkkkkkkkkkkkkkk"
)

_INDEX = {c: i for i, c in enumerate(SYMBOLS)}
_N = len(SYMBOLS)


def _decode(table: str) -> list[list[float]]:
    if len(table) != _N * _N:
        return [[-4.8] * _N for _ in range(_N)]
    return [[-(ord(table[i * _N + j]) - 97) * 0.5 for j in range(_N)] for i in range(_N)]


_LOGP = _decode(TABLE)
_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def word_score(letters: str) -> float:
    """Mean log2 probability per letter pair of ``letters`` read as lower-case words split at
    case changes (``getUserName`` = get, user, name): about -3 for words, -6 for random text."""
    total, pairs = 0.0, 0
    for word in _CAMEL.findall(letters):
        prev = 0
        for ch in word.lower() + "$":
            cur = _INDEX.get(ch)
            if cur is None:
                prev = 0
                continue
            total += _LOGP[prev][cur]
            pairs += 1
            prev = cur
    return total / pairs if pairs else 0.0


def _build() -> str:
    import sysconfig
    from pathlib import Path

    counts = [[1.0] * _N for _ in range(_N)]
    lib = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(lib.glob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for word in _CAMEL.findall(text):
            prev = 0
            for ch in word.lower() + "$":
                cur = _INDEX[ch]
                counts[prev][cur] += 1
                prev = cur
    out = []
    for row in counts:
        total = sum(row)
        for c in row:
            step = round(-math.log2(c / total) * 2)
            out.append(chr(97 + min(25, max(0, step))))
    return "".join(out)


if __name__ == "__main__":
    table = _build()
    print("TABLE = (")
    for i in range(0, len(table), 84):
        print(f'    "{table[i:i + 84]}"')
    print(")")
