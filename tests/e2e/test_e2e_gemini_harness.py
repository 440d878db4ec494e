"""The Gemini CLI harness against the real ``gemini -p`` 0.61: scripted Gemini API and hooks.

No kenning here: plain shell hooks record their stdin, and one answers with context to show
the channel kenning uses (``hookSpecificOutput.additionalContext`` on BeforeAgent) reaches the model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e_support import Workspace
from gemini_server import GeminiServer
from model_server import Step
from other_agents import Gemini, gemini_request_text

pytestmark = pytest.mark.e2e

EVENTS = ["SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd"]


@pytest.fixture
def gemini(gemini_cli: Path, workspace: Workspace) -> Gemini:
    return Gemini(gemini_cli, workspace)


def test_gemini_runs_a_scripted_session_with_hooks(gemini: Gemini) -> None:
    ws = gemini.ws
    record = ws.root / "hook-stdin.jsonl"
    recorder = ws.root / "record-hook"
    # Gemini CLI reads hook stdout as JSON only, so the recorder answers with an empty object.
    recorder.write_text(f"#!/bin/sh\ncat >> '{record}'\necho >> '{record}'\necho '{{}}'\n")
    context = ws.root / "context-hook"
    context.write_text("#!/bin/sh\ncat >/dev/null\nprintf '%s' '{\"hookSpecificOutput\": {\"hookEventName\": "
                       "\"BeforeAgent\", \"additionalContext\": \"GEMINI-CONTEXT-2291\"}}'\n")
    for script in (recorder, context):
        script.chmod(0o755)
    hooks = {e: [{"hooks": [{"type": "command", "command": str(recorder), "timeout": 10000}]}]
             for e in EVENTS}
    hooks["BeforeAgent"].append({"hooks": [{"type": "command", "command": str(context), "timeout": 10000}]})
    gemini.write_settings({"hooks": hooks})
    (ws.repo / "notes.txt").write_text("ship-it-77\n")
    script = [Step.call("run_shell_command", {"command": "cat notes.txt"}, text="Reading."),
              Step.say("The notes say ship-it-77.")]
    with GeminiServer(script=script, model="gemini-2.5-pro") as model:
        run = gemini.run("What do the notes say?", model.url)
    assert run.returncode == 0, run.describe()
    assert model.unused_steps == 0
    result = next(e for e in run.events if e.get("type") == "result")
    assert result["status"] == "success"
    [tool_result] = [e for e in run.events if e.get("type") == "tool_result"]
    assert "ship-it-77" in tool_result["output"]
    assert "GEMINI-CONTEXT-2291" in gemini_request_text(model.main_requests[0])
    assert "ship-it-77" in gemini_request_text(model.main_requests[1])

    payloads = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
    assert [p["hook_event_name"] for p in payloads] == EVENTS
    before_tool = payloads[2]
    assert before_tool["tool_name"] == "run_shell_command"
    assert before_tool["tool_input"] == {"command": "cat notes.txt"}
    [transcript] = gemini.transcripts()
    assert payloads[0]["transcript_path"] == str(transcript)
    assert "What do the notes say?" in transcript.read_text()
