"""The scan: find every rule's needles in one pass, run each rule only where its needles are.

A rule names literal *needles* (a token's prefix such as ``ghp_``, or a word such as ``password``
in its usual spellings) and a *finder* that is called at each place a needle occurs and returns
the spans to mask. All needles of all rules are found in one Aho-Corasick pass over the text
(``ahocorasick-rs``, a DFA: hundreds of MB/s), so text with no needle costs one pass, and a rule's
regex only ever runs where it can match. Finders read the text around the needle themselves:
nothing splits the text first, so ``@``, ``?``, ``&``, quotes and JSON escapes cannot hide a
secret from its rule.

Helpers shared by the rules live here: word boundaries that understand escapes (``\\n``,
``%2F``, ``\\u0026``), line breaks written as text (``\\n`` inside JSON), and tokens wrapped
over several lines (``fold``, ``base64`` output, a PEM-like dump).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import ahocorasick_rs

from kenning.redaction.values import identifier_like, low_diversity, random_like

Span = tuple[int, int, str]
Finder = Callable[[str, int, int], Iterable[Span]]


@dataclass(frozen=True)
class Rule:
    """Needles and the finder run at each of their occurrences."""

    label: str
    needles: tuple[str, ...]
    find: Finder
    # A distinctive prefix (``ghp_``) rather than a context (a name, a header, a flag).
    prefixed: bool = False


TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-")
# What a wrapped token's lines may hold: any printable character but quotes, brackets and
# separators (tokens hold '.', ':', '$', '~', '!', '%', '@' too).
WRAP_CHARS = frozenset(chr(c) for c in range(33, 127)) - frozenset("\"'`<>{}[],;|\\")
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_HEXCH = frozenset("0123456789abcdefABCDEF")
# A line break, raw or as JSON/shell text writes it.
LINE_BREAK = re.compile(r"\r?\n|(?:\\r)?\\n")

def starts_word(text: str, i: int) -> bool:
    """True when a token may start at ``i``: not glued to a letter, digit or ``_`` before it.
    An escape right before counts as a boundary: ``\\nghp_…`` in JSON, ``%2Fghp_…`` in a URL,
    ``\\u0026token=`` from Go's JSON encoder."""
    if i <= 0:
        return True
    c = text[i - 1]
    if c not in _WORD:
        return True
    if i >= 2 and text[i - 2] == "\\" and c in "nrtbf":
        return True
    if i >= 3 and text[i - 3] == "%" and text[i - 2] in _HEXCH and c in _HEXCH:
        return True
    return i >= 6 and text[i - 6:i - 2] in ("\\u00", "\\U00") and text[i - 2] in _HEXCH and c in _HEXCH


def ends_word(text: str, j: int) -> bool:
    """True when a token may end at ``j``: no letter, digit or ``_`` right after it."""
    return j >= len(text) or text[j] not in _WORD


_RUNS = {
    TOKEN_CHARS: re.compile(r"[A-Za-z0-9+/=_-]*"),
    WRAP_CHARS: re.compile(r"[^\s\"'`<>{}\[\],;|\\\x00-\x1f\x7f-\U0010ffff]*"),
}


def run_end(text: str, i: int, limit: int = 4096, chars: frozenset[str] = TOKEN_CHARS) -> int:
    """End of the run of ``chars`` that starts at ``i`` (at most ``limit`` long)."""
    pattern = _RUNS.get(chars)
    if pattern is not None:
        m = pattern.match(text, i, min(len(text), i + limit))
        return m.end() if m else i
    j, stop = i, min(len(text), i + limit)
    while j < stop and text[j] in chars:
        j += 1
    return j


def line_start(text: str, i: int) -> int:
    """Start of the line holding ``i`` (after a raw newline or a ``\\n`` written as text)."""
    floor = max(0, i - 4096)  # bounded: a rule calling this at every needle stays linear
    raw = max(text.rfind("\n", floor, i) + 1, floor)
    esc = text.rfind("\\n", raw, i)
    return esc + 2 if esc >= 0 else raw


# Widths at which tools and terminals wrap long lines (fold, base64, PEM, terminals, editors).
WRAP_WIDTHS = frozenset({32, 40, 48, 50, 56, 60, 64, 70, 72, 76, 78, 79, 80, 90, 96, 100, 110, 120, 128, 132, 140, 160})


