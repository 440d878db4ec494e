"""The seven scenarios of issue 8: the real Claude Code driving kenning's hooks, MCP server and
capture, with kenning installed into a temp HOME by `kenning install`.

Every assertion is on what the real client did: the request bodies it sent the scripted
model, the hook outcomes it printed, the tool results it fed back, files, and the store.
"""

from __future__ import annotations

import json

import pytest
from e2e_support import KENNING, Claude, StreamRun, request_text, require_kenning, tool_result_for
from kenning_agent import (
    HOLDOUT,
    IN_GROUP,
    SECRET_AWS_KEY,
    SECRET_PASSWORD,
    SETTINGS_ENV,
    db_bytes,
    hook_json,
    hook_output,
    install_kenning,
    remember,
    store_rows,
)
from model_server import ModelServer, Step, Until

from kenning.context.asks import RECALL_ASK, STOP_ASK
from kenning.context.brief import RECALL_LINE
from kenning.mcp.server import RECALL_LINE as MCP_RECALL_LINE

pytestmark = pytest.mark.e2e

PROMPT = ("The login test fails on CI but not locally. We decided to pin TZ in the tests rather than "
          "change the CI image, because the image is shared with other teams. Please fix it.")
ALLOWED = "Bash Read Edit Write mcp__kenning"


@pytest.fixture
def kclaude(claude: Claude) -> Claude:
    """Claude Code with kenning installed into its temp HOME (hooks and MCP)."""
    install_kenning(claude.ws)
    # The agent must run this checkout's kenning, whatever else is on PATH.
    home = claude.ws.home
    for config in (home / ".claude" / "settings.json", home / ".claude.json"):
        assert str(KENNING.parent) in config.read_text(), f"{config} does not point at {KENNING.parent}"
    return claude


def _run(claude: Claude, script: list[Step], prompt: str = PROMPT, env: dict[str, str] | None = None,
         ) -> tuple[StreamRun, ModelServer]:
    with ModelServer(script=script) as model:
        run = claude.run(prompt, model.url, allowed=ALLOWED, env={**IN_GROUP, **(env or {})})
    assert run.returncode == 0, run.describe()
    assert run.result.get("subtype") == "success", run.describe()
    return run, model


def _ok(run: StreamRun) -> None:
    bad = [r for r in run.hook_responses() if r["outcome"] != "success"]
    assert not bad, f"hooks did not succeed: {bad}"


def _recall_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if "recall" in line]
    assert lines, f"no line asks to call recall in: {text!r}"
    return lines[0]


def _sent_after(model: ModelServer, n: int) -> str:
    """The text of the n-th main request (0-based) the CLI sent the model."""
    return request_text(model.main_requests[n])


# 1 -------------------------------------------------------------------------------------------
def test_session_start_brief_reaches_the_model(kclaude: Claude) -> None:
    run, model = _run(kclaude, [Step.say("Understood.")])
    _ok(run)
    [start] = run.hook_responses("SessionStart")
    brief = hook_output(start)
    assert brief, f"SessionStart gave no brief: {start}"
    assert len(brief) <= 1500
    assert "fix/login-tz" in brief, brief  # scope: the branch
    assert "recall" in brief, brief  # the one line pointing at recall
    # What Claude Code actually sent the model carries the brief, recall line included.
    assert _recall_line(brief) in _sent_after(model, 0)
    assert brief.splitlines()[0] in _sent_after(model, 0)


# 2 -------------------------------------------------------------------------------------------
def test_first_prompt_asks_for_recall_and_recall_answers_through_mcp(kclaude: Claude) -> None:
    ws = kclaude.ws
    ref = remember(ws, "We pin TZ in the tests rather than change the CI image",
                   "--kind", "decision", "--reason", "the CI image is shared with other teams")
    script = [Step.call("mcp__kenning__recall", {"query": "pin TZ in the tests or change the CI image"},
                        text="Let me look this up."),
              Step.say("Found the earlier decision.")]
    run, model = _run(kclaude, script)
    _ok(run)
    [prompt_hook] = run.hook_responses("UserPromptSubmit")
    ask = hook_output(prompt_hook)
    assert _recall_line(ask) in _sent_after(model, 0), prompt_hook
    assert any(s["name"] == "kenning" for s in run.init["mcp_servers"]), run.init["mcp_servers"]

    [result] = run.tool_results()
    assert not result.get("is_error"), result
    assert ref in json.dumps(result) and "pin TZ" in json.dumps(result)
    # ...and that tool result is what the model got back on its next turn.
    sent_back = tool_result_for(model.main_requests[1], result["tool_use_id"])
    assert sent_back is not None and ref in json.dumps(sent_back)


