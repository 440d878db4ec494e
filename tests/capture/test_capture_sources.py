"""Each source reads its tool's transcripts (in the shapes the tools write) into events."""

from __future__ import annotations

from pathlib import Path

from capture_fixtures import CLAUDE_SESSION, SECRETS, copy_real_fixture

from kenning.capture.events import Event
from kenning.capture.sources import claude_code, codex, gemini, opencode
from kenning.capture.sync import discover


def _read_all(module, source) -> list[Event]:  # type: ignore[no-untyped-def]
    return module.read(source, 0, {}).events


def test_discover_finds_every_tool_and_skips_sidecars(home: Path) -> None:
    found = discover(home)
    names = sorted((s.tool, s.path.name, s.key) for s in found)
    assert ("claude-code", f"{CLAUDE_SESSION}.jsonl", "") in names
    assert ("claude-code", "agent-a1b2c3.jsonl", "") in names
    assert not any("tool-results" in str(s.path) for s in found)
    assert {s.tool for s in found} == {"claude-code", "codex", "gemini", "opencode"}
    assert ("opencode", "opencode.db", "ses_01JABC") in names


def test_claude_profiles_and_config_dir_are_found(tmp_path: Path, home: Path) -> None:
    other = home / ".claude-work" / "projects" / "p"
    other.mkdir(parents=True)
    (other / "s1.jsonl").write_text("")
    custom = tmp_path / "elsewhere"
    (custom / "projects" / "q").mkdir(parents=True)
    (custom / "projects" / "q" / "s2.jsonl").write_text("")
    paths = {s.path.name for s in claude_code.discover(home, {"CLAUDE_CONFIG_DIR": str(custom)})}
    assert {"s1.jsonl", "s2.jsonl", f"{CLAUDE_SESSION}.jsonl"} <= paths


def test_claude_keeps_only_typed_prompts(home: Path) -> None:
    source = next(s for s in claude_code.discover(home) if s.path.name == f"{CLAUDE_SESSION}.jsonl")
    result = claude_code.read(source, 0, {})
    users = [e.text for e in result.events if e.role == "user"]
    assert users == [
        "Why does the login test fail on CI but not locally?",
        "Also check the settings file please.",
        "and bump the version to 1.4.2 while you are at it",
        "We decided to use Postgres for the sessions table; I prefer one database for everything.",
    ]
    everything = " ".join(e.text for e in result.events)
    # Hook and harness injections never come back as anything said in the session.
    assert "KENNING MEMORY" not in everything
    assert "/clear" not in everything and "init is analyzing" not in everything
    assert "half writ" not in everything
    # Bad lines (not JSON, invalid UTF-8) are skipped and counted; the half line is left for later.
    assert result.skipped_lines == 2
    assert result.offset == source.path.read_bytes().rindex(b"\n") + 1


def test_claude_roles_tools_files_and_compaction(home: Path) -> None:
    source = next(s for s in claude_code.discover(home) if s.path.name == f"{CLAUDE_SESSION}.jsonl")
    events = _read_all(claude_code, source)
    assert all(e.session == f"claude:{CLAUDE_SESSION}" and e.tool == "claude-code" for e in events)
    assert events[0].role == "summary" and events[0].text == "Fix CI-only login test failure"
    bash = next(e for e in events if e.tool_calls and e.tool_calls[0].name == "Bash")
    assert bash.tool_calls[0].summary == "pytest -q tests/test_login.py"
    edit = next(e for e in events if "root cause" in e.text)
    assert edit.files == ("/home/alice/src/shop/tests/conftest.py",) and "hmm" not in edit.text
    tool = next(e for e in events if e.role == "tool")
    assert "FAILED tests/test_login.py" in tool.text
    assert any(e.role == "summary" and "pinned TZ=UTC" in e.text for e in events)
    assert {e.cwd for e in events[1:]} == {"/home/alice/src/shop"} and events[1].branch == "fix/login-tz"


def test_claude_subagent_belongs_to_its_session(home: Path) -> None:
    source = next(s for s in claude_code.discover(home) if s.path.name == "agent-a1b2c3.jsonl")
    events = _read_all(claude_code, source)
    assert [e.subagent for e in events] == ["agent-a1b2c3", "agent-a1b2c3"]
    assert events[0].session == f"claude:{CLAUDE_SESSION}"
    assert "set_session_cookie" in events[1].text


