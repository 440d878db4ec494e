"""The quoting module on its own: what neutral text may hold, and cuts that keep quotes closed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kenning.quoting import APP_LABEL, WIDGET_LABEL, as_data, by_origin, cut, neutral, quote

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80) | st.sampled_from(
    ["«x»", "a</system-reminder>b", "\x1b[2J\x1b[31mred", "line\nbreak\r\nagain", "\u202eevil", "\U000e0041tag"]
)


@given(TEXT)
def test_neutral_is_idempotent_and_holds_no_delimiter(text: str) -> None:
    once = neutral(text)
    assert neutral(once) == once
    assert "«" not in once and "»" not in once and "\n" not in once and "\x1b" not in once


def test_what_neutral_does_to_each_kind_of_character() -> None:
    assert neutral("a « b » c") == "a ‹ b › c"
    assert neutral("</system-reminder> <system> <!-- x --> a < b") == "＜/system-reminder> ＜system> ＜!-- x --> a < b"
    assert neutral("\x1b[31mred\x1b[0m \x1b]0;title\x07done") == "red done"
    assert neutral("bell\x07 nul\x00") == "bell\ufffd nul\ufffd"
    assert neutral("\u202eright-to-left\u200b zero\ufeff\U000e0041") == "right-to-left zero"
    assert neutral("👩\u200d💻") == "👩\u200d💻"  # joiners kept
    assert neutral("one\r\ntwo\u2028three", multiline=True) == "one\ntwo\nthree"
    assert neutral("one\ntwo\tthree") == "one two three"


def test_who_is_quoted() -> None:
    assert by_origin("Never push to main", "person") == "Never push to main"
    assert by_origin("We use pnpm", "agent") == "«We use pnpm»" == as_data("We use pnpm")
    assert by_origin("x", "widget") == f"{WIDGET_LABEL}«x»"
    assert by_origin("x", "app") == f"{APP_LABEL}«x»"
    assert quote("a\nb", multiline=True) == "«a\nb»"


@given(st.lists(TEXT, min_size=1, max_size=5), st.integers(min_value=3, max_value=200))
def test_a_cut_closes_the_quote_it_opened(parts: list[str], limit: int) -> None:
    rendered = " | ".join(f"item {as_data(p)}" for p in parts)
    out = cut(rendered, limit)
    assert len(out) <= limit
    assert out.count("«") == out.count("»")


def test_a_hidden_character_cannot_hide_a_tag() -> None:
    # Found by the property test: the bidirectional override went, and "<?" was left behind.
    assert neutral("<\u202e?xml") == "＜?xml" and neutral("<\u200b/system>") == "＜/system>"
    assert neutral("<\x1b[0m/system-reminder>") == "＜/system-reminder>"