# 3 -------------------------------------------------------------------------------------------
# The command prints RAN-42 only when it really runs; the token is not in the command's text.
RUNS = "python3 -m pytest -q tests 2>&1 | tail -1; printf 'RAN-%s\\n' 42 | tee -a ran.txt"


def test_a_lesson_holds_the_first_matching_call_and_arrives_before_it_runs(kclaude: Claude) -> None:
    ws = kclaude.ws
    ref = remember(ws, "Run pytest with TZ=UTC exported, because CI has no TZ", "--kind", "lesson",
                   "--when", "shell:pytest")
    call = Step.call("Bash", {"command": RUNS, "description": "Run tests"})
    run, model = _run(kclaude, [call, call, Step.say("Done.")])
    _ok(run)
    held, passed = run.hook_responses("PreToolUse")
    assert hook_json(held)["hookSpecificOutput"]["permissionDecision"] == "deny", held
    assert ref in hook_output(held) and "TZ=UTC exported" in hook_output(held)
    assert hook_output(passed) == "", "the call issued again was held a second time"
    # The request that follows the matching call carries the lesson, and no result of the call.
    after_call = _sent_after(model, 1)
    assert "TZ=UTC exported" in after_call and "RAN-42" not in after_call
    first_result = tool_result_for(model.main_requests[1])
    assert first_result is not None and first_result.get("is_error") is True, first_result
    # The call issued again ran, once, and its result reached the model after the lesson.
    after_retry = _sent_after(model, 2)
    assert after_retry.index("TZ=UTC exported") < after_retry.index("RAN-42")
    assert (ws.repo / "ran.txt").read_text().split() == ["RAN-42"]
    assert run.result["result"] == "Done."


def test_lessons_fire_on_matching_calls_once_per_session(kclaude: Claude) -> None:
    ws = kclaude.ws
    remember(ws, "Run pytest with TZ=UTC exported, because CI has no TZ", "--kind", "lesson",
             "--when", "shell:pytest")
    remember(ws, "Login tests share the clock fixture; freeze it with freezegun, never sleep", "--kind",
             "lesson", "--when", "read:tests/test_login*.py")
    test_file = ws.repo / "tests" / "test_login.py"
    tests = Step.call("Bash", {"command": "python3 -m pytest -q tests 2>&1 | tail -1 || true",
                               "description": "Run tests"})
    read = Step.call("Read", {"file_path": str(test_file)})
    script = [
        tests, tests,  # held once with the lesson, then run
        Step.call("Bash", {"command": "python3 -m pytest -q tests/test_login.py 2>&1 | tail -1 || true",
                           "description": "Run the login test"}),
        read, read,  # the read lesson holds the first read only
        Step.call("Bash", {"command": "ls", "description": "List files"}),
        Step.say("Done."),
    ]
    run, model = _run(kclaude, script)
    _ok(run)
    pre = [hook_output(r) for r in run.hook_responses("PreToolUse")]
    assert len(pre) == 6, pre
    assert "TZ=UTC" in pre[0] and pre[1] == ""
    assert "TZ=UTC" not in pre[2], "a lesson fired twice in one session"
    assert "freezegun" in pre[3] and "TZ=UTC" not in pre[3] and pre[4] == ""
    assert pre[5] == ""
    # The lessons reached the model once each, the first time before the call they matched.
    final = _sent_after(model, 6)
    assert final.count("TZ=UTC exported") == 1
    assert final.count("freeze it with freezegun") == 1
    assert "TZ=UTC exported" not in _sent_after(model, 0)
    assert "freezegun" not in _sent_after(model, 3)
    assert "freezegun" in _sent_after(model, 4) and "tzinfo is None" not in _sent_after(model, 4)
    assert "tzinfo is None" in _sent_after(model, 5)  # the second read ran


