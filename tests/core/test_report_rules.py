"""The memory report's fixed rules, one at a time: what a transcript's turns count as
(corrections, repeated asks, recall calls, edits, reverted work, citations) and Welch's
interval and sample size against published values."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kenning.core import session_signals as sig
from kenning.domain import welch


def turn(i: int, role: str, text: str = "", calls: list[dict[str, str]] | None = None) -> sig.Turn:
    row = {"role": role, "text": text, "at": f"2026-03-10T09:{i:02d}:00Z", "tool_calls": json.dumps(calls or []),
           "files": "[]"}  # fmt: skip
    return sig.turns_of([row])[0]


@pytest.mark.parametrize("text", [
    "no, that's wrong, keep the old tag format", "I said the changelog must stay untouched",
    "I told you to use pnpm here", "as I said, tests first", "put it back the way it was",
    "I reverted your change to the config", "wrong file, revert that",
])  # fmt: skip
def test_corrections(text: str) -> None:
    assert sig.is_correction(text)


@pytest.mark.parametrize("text", ["now add the tests", "yes", "nothing else, thanks for the fix",
                                  "Can you explain how deploys work?", "said and done: ship it"])  # fmt: skip
def test_not_corrections(text: str) -> None:
    assert not sig.is_correction(text)


def test_the_first_prompt_is_never_a_correction_and_repeats_are_counted_once_each() -> None:
    turns = [turn(0, "user", "no, that is wrong, look again"), turn(1, "user", "Fix the failing login test please"),
             turn(2, "user", "Fix the failing login test please"), turn(3, "user", "please fix the login test that fails"),
             turn(4, "user", "Now update the changelog for the release")]  # fmt: skip
    got = sig.signals(turns)
    assert (got.corrections, got.repeated_asks, got.prompts, got.tool_calls, got.worked) == (0, 2, 5, 0, False)


@pytest.mark.parametrize(("name", "command", "kind", "recall", "reverts"), [
    ("Bash", "git checkout -- src/a.py", "shell", False, True),
    ("exec_command", "git checkout HEAD~1 -- src/a.py", "shell", False, True),
    ("run_shell_command", "git restore src/a.py", "shell", False, True),
    ("Bash", "git restore --staged src/a.py", "shell", False, False),
    ("Bash", "git restore --staged --worktree src/a.py", "shell", False, True),
    ("Bash", "git reset --hard HEAD", "shell", False, True),
    ("Bash", "git revert abc123", "shell", False, True),
    ("Bash", "git stash drop", "shell", False, True),
    ("Bash", "git checkout main", "shell", False, False),
    ("Bash", "git reset --soft HEAD~1", "shell", False, False),
    ("Bash", "kenning recall 'deploy workflow'", "shell", True, False),
    ("Bash", "echo kenning; echo recall", "shell", False, False),
    ("mcp__kenning__recall", "deploy workflow", "recall", True, False),
    ("mcp__plugin_x_kenning__recall", "deploy", "recall", True, False),
    ("mcp_kenning_recall", "deploy", "recall", True, False),
    ("Edit", "src/a.py", "edit", False, False),
    ("apply_patch", "*** Begin Patch", "edit", False, False),
    ("replace", "src/a.py", "edit", False, False),
    ("Read", "src/a.py", "read", False, False),
    ("WebFetch", "https://example.com", "", False, False),
])  # fmt: skip
def test_calls(name: str, command: str, kind: str, recall: bool, reverts: bool) -> None:
    call = turn(0, "assistant", calls=[{"name": name, "input": command}]).calls[0]
    assert (call.kind, sig.is_recall(call), sig.reverts(call)) == (kind, recall, reverts)


def test_citations_are_the_agents_words_and_inputs_only() -> None:
    turns = [
        turn(0, "user", "what does m:0000000a say?"),
        turn(1, "tool", "m:0000000b [fact] recall's answer"),
        turn(2, "assistant", "Following m:0000000c and m:0000000c again.",
             [{"name": "mcp__kenning__remember", "input": "", "refs": "m:0000000d m:0000000c"}]),
        turn(3, "assistant", "", [{"name": "Bash", "input": "kenning get m:0000000e"}]),
    ]  # fmt: skip
    assert [(t.index, ref) for t, ref in sig.citations(turns)] == [(0, "m:0000000c"), (0, "m:0000000d"), (0, "m:0000000e")]


# ----------------------------------------------------------------------------- Welch


@pytest.mark.parametrize(("df", "value"), [(1, 12.706), (2, 4.303), (5, 2.571), (10, 2.228), (30, 2.042), (120, 1.980)])
def test_t_quantile_matches_the_table(df: float, value: float) -> None:
    assert welch.t_quantile(0.975, df) == pytest.approx(value, abs=5e-4)


@given(st.floats(0.01, 0.99), st.floats(0.5, 500))
def test_t_quantile_inverts_the_cdf(p: float, df: float) -> None:
    assert welch.t_cdf(welch.t_quantile(p, df), df) == pytest.approx(p, abs=1e-9)


def test_welch_interval_by_hand() -> None:
    a, b = [1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0]
    got = welch.compare(a, b, ratio=3)
    va, vb = (5 / 3) / 4, 4.0 / 3  # sample variances / n
    df = (va + vb) ** 2 / (va**2 / 3 + vb**2 / 2)
    half = welch.t_quantile(0.975, df) * math.sqrt(va + vb)
    assert got.difference == pytest.approx(-1.5) and got.df == pytest.approx(df)
    assert (got.low, got.high) == (pytest.approx(-1.5 - half), pytest.approx(-1.5 + half))
    assert got.needed_a == 3 * got.needed_b  # type: ignore[operator]


def test_sample_size_and_the_edges() -> None:
    # Equal spread 1, a difference of one sd, 1:1: 2 * (1.96 + 0.84)^2 = 15.7 -> 16 per group.
    assert welch.sample_size(1.0, 1.0, 1.0, ratio=1) == (16, 16)
    assert welch.sample_size(1.0, 1.0, 0.0) == (None, None)
    one = welch.compare([1.0], [2.0, 3.0])
    assert one.difference == pytest.approx(-1.5) and one.low is None and one.needed_a is None
    none = welch.compare([], [1.0, 2.0])
    assert none.difference is None and none.a.n == 0
    flat = welch.compare([1.0, 1.0], [0.0, 0.0])
    assert (flat.difference, flat.low, flat.high) == (1.0, 1.0, 1.0)
    with pytest.raises(ValueError):
        welch.t_quantile(1.0, 3)
