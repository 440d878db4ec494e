"""The real ``codex exec`` 0.169 with kenning installed by `kenning install codex`.

Covers what the issue asks of Codex: the session start hook (brief reaches the model), the
tool-call hook (a lesson on the shell call), that install trusted its hooks (no bypass flag is
passed here), and capture of the rollout Codex wrote.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e_support import Json, Workspace, require_kenning
from kenning_agent import IN_GROUP, SECRET_PASSWORD, SETTINGS_ENV, db_bytes, install_kenning, remember
from model_server import Step, Until
from other_agents import Codex
from responses_server import ResponsesServer

pytestmark = pytest.mark.e2e


@pytest.fixture
def kcodex(codex_cli: Path, workspace: Workspace) -> Codex:
    codex = Codex(codex_cli, workspace)
    install_kenning(workspace, "codex")
    return codex


def _input_text(body: Json) -> str:
    return json.dumps(body.get("input", []), ensure_ascii=False)


def test_codex_gets_the_brief_and_a_lesson_from_trusted_hooks(kcodex: Codex) -> None:
    ws = kcodex.ws
    hooks_file = kcodex.codex_home / "hooks.json"
    config = kcodex.codex_home / "config.toml"
    assert hooks_file.exists() or "[hooks" in config.read_text(), "install wrote no Codex hooks"
    assert "trusted_hash" in config.read_text(), "install did not trust its hooks"
    remember(ws, "Run pytest with TZ=UTC exported, because CI has no TZ", "--kind", "lesson",
             "--when", "shell:pytest")
    # RAN-42 is printed only when the command runs; the token is not in the command's text.
    call = Step.call("exec_command", {"cmd": "python3 -m pytest -q tests 2>&1 | tail -1; "
                                             "printf 'RAN-%s\\n' 42 | tee -a ran.txt"})
    with ResponsesServer(script=[call, call, Step.say("Tests ran.")]) as model:
        kcodex.write_config(model.url)
        run = kcodex.run("Run the tests.", env=IN_GROUP)
    assert run.returncode == 0, run.describe()
    first = _input_text(model.main_requests[0])
    assert "fix/login-tz" in first and "recall" in first, "the brief did not reach the model"
    assert "TZ=UTC exported" not in first
    # The first call was held: the next request carries the lesson and no result of the call.
    after_call = _input_text(model.main_requests[1])
    assert "TZ=UTC exported" in after_call, "the lesson did not reach the model"
    assert "RAN-42" not in after_call, "the call ran before the lesson arrived"
    # The call issued again ran once, and its output reached the model after the lesson.
    after_retry = _input_text(model.main_requests[2])
    assert after_retry.index("TZ=UTC exported") < after_retry.index("RAN-42")
    assert (ws.repo / "ran.txt").read_text().split() == ["RAN-42"]


def test_sync_captures_the_codex_rollout_without_secrets(kcodex: Codex) -> None:
    require_kenning("sessions sync")
    ws = kcodex.ws
    (ws.repo / "settings.env").write_text(SETTINGS_ENV)
    script = [Step.call("exec_command", {"cmd": "cat settings.env"}), Step.say("Read the settings.")]
    with ResponsesServer(script=script) as model:
        kcodex.write_config(model.url)
        run = kcodex.run("Show me settings.env, we keep the staging database there.", env=IN_GROUP)
    assert run.returncode == 0, run.describe()
    [rollout] = kcodex.rollouts()
    assert SECRET_PASSWORD in rollout.read_text()
    ws.kenning("sessions", "sync")
    assert SECRET_PASSWORD.encode() not in db_bytes(ws)
    found = ws.kenning("sessions", "search", "staging database settings", "--json").stdout
    assert "staging database" in found, found


def _has_kenning_tools(body: Json) -> bool:
    return any(isinstance(t, dict) and t.get("name") == "mcp__kenning" for t in body.get("tools") or [])


def test_codex_calls_recall_through_its_mcp_client(kcodex: Codex) -> None:
    """Codex lists an MCP server's tools as one namespace tool (``mcp__kenning``) once the
    server has started; the model calls ``recall`` inside that namespace."""
    ws = kcodex.ws
    ref = remember(ws, "We pin TZ in the tests rather than change the CI image",
                   "--kind", "decision", "--reason", "the CI image is shared with other teams")
    script: list[Step | Until] = [
        Until(_has_kenning_tools,
              then=Step.call("recall", {"query": "pin TZ in the tests or change the CI image"},
                             namespace="mcp__kenning"),
              meanwhile=Step.call("exec_command", {"cmd": "sleep 1"})),
        Step.say("Found it."),
    ]
    with ResponsesServer(script=script) as model:
        kcodex.write_config(model.url)
        run = kcodex.run("Why do the tests pin TZ?", env=IN_GROUP)
    assert run.returncode == 0, run.describe()
    assert _has_kenning_tools(model.main_requests[-1]), "Codex never listed kenning's MCP tools"
    outputs = [i for i in model.main_requests[-1]["input"] if i.get("type") == "function_call_output"]
    assert ref in json.dumps(outputs[-1]), outputs[-1]