# 4 -------------------------------------------------------------------------------------------
def _edit_then_stop(test_file: str, recall_first: bool) -> list[Step]:
    steps = [Step.call("mcp__kenning__recall", {"query": "login test timezone on CI"})] if recall_first else []
    return [*steps,
            Step.call("Edit", {"file_path": test_file, "old_string": "tzinfo is None",
                               "new_string": "tzinfo is None  # TZ pinned"}),
            Step.say("Fixed the test."),
            Step.say("Looked it up; nothing changes.")]


def test_end_of_turn_sends_a_session_that_never_recalled_back_once(kclaude: Claude) -> None:
    test_file = str(kclaude.ws.repo / "tests" / "test_login.py")
    run, model = _run(kclaude, _edit_then_stop(test_file, recall_first=False))
    _ok(run)
    stops = run.hook_responses("Stop")
    assert len(stops) == 2, [hook_output(s) for s in stops]
    first, second = hook_json(stops[0]), hook_json(stops[1])
    assert first.get("decision") == "block" and "recall" in first.get("reason", ""), stops[0]
    assert second.get("decision") != "block", stops[1]
    # The reason came back to the model as its next turn, and the session then ended.
    assert first["reason"].splitlines()[0] in _sent_after(model, 2)
    assert len(model.main_requests) == 3
    assert run.result["result"] == "Looked it up; nothing changes."
    assert "# TZ pinned" in (kclaude.ws.repo / "tests" / "test_login.py").read_text()


def test_end_of_turn_leaves_a_session_that_recalled_alone(kclaude: Claude) -> None:
    test_file = str(kclaude.ws.repo / "tests" / "test_login.py")
    run, model = _run(kclaude, _edit_then_stop(test_file, recall_first=True))
    _ok(run)
    [stop] = run.hook_responses("Stop")
    assert hook_json(stop).get("decision") != "block", stop
    assert run.result["result"] == "Fixed the test."
    assert model.unused_steps == 1


# 5 -------------------------------------------------------------------------------------------
def test_remember_a_decision_is_refused_without_reason_then_stored(kclaude: Claude) -> None:
    text = "We keep the CI image unchanged and pin TZ in conftest"
    script = [Step.call("mcp__kenning__remember", {"text": text, "kind": "decision"}),
              Step.call("mcp__kenning__remember", {"text": text, "kind": "decision",
                                                   "reason": "the CI image is shared with other teams"}),
              Step.say("Recorded.")]
    run, model = _run(kclaude, script)
    _ok(run)
    refused, stored = run.tool_results()
    assert refused.get("is_error") is True, refused
    assert "reason" in json.dumps(refused)
    assert not stored.get("is_error"), stored
    ref = json.loads(stored["content"] if isinstance(stored["content"], str)
                     else stored["content"][0]["text"])["memory"]["ref"]
    # The store holds exactly the one decision, with its reason, written by the agent.
    rows = store_rows(kclaude.ws, "SELECT * FROM memories")
    assert len(rows) == 1, [dict(r) for r in rows]
    [memory] = json.loads(kclaude.ws.kenning("get", ref, "--json").stdout)
    # An agent's words come back quoted as data (docs/security.md).
    assert memory["text"] == f"«{text}»" and memory["reason"] == "«the CI image is shared with other teams»"
    assert memory["origin"] == "agent"


