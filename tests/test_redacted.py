"""The one door: text is redacted before it is cut, whatever the cut and wherever the secret."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from kenning.redact import MASK
from kenning.redacted import MARGIN, Redacted, clip, counted, ensure, head, redacted

# A token's random body. Bodies of a few distinct characters (ghp_000…, ghp_xxxx…) are
# placeholders by kenning.redaction's policy (docs/capture.md), not secrets.
BODY = st.text(alphabet=string.ascii_letters + string.digits, min_size=36, max_size=36).filter(
    lambda b: len(set(b)) > 8)
FILLER = st.text(alphabet=string.ascii_lowercase + " .,\n", max_size=600)


def pieces(secret: str, size: int = 10) -> list[str]:
    return [secret[i : i + size] for i in range(len(secret) - size + 1)]


@settings(max_examples=200, deadline=None)
@given(before=FILLER, after=FILLER, body=BODY, limit=st.integers(min_value=1, max_value=700))
def test_a_cut_never_leaves_a_piece_of_a_secret(before: str, after: str, body: str, limit: int) -> None:
    token = "ghp_" + body
    text = f"{before} {token} {after}"
    out = head(text, limit)
    assert isinstance(out, Redacted) and len(out) <= limit
    assert not any(p in out for p in pieces(body))


def test_a_secret_past_the_window_is_never_reached() -> None:
    # Only the window is redacted; what lies past it is never part of the result either.
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    out = head("x" * (MARGIN + 500) + token, 300)
    assert "ghp_" not in out and out.endswith("…") and len(out) == 300


def test_cutting_first_would_have_leaked_what_head_keeps_out() -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    text = "x" * 280 + " " + token + " and more words"
    assert "ghp_A1b2C3d4E5f6G" in redacted(text[:300])  # the old order: a fragment survives
    assert "A1b2C3d4E5" not in head(text, 300) and MASK[:4] in head(text, 300)


def test_clip_counted_and_ensure() -> None:
    masked, found = counted("token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 and AKIAQW3RTY7UIOP4ASDF")
    assert found == 2 and masked.count(MASK) == 2
    assert clip(redacted("a short line"), 100) == "a short line"
    assert clip(redacted("one two three four"), 10, at_word=True) == "one two…"
    already = redacted("plain words")
    assert ensure(already) is already
    assert ensure("raw ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8") == f"raw {MASK}"
    assert type("x" + already) is str  # any str operation leaves the door
