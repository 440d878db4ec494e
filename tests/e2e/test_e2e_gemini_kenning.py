"""The real ``gemini -p`` 0.61 with kenning installed by `kenning install gemini`.

Covers the session start hook (the brief reaches the model), the tool-call hook (BeforeTool
holds the first matching call once, so the lesson arrives before the call runs) and capture of
the session file Gemini CLI wrote.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_support import Workspace, require_kenning
from gemini_server import GeminiServer
from kenning_agent import IN_GROUP, SECRET_PASSWORD, SETTINGS_ENV, db_bytes, install_kenning, remember
from model_server import Step
from other_agents import Gemini, gemini_request_text

pytestmark = pytest.mark.e2e


@pytest.fixture
def kgemini(gemini_cli: Path, workspace: Workspace) -> Gemini:
    gemini = Gemini(gemini_cli, workspace)
    gemini.write_settings({})
    install_kenning(workspace, "gemini")
    return gemini


def test_gemini_gets_the_brief_and_a_lesson_before_the_call(kgemini: Gemini) -> None:
    ws = kgemini.ws
    remember(ws, "Run pytest with TZ=UTC exported, because CI has no TZ", "--kind", "lesson",
             "--when", "shell:pytest")
    # RAN-42 is printed only when the command runs; the token is not in the command's text.
    call = Step.call("run_shell_command", {"command": "python3 -m pytest -q tests 2>&1 | tail -1; "
                                                      "printf 'RAN-%s\\n' 42 | tee -a ran.txt"})
    with GeminiServer(script=[call, call, Step.say("Tests ran.")], model="gemini-2.5-pro") as model:
        run = kgemini.run("Run the tests.", model.url, env=IN_GROUP)
    assert run.returncode == 0, run.describe()
    first = gemini_request_text(model.main_requests[0])
    assert "fix/login-tz" in first and "recall" in first, "the brief did not reach the model"
    assert "TZ=UTC exported" not in first
    after_call = gemini_request_text(model.main_requests[1])
    assert "TZ=UTC exported" in after_call, "the lesson did not reach the model"
    assert "RAN-42" not in after_call, "the call ran before the lesson arrived"
    after_retry = gemini_request_text(model.main_requests[2])
    assert after_retry.index("TZ=UTC exported") < after_retry.index("RAN-42")
    assert (ws.repo / "ran.txt").read_text().split() == ["RAN-42"]


def test_sync_captures_the_gemini_session_without_secrets(kgemini: Gemini) -> None:
    require_kenning("sessions sync")
    ws = kgemini.ws
    (ws.repo / "settings.env").write_text(SETTINGS_ENV)
    script = [Step.call("run_shell_command", {"command": "cat settings.env"}), Step.say("Read the settings.")]
    with GeminiServer(script=script, model="gemini-2.5-pro") as model:
        run = kgemini.run("Show me settings.env, we keep the staging database there.", model.url, env=IN_GROUP)
    assert run.returncode == 0, run.describe()
    [transcript] = kgemini.transcripts()
    assert SECRET_PASSWORD in transcript.read_text()
    ws.kenning("sessions", "sync")
    assert SECRET_PASSWORD.encode() not in db_bytes(ws)
    found = ws.kenning("sessions", "search", "staging database settings", "--json").stdout
    assert "staging database" in found, found


def test_gemini_calls_recall_through_its_mcp_client(kgemini: Gemini) -> None:
    ws = kgemini.ws
    ref = remember(ws, "We pin TZ in the tests rather than change the CI image",
                   "--kind", "decision", "--reason", "the CI image is shared with other teams")
    script = [Step.call("mcp_kenning_recall", {"query": "pin TZ in the tests or change the CI image"}),
              Step.say("Found it.")]
    with GeminiServer(script=script, model="gemini-2.5-pro") as model:
        run = kgemini.run("Why do the tests pin TZ?", model.url, env=IN_GROUP)
    assert run.returncode == 0, run.describe()
    [tool_result] = [e for e in run.events if e.get("type") == "tool_result"]
    assert tool_result["status"] == "success", tool_result
    assert ref in gemini_request_text(model.main_requests[1]), "recall's result did not reach the model"
