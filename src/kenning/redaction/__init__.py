"""Secret redaction: keys, tokens, passwords, private keys and credentials become ``[secret]``.

Runs on every memory write and on all captured text, before anything reaches storage. Only the
secret is replaced; the rest of the sentence stays. Three kinds of rules, all run from one
Aho-Corasick pass over the text (``engine``):

- tokens with a distinctive prefix (``vendors_*``: 200+ formats of 100+ providers),
- values next to a secret-sounding name, in any syntax (``assign``) and secrets in sentences,
  URLs and commands (``prose``), and values handed over in a sentence with no secret word
  (``handover``),
- multi-line blocks: private keys, a Kubernetes Secret's data (``blocks``).

Whether a value next to a name is a secret is decided by the name's words (``names``) and the
value's shape (``values``): placeholders, references, paths, URLs, words, hashes and ids are not.

Written by hand rather than with detect-secrets (line by line, one regex pass per plugin, about
1 MB/s in our measurement: capture needs 20+ MB/s) or gitleaks/trufflehog (Go binaries, files
rather than strings). Their published rule sets are where the formats were learned.
"""

from __future__ import annotations

from kenning.redaction import assign, blocks, handover, prose, vendors_cloud, vendors_dev, vendors_saas
from kenning.redaction.engine import Rule, Scanner, Span, merge

MASK = "[secret]"

RULES: list[Rule] = [
    *vendors_cloud.RULES, *vendors_dev.RULES, *vendors_saas.RULES, *blocks.RULES,
    assign.NAME_RULE, assign.VALUE_RULE, *prose.RULES, *handover.RULES,
]
_SCANNER = Scanner(RULES)


def find_secrets(text: str) -> list[tuple[int, int, str]]:
    """Spans of secrets in ``text`` as (start, end, rule label), sorted and non-overlapping."""
    if len(text) < 8:
        return []
    return merge(_SCANNER.spans(text))


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[secret]``; everything else unchanged."""
    return redact_count(text)[0]


def redact_count(text: str) -> tuple[str, int]:
    """``redact`` that also says how many secrets it replaced."""
    spans = find_secrets(text)
    if not spans:
        return text, 0
    out: list[str] = []
    pos = 0
    for start, end, _label in spans:
        out.append(text[pos:start])
        out.append(MASK)
        pos = end
    out.append(text[pos:])
    return "".join(out), len(spans)


__all__ = ["MASK", "RULES", "Span", "find_secrets", "redact", "redact_count"]
