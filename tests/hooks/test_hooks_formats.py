"""Each tool's start and prompt answers in its own format; the launcher finds the same data
folder as the rest of kenning; lessons stay within 2 per call and once per session."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hookrun_helper import claude, codex, gemini, run_hook
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kenning.clock import FixedClock
from kenning.config import Settings, data_dir
from kenning.context.brief import LIMIT
from kenning.core import lessons
from kenning.core.remember import RememberRequest
from kenning.core.service import Core
from kenning.hooks.main import _home
from kenning.model import Kind, Origin, Trigger, TriggerTool

Payload = Callable[..., dict[str, Any]]


@pytest.mark.parametrize("tool,start,prompt,make", [
    ("claude-code", "SessionStart", "UserPromptSubmit", claude),
    ("codex", "SessionStart", "UserPromptSubmit", codex),
    ("gemini", "SessionStart", "BeforeAgent", gemini),
])  # fmt: skip
def test_start_and_prompt_answer_in_the_tools_format(tool: str, start: str, prompt: str, make: Payload, repo: Path) -> None:
    first = run_hook(tool, start, make(repo, start, "fmt-1"))
    answer = json.loads(first.stdout)  # JSON only, for every tool
    assert set(answer) == {"hookSpecificOutput"}
    assert answer["hookSpecificOutput"]["hookEventName"] == start
    assert len(first.context) <= LIMIT and "Project shop" in first.context
    asked = run_hook(tool, prompt, make(repo, prompt, "fmt-1", prompt="Add a coupon field to checkout."))
    assert json.loads(asked.stdout)["hookSpecificOutput"]["hookEventName"] == prompt
    assert "call `recall` with this task" in asked.context


def test_the_launcher_finds_kennings_data_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("KENNING_HOME", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert Path(_home(os.environ)) == data_dir(os.environ)
    monkeypatch.setenv("KENNING_HOME", str(tmp_path / "k"))
    assert Path(_home(os.environ)) == data_dir(os.environ) == tmp_path / "k"


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(calls=st.lists(st.tuples(st.sampled_from(["s1", "s2"]), st.sampled_from(["deploy", "deploy prod", "ls"])),
                      min_size=1, max_size=12))  # fmt: skip
def test_at_most_two_per_call_and_each_once_per_session(calls: list[tuple[str, str]], tmp_path_factory: pytest.TempPathFactory) -> None:
    home = tmp_path_factory.mktemp("home")
    core = Core.open(Settings(home=home), FixedClock(datetime(2026, 3, 2, tzinfo=UTC)))
    try:
        place = core.place(project="github.com/acme/shop")
        topics = ["latency", "errors", "billing", "queues", "disk"]
        refs = set()
        for topic in topics:
            result = core.remember(place, RememberRequest(text=f"Before deploying, check the {topic} dashboard.",
                                                          kind=Kind.LESSON, origin=Origin.PERSON,
                                                          when=Trigger(TriggerTool.SHELL, "deploy")))  # fmt: skip
            assert result.memory is not None
            refs.add(result.memory.ref)
        given_to: dict[str, list[str]] = {"s1": [], "s2": []}
        for session, command in calls:
            got = lessons.for_call(core, place, lessons.ToolCall("shell", command), session)
            assert len(got) <= 2
            if "deploy" not in command:
                assert got == []
            given_to[session] += [m.ref for m in got]
        for got_refs in given_to.values():
            assert len(got_refs) == len(set(got_refs)) and set(got_refs) <= refs
    finally:
        core.close()
