"""The harness itself, against the real Claude Code: it drives a whole session, and it can fail.

No kenning here: plain shell hooks record their stdin, so these tests prove what the scripted
model server and the stream parsing can see before the kenning scenarios rely on them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e_support import Claude, request_text, tool_result_for
from model_server import ModelServer, Step

pytestmark = pytest.mark.e2e

EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"]


def _hook_script(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


def test_real_claude_runs_a_scripted_session_with_hooks(claude: Claude) -> None:
    ws = claude.ws
    record = ws.root / "hook-stdin.jsonl"
    recorder = _hook_script(ws.root / "record-hook", f"cat >> '{record}'\necho >> '{record}'\n")
    context = _hook_script(ws.root / "context-hook",
                           "cat >/dev/null\nprintf '%s' '{\"hookSpecificOutput\": {\"hookEventName\": "
                           "\"UserPromptSubmit\", \"additionalContext\": \"HARNESS-CONTEXT-7731\"}}'\n")
    hooks = {e: [{"hooks": [{"type": "command", "command": recorder}]}] for e in EVENTS}
    hooks["UserPromptSubmit"].append({"hooks": [{"type": "command", "command": context}]})
    claude.write_settings({"hooks": hooks})
    (ws.repo / "settings.env").write_text("GREETING=hello-from-file\n")
    test_file = ws.repo / "tests" / "test_login.py"
    script = [
        Step.call("Read", {"file_path": str(test_file)}, text="I'll look at the test first."),
        Step.call("Bash", {"command": "cat settings.env", "description": "Show settings"}),
        Step.call("Write", {"file_path": str(ws.repo / "tests" / "conftest.py"),
                            "content": "import os\n\nos.environ.setdefault('TZ', 'UTC')\n"}),
        Step.call("Edit", {"file_path": str(test_file), "old_string": "tzinfo is None",
                           "new_string": "tzinfo is None  # TZ pinned in conftest"}),
        Step.say("Pinned TZ in conftest."),
    ]
    with ModelServer(script=script) as model:
        run = claude.run("The login test fails on CI. Please fix it.", model.url)
    assert run.returncode == 0, run.describe()
    assert run.result["subtype"] == "success" and run.result["result"] == "Pinned TZ in conftest."
    assert model.unused_steps == 0

    # The real tools ran: the files changed on disk, and the Bash output went back to the model.
    assert (ws.repo / "tests" / "conftest.py").read_text().startswith("import os")
    assert "# TZ pinned in conftest" in test_file.read_text()
    bash_result = tool_result_for(model.main_requests[2])
    assert bash_result is not None and "GREETING=hello-from-file" in json.dumps(bash_result)

    # The recorded request bodies hold the system prompt, the prompt and the hook's context.
    first = model.main_requests[0]
    assert "Claude" in request_text({"system": first["system"]})
    assert "Please fix it." in request_text(first)
    assert "HARNESS-CONTEXT-7731" in request_text(first)

    # Every configured hook event fired with Claude Code's own payload shape.
    payloads = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
    seen = [p["hook_event_name"] for p in payloads]
    for event in EVENTS:
        assert event in seen, f"{event} never fired; saw {seen}"
    assert {p["session_id"] for p in payloads} == {run.session_id}
    tools = [p["tool_name"] for p in payloads if p["hook_event_name"] == "PreToolUse"]
    assert tools == ["Read", "Bash", "Write", "Edit"]
    assert all(r["outcome"] == "success" for r in run.hook_responses()), run.hook_responses()

    # The transcript the CLI wrote is where capture will look for it.
    transcript = claude.transcript(run.session_id)
    assert payloads[0]["transcript_path"] == str(transcript)
    assert "The login test fails on CI" in transcript.read_text()


def test_a_hook_answering_with_the_wrong_event_name_is_an_error(claude: Claude) -> None:
    """Claude Code validates hook output: this is how a broken kenning hook would show up."""
    wrong = _hook_script(claude.ws.root / "wrong-hook",
                         "cat >/dev/null\nprintf '%s' '{\"hookSpecificOutput\": {\"hookEventName\": "
                         "\"PostToolUse\", \"additionalContext\": \"MUST-NOT-ARRIVE-5510\"}}'\n")
    claude.write_settings({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": wrong}]}]}})
    with ModelServer(script=[Step.say("ok")]) as model:
        run = claude.run("Say ok.", model.url)
    assert run.returncode == 0, run.describe()
    [response] = run.hook_responses("UserPromptSubmit")
    assert response["outcome"] == "error", response
    assert "incorrect event name" in response["stderr"]
    assert "MUST-NOT-ARRIVE-5510" not in request_text(model.main_requests[0])
