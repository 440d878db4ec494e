"""Triggers that cannot hang a hook: a catastrophic pattern is refused when the lesson is
written (with a fix), matching runs in linear time (RE2), and a trigger stored before these
checks (written raw into the store) still cannot hold a tool call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kenning.core.remember import RememberRequest
from kenning.core.scopes import Place
from kenning.core.service import Core
from kenning.domain.matching import shell_fires
from kenning.domain.write_rules import parse_trigger
from kenning.errors import Invalid, Refused
from kenning.model import Trigger, TriggerTool


@pytest.mark.parametrize(("trigger", "error", "says"), [
    ("shell:(a+)+$", Refused, "nests one repeat inside another"),
    ("shell:(x+x+)+y", Refused, "nests one repeat inside another"),
    ("shell:^(a|ab)*c", Refused, "repeats alternatives that can match the same text"),
    ("shell:^git (push|[a-z]+)+ --force", Refused, "repeats alternatives"),
    ("shell:^(?=git)git push", Invalid, "look-ahead"),
    (r"shell:^(git) \1", Invalid, "back-reference"),
    ("shell:^curl -H 'Authorization: Bearer ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'", Refused, "holds a secret"),
    ("shell:^npm " + "x" * 400, Invalid, "characters long"),
])  # fmt: skip
def test_a_dangerous_trigger_is_refused_with_a_fix(trigger: str, error: type[Exception], says: str) -> None:
    with pytest.raises(error) as refused:
        parse_trigger(trigger)
    assert says in refused.value.message and refused.value.fix  # type: ignore[attr-defined]


@pytest.mark.parametrize("trigger", ["shell:^git push .*--force", "shell:^(git|gh) push", "shell:(?i)^NPM publish",
                                     r"shell:\bterraform (apply|destroy)\b", "shell:(foo|bar)+ --x"])  # fmt: skip
def test_ordinary_triggers_pass_and_match(trigger: str) -> None:
    parsed = parse_trigger(trigger)
    assert parsed is not None and parsed.tool is TriggerTool.SHELL


def test_matching_is_re2_and_keeps_what_the_patterns_mean() -> None:
    assert shell_fires("^git push .*--force", "git push origin main --force")
    assert not shell_fires("^git push .*--force", "git status")
    assert shell_fires("(?i)^npm publish", "NPM publish --tag next")
    assert shell_fires(r"\bterraform (apply|destroy)\b", "cd infra && terraform apply -auto-approve")
    # A pattern only a backtracking engine runs (stored before the checks) never fires.
    assert not shell_fires("^(?=git)git", "git push")
    # The shape that held a hook for 12 s under Python's re answers at once.
    assert not shell_fires("(a+)+$", "a" * 4000 + "!")


def test_remember_refuses_a_catastrophic_trigger_and_stores_nothing(core: Core, place: Place) -> None:
    request = RememberRequest(text="Run the linter before pushing", when=Trigger(TriggerTool.SHELL, "(a+)+$"))
    with pytest.raises(Refused):
        core.remember(place, request)
    assert core.list_memories(place) == []


def test_a_hook_with_a_stored_catastrophic_trigger_still_answers(tmp_path: Path, kenning_home: Path, core: Core,
                                                                 place: Place) -> None:  # fmt: skip
    """Written raw, as an older kenning let it through: the PreToolUse hook still answers (the
    lesson whose normal trigger matches arrives; the catastrophic one never fires)."""
    made = core.remember(place, RememberRequest(text="Check the cache key before a deploy",
                                                when=Trigger(TriggerTool.SHELL, "^aaaa")))  # fmt: skip
    assert made.memory is not None
    db = core.stores.db  # type: ignore[attr-defined]  # the SQLite bundle's file: an older kenning wrote it
    db.execute("UPDATE memories SET trigger = 'shell:(a+)+$' WHERE ref != ?", (made.memory.ref,))
    db.execute(
        "INSERT INTO memories (ref, workspace, scope, text, kind, trigger, confidence, origin, created_at, confirmed_at)"
        " SELECT 'm:0000dead', workspace, scope, 'An old lesson', 'lesson', 'shell:(a+)+$', 0.7, 'agent',"
        " created_at, confirmed_at FROM memories WHERE ref = ?",
        (made.memory.ref,),
    )
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    payload = {"session_id": "s-trig", "transcript_path": "", "cwd": str(repo), "hook_event_name": "PreToolUse",
               "tool_name": "Bash", "tool_input": {"command": "a" * 40 + "!"}, "tool_use_id": "toolu_1",
               "permission_mode": "default"}  # fmt: skip
    env = {**os.environ, "KENNING_HOME": str(kenning_home), "KENNING_HOLDOUT": "off", "KENNING_BACKGROUND": "off",
           "KENNING_WORKSPACE": core.workspace}  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "kenning.hooks.main", "claude-code", "PreToolUse"],
                          input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=60)  # fmt: skip
    assert done.returncode == 0
    assert "An old lesson" not in done.stdout.decode()
