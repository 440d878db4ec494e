"""Secrets handed over in a sentence that names no secret word: the value's context is how it
was given, not what it is called.

- **One-time display**: providers show a new key once and say so (GitHub: "you won't be able to
  see it again", AWS: "this is the only time the secret can be viewed", OpenAI: "you won't be able
  to view it again"); people paste the value and repeat the warning: ``Keycloak gave me
  1Tif… (it won't show it again)``. A machine-made or password-like value on the same line as such
  a phrase is the secret.
- **Handed over**: ``nexus gave me this: e9-B!…``, ``the admin sent us: …``, ``vault generated
  one for me: …``, ``here it is: …``. A verb of giving, a few words, then ``:`` (or ``=``, ``is``)
  and the value.

Without a secret word the value must look made, not named: random or a password with three
kinds of characters; paths, URLs, identifiers, numbers, placeholders and hashes (``sha256:…``,
a commit) are left alone, and hex or UUIDs only with a one-time-display phrase.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from kenning.redaction import values as v
from kenning.redaction.engine import Rule, Span, line_start, starts_word, variants

_ONCE_PHRASES = (
    "show it again", "shown again", "see it again", "view it again", "displayed again", "see this again",
    "view this again", "show this again", "shown once", "displayed once",
    "copy it now", "copy this now", "somewhere safe", "cannot be retrieved", "can't be retrieved",
    "won't be able to retrieve", "not be able to retrieve",
)
_GIVE_PHRASES = (
    "gave me", "gave us", "gives me", "gives us", "sent me", "sent us", "handed me", "handed us", "issued me",
    "issued us", "generated", "here it is", "here you go", "just got",
)
_STRIP = "\"'`()[]<>{},;:*\\."
_TOKEN = re.compile(r"[^\s\\]+")
_LINE_END = re.compile(r"\r?\n|\\n")
_DIGEST = re.compile(r"(?i)(?:sha\d*|md5|blake\w*|sha3-\d+|sha-\d+):")
# After a giving verb: up to four words, then ':' / '=' / 'is' / 'was', then the value.
_GIVEN = re.compile(r"""((?:[ \t]+[\w'’-]+){0,4}?)[ \t]*(?::|=|[ \t]is|[ \t]was)[ \t]+[`'"]?([^\s`'"\\]{8,})""")
_NOT_BETWEEN = frozenset({
    "commit", "sha", "hash", "id", "ids", "uuid", "build", "version", "error", "errors", "warning", "output",
    "file", "files", "path", "url", "link", "name", "names", "number", "count", "list", "log", "logs", "message",
})


@lru_cache(maxsize=1024)
def _made(core: str, *, once: bool) -> bool:
    """``core`` looks made by a machine or a password generator, not a word, name or hash."""
    if len(core) < 8 or v.not_a_value(core) or _DIGEST.match(core):
        return False
    if v.uuid_like(core) or v.hex_like(core):
        return once and len(core) >= 16
    if v.identifier_like(core):
        return False
    if v.random_like(core):
        return len(core) >= 12 or once
    # A generated password mixes cases with digits or symbols; names joined by dashes and dates
    # (build-2024-12-01-a8f3) are one case.
    mixed = any(c.islower() for c in core) and any(c.isupper() for c in core)
    other = any(c.isdigit() for c in core) or any(not c.isalnum() for c in core)
    return mixed and other and v.password_like(core) and (len(core) >= 10 or once)


def _core(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and text[a] in _STRIP:
        a += 1
    while b > a and text[b - 1] in _STRIP + ",!?":
        # A generated password may end in '!' or '?': keep them unless they close a sentence.
        if text[b - 1] in "!?" and b < len(text) and not text[b].isspace() and text[b] not in ")\"'`":
            break
        b -= 1
    return a, b


def _once(text: str, s: int, e: int) -> Iterable[Span]:
    """The made value nearest to a one-time-display phrase on its line."""
    start = max(line_start(text, s), s - 160)
    m_end = _LINE_END.search(text, e, min(len(text), e + 160))
    stop = m_end.start() if m_end else min(len(text), e + 160)
    best: tuple[int, int, int] | None = None
    for m in _TOKEN.finditer(text, start, stop):
        if s <= m.start() < e:
            continue
        if m.end() - m.start() < 8:
            continue  # a word of the sentence
        a, b = _core(text, m.start(), m.end())
        if b - a >= 8 and _made(text[a:b], once=True):
            distance = s - b if b <= s else a - e
            if best is None or distance < best[0]:
                best = (distance, a, b)
    return () if best is None else ((best[1], best[2], "handed-secret"),)


def _given(text: str, s: int, e: int) -> Iterable[Span]:
    """``<verb of giving> [a few words] : <value>``."""
    if not starts_word(text, s):
        return ()
    m = _GIVEN.match(text, e, min(len(text), e + 160))
    if m is None:
        return ()
    between = m.group(1).lower().split()
    if any(w.strip(_STRIP) in _NOT_BETWEEN for w in between):
        return ()
    a, b = _core(text, m.start(2), m.end(2))
    if b - a < 8 or not _made(text[a:b], once=False):
        return ()
    return ((a, b, "handed-secret"),)


RULES = [
    Rule("handed-secret", variants(*_ONCE_PHRASES), _once),
    Rule("handed-secret", variants(*_GIVE_PHRASES), _given),
]
