"""The words a pushed memory's candidates are searched by (kenning.domain.merge.deciding_terms):
every memory close enough to strengthen it or to be contradicted by it holds one of them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kenning.domain.merge import CONTRADICTION_OVERLAP, deciding_terms
from kenning.text import jaccard

WORDS = [f"w{i}" for i in range(14)]
term_sets = st.frozensets(st.sampled_from(WORDS), min_size=1, max_size=12)


@given(claim=term_sets, other=term_sets, df=st.dictionaries(st.sampled_from(WORDS), st.integers(0, 10_000)))
def test_every_memory_close_enough_to_matter_holds_a_deciding_word(
    claim: frozenset[str], other: frozenset[str], df: dict[str, int]
) -> None:
    asked = deciding_terms(claim, df)
    assert set(asked) <= claim
    if jaccard(claim, other) >= CONTRADICTION_OVERLAP:
        assert other & set(asked), (sorted(claim), sorted(other), asked)


def test_the_common_words_are_left_out() -> None:
    df = {"use": 9_000, "deploy": 4_000, "pnpm": 12, "monorepo": 40, "workspace": 700, "lockfile": 30}
    asked = deciding_terms(df.keys(), df)
    assert asked == ["pnpm", "lockfile", "monorepo", "workspace"]  # 6 words: the rarest 6 - 3 + 1
    assert deciding_terms(["solo"], {}) == ["solo"]