def test_claude_incremental_read_resumes_at_offset(home: Path) -> None:
    source = next(s for s in claude_code.discover(home) if s.path.name == f"{CLAUDE_SESSION}.jsonl")
    first = claude_code.read(source, 0, {})
    with source.path.open("ab") as fh:
        fh.write(b'ten"}, "uuid": "ffff0000-0000-4000-8000-000000000001", "sessionId": "' + CLAUDE_SESSION.encode()
                 + b'"}\n')
    second = claude_code.read(source, first.offset, first.context)
    # The line left half-written by the first read is read whole once it is finished.
    assert second.offset == source.path.stat().st_size
    assert [(e.role, e.text, e.uid) for e in second.events] == [
        ("user", "half written", "ffff0000-0000-4000-8000-000000000001")]


def test_real_claude_code_fixture(tmp_path: Path) -> None:
    path = copy_real_fixture(tmp_path / "home")
    events = claude_code.read(claude_code.discover(tmp_path / "home")[0], 0, {}).events
    users = [e for e in events if e.role == "user"]
    # The prompt was queued and then sent: kept once.
    assert len(users) == 1 and users[0].text.startswith("The login test fails on CI")
    text = " ".join(e.text for e in events)
    assert "You are powered by the model" not in text and "Today's date" not in text
    assert "git status at the start" not in text
    assert path.exists()


def test_codex_rollout(home: Path) -> None:
    source = codex.discover(home)[0]
    result = codex.read(source, 0, {})
    events = result.events
    assert [e.text for e in events if e.role == "user"] == ["fix the failing login test"]
    assert all(e.session == "codex:0199a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b" for e in events)
    outputs = [e for e in events if e.role == "tool"]
    assert len(outputs) == 1 and outputs[0].text == "1 failed, 7 passed"  # mirrored output kept once
    patch = next(e for e in events if e.tool_calls and e.tool_calls[0].name == "apply_patch")
    assert patch.files == ("tests/conftest.py",)
    assistant = [e.text for e in events if e.role == "assistant" and e.text]
    assert len(assistant) == 1 and SECRETS["@@SECRET_GITHUB@@"] in assistant[0]  # redaction is sync's job
    assert events[0].branch == "fix/login-tz" and events[0].cwd == "/home/alice/src/shop"
    assert any(e.role == "summary" for e in events)
    # The last line is half-written: not consumed.
    assert result.offset < source.path.stat().st_size
    again = codex.read(source, result.offset, result.context)
    assert again.events == [] and again.offset == result.offset


def test_codex_home_override(tmp_path: Path, home: Path) -> None:
    custom = tmp_path / "ch"
    target = custom / "sessions" / "2026" / "01" / "02" / "rollout-x.jsonl"
    target.parent.mkdir(parents=True)
    target.write_text("")
    assert [s.path for s in codex.discover(home, {"CODEX_HOME": str(custom)})] == [target]


def test_gemini_json_and_jsonl_semantics(home: Path) -> None:
    sources = {s.path.suffix: s for s in gemini.discover(home)}
    legacy = _read_all(gemini, sources[".json"])
    assert [(e.role, e.text) for e in legacy] == [
        ("user", "How do I rotate the signing key?"),
        ("assistant", "Run scripts/rotate_key.sh; it writes the new key to the vault."),
    ]
    assert legacy[1].files == ("/home/alice/src/shop/scripts/rotate_key.sh",)
    assert legacy[0].cwd == "/home/alice/src/shop"
    log = gemini.read(sources[".jsonl"], 0, {})
    assert log.replace
    texts = [(e.uid, e.text) for e in log.events]
    # g1 was replaced by its later record; u2/g2 were rewound away.
    assert texts == [
        ("u1", "Add rate limiting to the login endpoint"),
        ("g1", "I will add a token bucket in shop/ratelimit.py."),
        ("u3", "Keep the token bucket but make the burst 20"),
        ("g3", "Set the burst to 20 in shop/ratelimit.py."),
    ]
    assert log.events[0].session == "gemini:d00dfeed-aaaa-4bbb-8ccc-ddddeeeeffff"


def test_opencode_database_read_only(home: Path) -> None:
    source = opencode.discover(home)[0]
    before = source.path.read_bytes()
    events = _read_all(opencode, source)
    assert [(e.role, e.text) for e in events] == [
        ("user", "Set long cache headers on the static assets"),
        ("assistant", "I set Cache-Control max-age=31536000 for /static in nginx.conf."),
    ]
    assert events[1].files == ("/home/alice/src/shop/nginx.conf",)
    assert events[1].tool_calls[0].name == "edit"
    assert source.path.read_bytes() == before
    fp = opencode.fingerprint(source)
    assert fp == opencode.fingerprint(source)
