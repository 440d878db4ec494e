"""Helpers for the redaction tests: random token bodies (no real secret is ever written down,
and secret scanners do not flag the test files) and assertions that say what was left."""

from __future__ import annotations

import random
import string

from kenning.redact import MASK, redact

B62 = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
UP = string.ascii_uppercase + string.digits
URL = B62 + "-_"
B64 = B62 + "+/"


class Tokens:
    """Random bodies in a provider's alphabet, from a seeded RNG (same values every run)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def __call__(self, alphabet: str, n: int) -> str:
        while True:
            s = "".join(self.rng.choice(alphabet) for _ in range(n))
            kinds = sum(any(c in k for c in s) for k in (string.ascii_lowercase, string.ascii_uppercase, string.digits))
            if n < 12 or kinds >= min(2, sum(any(c in k for c in alphabet) for k in
                                                (string.ascii_lowercase, string.ascii_uppercase, string.digits))):
                return s

    def uuid(self) -> str:
        h = self(HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def assert_masked(text: str, *secrets: str) -> str:
    """``text`` redacted; every secret gone (nor any 8-character piece of it), a mask there."""
    out = redact(text)
    for secret in secrets:
        pieces = [secret[i:i + 8] for i in range(max(1, len(secret) - 7))]
        left = [p for p in pieces if p in out]
        assert not left, f"{secret!r} leaked {left[:3]} in {out!r}"
    assert MASK in out, out
    return out


def assert_kept(text: str) -> None:
    """``text`` comes out of redaction unchanged."""
    assert redact(text) == text, redact(text)
