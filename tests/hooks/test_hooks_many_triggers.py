"""200 lessons with shell triggers against a long command (a 64 KB heredoc): the tool-call hook
finds exactly the lessons whose triggers match, and RE2 decides each of the 200 the way Python's
``re`` does on these (non-backtracking) shapes, anchored triggers also on each command of a chain. How fast is bench/trigger_matching.py's job; a
catastrophic trigger is refused when written (tests/core/test_trigger_safety.py)."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hookrun_helper import claude, run_hook

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.remember import RememberRequest
from kenning.core.service import Core
from kenning.domain.matching import shell_fires
from kenning.domain.write_rules import parse_trigger
from kenning.model import Trigger, TriggerTool

SESSION = "7a11e550-0000-4000-8000-000000000200"
WORDS = ["deploy", "publish", "migrate", "docker", "kubectl", "terraform", "pytest", "cargo", "helm", "psql"]
BODY = "echo 'line of a heredoc with words and --flags' >> notes.txt\n" * 1100
LONG = f"cat <<'EOF' > notes.txt\n{BODY}EOF\nkubectl apply -f deploy/app.yaml --namespace shop && helm7 upgrade shop ./chart --dry-run"
# The two that match LONG, written like any other lesson's trigger: one anywhere in the line,
# one anchored to a simple command of the chain (`… && helm7 upgrade … --dry-run`).
MATCHING = [r"\bkubectl apply -f \S+\.yaml --namespace shop\b", r"^helm7 upgrade \S+ .*--dry-run$"]


def triggers() -> list[str]:
    """198 triggers of the shapes lessons use (anchored, command and flag, alternation, case-
    insensitive, no literal at all, word bounds) that do not match LONG, and the two that do."""
    rng = random.Random(11)
    out = []
    for i in range(198):
        w, v = rng.choice(WORDS), rng.choice(WORDS)
        out.append([f"^{w}{i} ", f"^{w} .*--{v}{i}", f"(?:{w}|{v}){i} (?:apply|push)", f"(?i)^{w.upper()}{i}\\b",
                    f"[a-z]+{i}[0-9]* --force", f"\\b{w}{i}\\s+\\S+\\s+--dry-run$"][i % 6])  # fmt: skip
    return [*out[:120], MATCHING[0], *out[120:], MATCHING[1]]


def oracle(pattern: str, command: str) -> bool:
    """What a trigger means (kenning.domain.matching.shell_fires), with Python's ``re``: it matches the command, or,
    anchored, one of the simple commands the line chains (``&&``, ``||``, ``;``, ``|``, ``&``)."""
    if re.search(pattern, command):
        return True
    if "^" not in pattern and "$" not in pattern:
        return False
    simple = [part.strip().lstrip("({").lstrip() for part in re.split(r"&&|\|\||;|\||&|\n", command)]
    return any(re.search(pattern, part) for part in simple if part)


def test_re2_decides_200_triggers_like_re_on_long_and_short_commands() -> None:
    short = "kubectl apply -f deploy/app.yaml --namespace shop --context prod"
    for pattern in triggers():
        assert parse_trigger(f"shell:{pattern}") is not None  # accepted when written
        for command in (LONG, short, "docker12 --force", "cd infra && PSQL3 -c 'select 1'"):
            assert shell_fires(pattern, command) == oracle(pattern, command), (pattern, command[:40])
    assert sorted(p for p in triggers() if shell_fires(p, LONG)) == sorted(MATCHING)


@pytest.fixture
def shop(repo: Path, kenning_home: Path) -> Iterator[Core]:
    core = Core.open(Settings(home=kenning_home), FixedClock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC)))
    try:
        yield core
    finally:
        core.close()


def test_the_hook_gives_the_lessons_whose_triggers_match_a_long_command(shop: Core, repo: Path) -> None:
    place = shop.place(repo)
    texts = {}
    for i, pattern in enumerate(triggers()):
        text = f"Lesson {i}: check the {WORDS[i % len(WORDS)]} step number {i} before running it again."
        made = shop.remember(place, RememberRequest(text=text, when=Trigger(TriggerTool.SHELL, pattern)))
        assert made.memory is not None, made
        texts[pattern] = text
    assert len(texts) == 200

    payload = claude(repo, "PreToolUse", SESSION, tool_name="Bash", tool_input={"command": LONG, "description": "x"})
    run = run_hook("claude-code", "PreToolUse", payload)
    assert run.code == 0
    given = [t for t in texts.values() if t[: t.index(":")] + ":" in run.held]
    assert sorted(given) == sorted(texts[p] for p in MATCHING), run.held
    # A short command that matches none of them gets no answer.
    quiet = claude(repo, "PreToolUse", SESSION, tool_name="Bash", tool_input={"command": "ls -la", "description": "x"})
    assert run_hook("claude-code", "PreToolUse", quiet).stdout == ""
