"""Memory terms: every word capture's tokenizer finds, plus the parts and wholes of names."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kenning.text import identifier_words, memory_terms, terms, words


@given(st.text(max_size=80))
def test_memory_terms_hold_every_plain_term_whatever_the_script(text: str) -> None:
    assert set(terms(text)) <= set(memory_terms(text))
    assert identifier_words(text)[: len(words(text))] == words(text)


def test_names_give_their_parts_and_their_whole() -> None:
    got = identifier_words("SensorStateClass PARALLEL_UPDATES es.use-ilm k8s mDNS")
    for word in ("sensor", "state", "class", "sensorstateclass", "parallel", "updates", "parallelupdates",
                 "esuseilm", "k8s", "mdns", "dns"):  # fmt: skip
        assert word in got, word
    assert "k" not in got and "m" not in got  # digits and one-letter parts make no words