def wrapped_end(text: str, start: int, end: int, limit: int = 8192, *, sure: bool = False) -> int:
    """Where a token that starts at ``start`` and reaches a line break at ``end`` really ends,
    when the lines after continue it (see ``wrapped_pieces``)."""
    return wrapped_pieces(text, start, end, limit, sure=sure)[-1][1]


def wrapped_pieces(text: str, start: int, end: int, limit: int = 8192, *,
                   sure: bool = False) -> list[tuple[int, int]]:
    """The pieces of a token that starts at ``start`` and reaches a line break at ``end``, when
    the lines after continue it (``fold -w 64``, ``base64`` at 76 columns, a terminal's width, a
    YAML folded scalar): each next line must be one run of token characters, the first line as
    wide as a usual wrap width or as the next line, and all lines but the last as wide as the
    first. ``sure``: the caller knows the token is incomplete (its pattern needs more)."""
    pieces = [(start, end)]
    first = line_start(text, start)
    while first < start and text[first] in " \t":
        first += 1
    width = end - first
    if width < 20:
        return pieces
    pos = end
    while pos - start < limit:
        lb = LINE_BREAK.match(text, pos)
        if lb is None:
            break
        nxt = lb.end()
        while nxt < len(text) and text[nxt] in " \t":
            nxt += 1
        stop = run_end(text, nxt, chars=WRAP_CHARS)
        piece = stop - nxt
        after = text[stop:stop + 1]
        if piece < 2 or (after and after not in "\r\n\\\"'`,;)" and not text.startswith("\\n", stop)):
            break
        if not _fragment(text[nxt:stop]):
            break
        if len(pieces) == 1 and not sure and width not in WRAP_WIDTHS and piece != width:
            break
        if piece > width:
            break
        pieces.append((nxt, stop))
        pos = stop
        if piece < width:  # a shorter line: the token's last piece
            break
    return pieces


_MARKERS = frozenset({"eof", "eot", "end", "done", "fi", "esac", "py", "cfg", "sql", "json", "yaml", "txt", "cmd", "sh"})


def _fragment(piece: str) -> bool:
    """A piece of a wrapped token, not a word, a heredoc marker, a prompt, a flag or a setting."""
    if "://" in piece:
        return False
    head, eq, _tail = piece.rstrip("=").partition("=")
    if eq and (identifier_like(head) or len(head) < 12):
        return False  # NAME=value: a setting on the next line
    if piece.isalpha() and len(piece) < 12 and (piece.lower() in _MARKERS or identifier_like(piece)):
        return False  # EOF, END, done: the end of a heredoc or a block, not a token's tail
    if piece.startswith(("-", "#", "$")):
        return len(piece) >= 12 and random_like(piece)
    return len(piece) < 8 or random_like(piece) or not identifier_like(piece)


def joined_run(text: str, start: int, limit: int = 600, *, sure: bool = False) -> tuple[str, list[int]] | None:
    """The token-character run at ``start`` with the lines that continue it joined, and for each
    character of the joined string its position in ``text``; None when the run is not wrapped."""
    end = run_end(text, start, limit, chars=WRAP_CHARS)
    if LINE_BREAK.match(text, end) is None:
        return None
    pieces = wrapped_pieces(text, start, end, limit, sure=sure)
    if len(pieces) == 1:
        return None
    where = [i for a, b in pieces for i in range(a, b)]
    return "".join(text[a:b] for a, b in pieces), where


