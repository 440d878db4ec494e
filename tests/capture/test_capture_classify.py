"""The chunk classifier: strong markers set a type, weak words only add weight, importance is
the strength of the evidence."""

from __future__ import annotations

import pytest

from kenning.capture.chunk import windows
from kenning.capture.classify import classify


@pytest.mark.parametrize(("text", "kind", "low", "high"), [
    ("We decided to pin TZ in the tests rather than change the CI image.", "decision", 4, 5),
    ("We decided to use Postgres over MySQL. We'll use pgvector too.", "decision", 5, 5),
    ("I prefer small fixtures. Please never mock the clock.", "preference", 4, 4),
    ("The root cause is that CI has no TZ set.", "problem", 3, 3),
    ("Got it working: it works now after the schema change.", "milestone", 4, 4),
    ("TIL sqlite has no boolean type.", "discovery", 2, 2),
    ("The export is 3x faster after batching the inserts.", "milestone", 3, 3),
])
def test_types_and_importance(text: str, kind: str, low: int, high: int) -> None:
    c = classify(text)
    assert c.type == kind
    assert low <= c.importance <= high


@pytest.mark.parametrize("text", [
    "The architecture, the approach, the strategy, the framework and the stack all matter.",
    "Open the bug tracker and check the error page.",
])
def test_weak_words_alone_give_general_at_one(text: str) -> None:
    c = classify(text)
    assert (c.type, c.importance) == ("general", 1)


def test_no_marker_is_zero() -> None:
    assert classify("Here is the file you asked for.").importance == 0


@pytest.mark.parametrize("text", [
    "we should rename this", "let's try running the tests again", "switch to branch main",
    "We decided to add a log line", "We decided to add the log_line",  # no concrete object (chat-recall gave 4)
])
def test_tentative_or_objectless_decisions_stay_below_four(text: str) -> None:
    c = classify(text)
    assert c.type == "decision" and c.importance <= 3


def test_one_phrase_is_one_marker() -> None:
    # "we decided to" matches two patterns; counting it twice would corroborate itself.
    assert classify("We decided to pin TZ.").importance == 4


def test_problem_with_resolution_becomes_milestone() -> None:
    assert classify("The bug was a race in the cache; fixed it and it works now.").type == "milestone"


def test_code_is_not_prose() -> None:
    text = "```\n# we decided to use redis\nimport redis\n```\nHere is the snippet."
    assert classify(text).type == "general"


def test_length_alone_gives_no_weight() -> None:
    assert classify("A plain sentence. " * 200).importance == 0


def test_windows_pack_paragraphs_and_cut_long_ones() -> None:
    paras = "\n\n".join(f"Paragraph {i} " + "word " * 60 for i in range(20))
    out = windows(paras)
    assert all(len(w) <= 2000 for w in out) and len(out) > 1
    assert sum(w.count("Paragraph") for w in out) == 20
    long = "x" * 5000
    cut = windows(long)
    assert all(len(w) <= 2000 for w in cut) and cut[0][-100:] == cut[1][:100]
