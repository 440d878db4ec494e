"""The Codex harness against the real ``codex exec`` 0.169: scripted Responses API, hooks, trust.

No kenning here: plain shell hooks record their stdin. These pin down what `kenning install
codex` has to do (write ``~/.codex/hooks.json`` and trust each hook in ``config.toml``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e_support import Json, Workspace
from model_server import Step
from other_agents import Codex, codex_trust_toml
from responses_server import ResponsesServer

pytestmark = pytest.mark.e2e

EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"]


@pytest.fixture
def codex(codex_cli: Path, workspace: Workspace) -> Codex:
    return Codex(codex_cli, workspace)


def _recording_hooks(codex: Codex) -> tuple[Path, Json]:
    record = codex.ws.root / "hook-stdin.jsonl"
    script = codex.ws.root / "record-hook"
    script.write_text(f"#!/bin/sh\ncat >> '{record}'\necho >> '{record}'\n")
    script.chmod(0o755)
    hooks = {"hooks": {e: [{"hooks": [{"type": "command", "command": str(script), "timeout": 10}]}]
                       for e in EVENTS}}
    codex.codex_home.mkdir(parents=True, exist_ok=True)
    (codex.codex_home / "hooks.json").write_text(json.dumps(hooks))
    return record, hooks


def _script(codex: Codex) -> list[Step]:
    (codex.ws.repo / "notes.txt").write_text("ship-it-41\n")
    return [Step.call("exec_command", {"cmd": "cat notes.txt"}, text="Reading the notes."),
            Step.say("The notes say ship-it-41.")]


def test_trusted_hooks_run_and_the_rollout_is_written(codex: Codex) -> None:
    record, hooks = _recording_hooks(codex)
    with ResponsesServer(script=_script(codex)) as model:
        codex.write_config(model.url, "\n" + codex_trust_toml(codex.codex_home / "hooks.json", hooks))
        run = codex.run("What do the notes say?")
    assert run.returncode == 0, run.describe()
    assert model.unused_steps == 0
    [command] = run.items("command_execution")
    assert command["exit_code"] == 0 and "ship-it-41" in command["aggregated_output"]
    assert run.items("agent_message")[-1]["text"] == "The notes say ship-it-41."
    # The command's output went back to the model as the function call's output.
    second = json.dumps(model.main_requests[1]["input"])
    assert "function_call_output" in second and "ship-it-41" in second

    payloads = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
    assert [p["hook_event_name"] for p in payloads] == EVENTS
    pre = payloads[2]
    assert pre["tool_name"] == "Bash" and pre["tool_input"] == {"command": "cat notes.txt"}
    [rollout] = codex.rollouts()
    assert payloads[0]["transcript_path"] == str(rollout)
    kinds = {json.loads(line)["type"] for line in rollout.read_text().splitlines()}
    assert {"session_meta", "response_item", "event_msg"} <= kinds
    assert "What do the notes say?" in rollout.read_text()


def test_untrusted_hooks_do_not_run(codex: Codex) -> None:
    """Without the trust entries Codex skips the hooks silently: install must write them."""
    record, _ = _recording_hooks(codex)
    with ResponsesServer(script=_script(codex)) as model:
        codex.write_config(model.url)
        run = codex.run("What do the notes say?")
    assert run.returncode == 0, run.describe()
    assert run.items("command_execution"), "the scripted command did not run"
    assert not record.exists(), "an untrusted hook ran"