def token_rule(label: str, pattern: str, needles: Sequence[str], *, group: int = 0, glued: bool = False,
               back: str = "", maxback: int = 0, check: Callable[[str], bool] | None = None,
               flags: int = 0) -> Rule:
    """A rule for a token with a distinctive prefix: ``pattern`` is matched where a needle
    starts (or up to ``maxback`` characters from ``back`` before it). Tokens that are placeholders
    (``ghp_xxxxxxxx…``) are left alone; a token wrapped over lines is
    matched with its lines joined."""
    back_chars = frozenset(back)
    # Compiled on first use: most rules never see their needle in a process (hooks import this).
    compiled: list[re.Pattern[str]] = []

    def find(text: str, s: int, _e: int) -> list[Span]:
        if not compiled:
            compiled.append(re.compile(pattern, flags))
        regex = compiled[0]
        start = s
        if back_chars:
            floor = max(0, s - maxback)
            while start > floor and text[start - 1] in back_chars:
                start -= 1
        if not glued and not starts_word(text, start):
            return []
        m = regex.match(text, start)
        span: tuple[int, int] | None = None
        value = ""
        if m is not None:
            span, value = m.span(group), m.group(group)
        tail = m.end() if m is not None else run_end(text, start, chars=WRAP_CHARS)
        if LINE_BREAK.match(text, tail) is not None:
            joined = joined_run(text, start, sure=m is None)
            # A next line that starts like this token is another token, not this one's tail.
            if joined is not None and not any(joined[0].startswith(n, tail - start) for n in needles):
                jm = regex.match(joined[0])
                if jm is not None and (m is None or jm.end() > m.end() - start):
                    where = joined[1]
                    span = (where[jm.start(group)], where[jm.end(group) - 1] + 1)
                    value = jm.group(group)
        if span is None:
            # A token cut off where text was shortened (an ellipsis follows it): too short for
            # its pattern, still a piece of a secret. Earlier versions cut before they redacted;
            # their stores hold such pieces until the migration masks them.
            cut = _cut_token(text, start, needles)
            if cut is not None:
                return [(start, cut, label)]
        if span is None or not value:
            return []
        if low_diversity(value[len(_needle_at(value, needles)):], alphabets=False):
            return []
        if check is not None and not check(value):
            return []
        return [(span[0], span[1], label)]

    return Rule(label, tuple(needles), find, prefixed=True)


_CUT_MARKS = ("…", "...", "[…]", "[...]")


def _cut_token(text: str, start: int, needles: Sequence[str]) -> int | None:
    """Where a prefixed token that starts at ``start`` was cut off, or None: its run of token
    characters ends at a cut mark (``…``), holds 6+ characters after its prefix, and is not a
    word or a placeholder. (A text that simply ends is not taken for a cut: public keys and
    hashes end lines too.)"""
    end = run_end(text, start)
    if not text.startswith(_CUT_MARKS, end):
        return None
    needle = _needle_at(text[start:end], needles)
    rest = text[start + len(needle):end]
    if not needle or len(rest) < 6 or low_diversity(rest) or identifier_like(rest) and not random_like(rest):
        return None
    return end


def _needle_at(value: str, needles: Sequence[str]) -> str:
    for n in needles:
        if value.startswith(n):
            return n
    return ""


def variants(*words: str) -> tuple[str, ...]:
    """Each word as code spells it: lower, Capitalised and UPPER."""
    out: list[str] = []
    for w in words:
        for v in (w.lower(), w[:1].upper() + w[1:].lower(), w.upper()):
            if v not in out:
                out.append(v)
    return tuple(out)


class Scanner:
    """All rules' needles in one automaton; ``spans(text)`` runs the rules where they occur."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = list(rules)
        by_needle: dict[str, list[int]] = {}
        for i, rule in enumerate(self.rules):
            for needle in rule.needles:
                owners = by_needle.setdefault(needle, [])
                if i not in owners:
                    owners.append(i)
        self.needles = sorted(by_needle)
        self.owners = [tuple(by_needle[n]) for n in self.needles]
        self._automaton = ahocorasick_rs.AhoCorasick(self.needles, implementation=ahocorasick_rs.Implementation.DFA)

    def spans(self, text: str) -> list[Span]:
        """Every span any rule finds in ``text`` (unsorted, may overlap)."""
        hits = self._automaton.find_matches_as_indexes(text, overlapping=True)
        if not hits:
            return []
        found: list[Span] = []
        # A rule skips needles inside what it already found (a long token holds many needles).
        covered = [0] * len(self.rules)
        rules, owners = self.rules, self.owners
        for idx, s, e in hits:
            if s > 0 and text[s - 1] == "[" and text.startswith("secret]", s):
                continue  # the mask of an earlier pass is no secret word: redaction is idempotent
            for r in owners[idx]:
                if s < covered[r]:
                    continue
                for span in rules[r].find(text, s, e):
                    found.append(span)
                    if span[0] <= s < span[1] and span[1] > covered[r]:
                        covered[r] = span[1]
        return found


def merge(spans: list[Span]) -> list[Span]:
    """Sorted, non-overlapping spans (overlaps joined, keeping the first label)."""
    if not spans:
        return []
    spans.sort()
    out: list[Span] = [spans[0]]
    for start, end, label in spans[1:]:
        last = out[-1]
        if start < last[1]:
            if end > last[1]:
                out[-1] = (last[0], end, last[2])
            continue
        out.append((start, end, label))
    return out