# 6 -------------------------------------------------------------------------------------------
def test_sync_captures_the_real_transcript_without_secrets_or_injected_text(kclaude: Claude) -> None:
    require_kenning("sessions sync")
    ws = kclaude.ws
    (ws.repo / "settings.env").write_text(SETTINGS_ENV)
    script = [Step.call("Bash", {"command": "cat settings.env && git status --short",
                                 "description": "Show settings and status"}),
              Step.call("Write", {"file_path": str(ws.repo / "tests" / "conftest.py"),
                                  "content": "import os\n\nos.environ.setdefault('TZ', 'UTC')\n"}),
              Step.say("Pinned TZ to UTC in tests/conftest.py.")]
    run, _ = _run(kclaude, script)
    _ok(run)
    transcript = kclaude.transcript(run.session_id)
    assert SECRET_PASSWORD in transcript.read_text()  # the CLI itself wrote the secret down
    injected = [hook_output(r) for r in run.hook_responses() if hook_output(r)]
    assert injected, "kenning injected nothing, so this test could not check re-capture"

    ws.kenning("sessions", "sync")
    raw = db_bytes(ws)
    assert SECRET_PASSWORD.encode() not in raw
    assert SECRET_AWS_KEY.encode() not in raw

    # The person's turn and the tool calls are searchable.
    said_hits = json.loads(ws.kenning("sessions", "search", "pin TZ image shared with other teams", "--json").stdout)
    assert any(h["role"] == "user" and "shared with other teams" in h["evidence"] for h in said_hits), said_hits
    tool_hits = json.loads(ws.kenning("sessions", "search", "cat settings.env", "--json").stdout)
    assert any(h["role"] == "tool" and "settings.env" in h["evidence"] for h in tool_hits), tool_hits
    # All of it filed under the repository's project, the person's words included.
    assert len({h["project"] for h in said_hits + tool_hits}) == 1, said_hits + tool_hits
    # kenning's own words (brief, asks, lessons) never come back as something the person said.
    said = [r["text"] for r in store_rows(ws, "SELECT text FROM capture_turns WHERE role = 'user'")]
    assert any("shared with other teams" in t for t in said), said
    for text in injected:
        for line in (ln.strip() for ln in text.splitlines()):
            if len(line) >= 20:
                assert not any(line in t for t in said), f"injected text captured as the user's: {line!r}"


# 7 -------------------------------------------------------------------------------------------
MCP_INSTRUCTION = "kenning is this project's memory"


def test_a_holdout_session_gets_no_pointing(kclaude: Claude) -> None:
    ws = kclaude.ws
    remember(ws, "Run pytest with TZ=UTC exported, because CI has no TZ", "--kind", "lesson",
             "--when", "shell:pytest")
    test_file = str(ws.repo / "tests" / "test_login.py")
    # Claude Code connects MCP servers in the background ("pending" at init) and adds a
    # server's instruction once it is connected: wait for it (at most 30 short turns), so the
    # check below covers the standing instruction too.
    script = [Until(lambda body: MCP_INSTRUCTION in request_text(body),
                    then=Step.call("Bash", {"command": "python3 -m pytest -q tests 2>&1 | tail -1 || true",
                                            "description": "Run tests"}),
                    meanwhile=Step.call("Bash", {"command": "sleep 1", "description": "Wait"})),
              Step.call("Edit", {"file_path": test_file, "old_string": "tzinfo is None",
                                 "new_string": "tzinfo is None  # TZ pinned"}),
              Step.say("Fixed the test."),
              Step.say("UNUSED: a holdout session must not be sent back.")]
    run, model = _run(kclaude, script, env=HOLDOUT)
    _ok(run)
    [start] = run.hook_responses("SessionStart")
    assert "recall" not in hook_output(start)
    [prompt] = run.hook_responses("UserPromptSubmit")
    assert "recall" not in hook_output(prompt)
    assert all(hook_output(r) == "" for r in run.hook_responses("PreToolUse")), "a holdout session got a lesson"
    [stop] = run.hook_responses("Stop")
    assert hook_json(stop).get("decision") != "block"
    assert model.unused_steps == 1
    [group] = store_rows(ws, "SELECT holdout FROM hook_sessions WHERE session LIKE ?", (f"%{run.session_id}",))
    assert group["holdout"] == 1, "the session's group was not recorded as holdout"
    everything = "\n".join(request_text(b) for b in model.main_requests)
    assert "TZ=UTC exported" not in everything
    # No path points the session at recall, the MCP server's standing instruction included
    # (it reached the model: its first line is there).
    assert MCP_INSTRUCTION in everything, "the MCP server never connected"
    for pointing in (RECALL_LINE, RECALL_ASK, STOP_ASK, MCP_RECALL_LINE.lstrip("- ")):
        assert pointing not in everything, pointing
