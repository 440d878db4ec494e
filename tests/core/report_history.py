"""Built histories for the memory report's tests: agent sessions with known deliveries,
citations and corrections, recorded the way the product records them — the real hook process
for every hook event, the MCP server's recording call for recall hits, and transcripts in each
tool's own format (Claude Code JSONL, a Codex rollout, a Gemini CLI chat log; the shapes of
tests/fixtures and docs in research/ecosystem.md) captured by the real `sessions sync`.

A uniquely named module (several test folders have a conftest.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kenning.clock import FixedClock, from_iso
from kenning.context import index as index_mod
from kenning.core import deliveries, work
from kenning.core.capture_job import sync_all
from kenning.core.remember import RememberRequest
from kenning.core.service import Core
from kenning.model import Citation, Kind, Origin, Trigger, TriggerTool

SHOP, SITE = "github.com/acme/shop", "github.com/acme/site"
NOW = datetime(2026, 3, 20, 12, 0, tzinfo=UTC)
IDS = {name: f"{n:08x}-0000-4000-8000-00000000000{n}" for n, name in enumerate("ABCDEFGHK", 1)}


def t(text: str) -> datetime:
    return from_iso(text)


# One transcript step: (time, what, data). what: user | say | call | result.
Step = tuple[str, str, Any]


def run_hook(tool: str, event: str, payload: dict[str, Any], home: Path, now: str, holdout: str) -> str:
    env = dict(os.environ, KENNING_HOME=str(home), KENNING_NOW=now, KENNING_HOLDOUT=holdout, KENNING_BACKGROUND="off")
    done = subprocess.run([sys.executable, "-m", "kenning.hooks.main", tool, event], input=json.dumps(payload).encode(),
                          capture_output=True, env=env, timeout=60, check=True)  # fmt: skip
    assert b"Traceback" not in done.stderr, done.stderr
    return done.stdout.decode()


def git_project(root: Path, remote: str) -> Path:
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "src" / "deploy.py").write_text("def ship():\n    return 'release workflow'\n")
    (root / "src" / "old.py").write_text("def legacy():\n    return 1\n")
    env = dict(os.environ, GIT_AUTHOR_NAME="A", GIT_AUTHOR_EMAIL="a@example.com", GIT_COMMITTER_NAME="A",
               GIT_COMMITTER_EMAIL="a@example.com", GIT_CONFIG_NOSYSTEM="1")  # fmt: skip
    for args in (["init", "-q", "-b", "main"], ["remote", "add", "origin", remote], ["add", "-A"], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return root


# ------------------------------------------------------------------------ transcripts


def claude_transcript(user_home: Path, session: str, cwd: Path, steps: list[Step]) -> Path:
    """Claude Code's JSONL (~/.claude/projects/<encoded cwd>/<session>.jsonl)."""
    folder = user_home / ".claude" / "projects" / str(cwd).replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for n, (at, what, data) in enumerate(steps):
        base = {"parentUuid": None, "isSidechain": False, "userType": "external", "entrypoint": "cli", "cwd": str(cwd),
                "sessionId": session, "version": "2.1.328", "gitBranch": "main", "uuid": f"u-{session[:8]}-{n}",
                "timestamp": at}  # fmt: skip
        if what == "user":
            lines.append({**base, "type": "user", "message": {"role": "user", "content": data}})
        elif what == "say":
            lines.append({**base, "type": "assistant", "message": {"id": f"msg_{n}", "type": "message", "role": "assistant",
                          "model": "claude-sonnet-5", "content": [{"type": "text", "text": data}]}})  # fmt: skip
        elif what == "call":
            name, tool_input = data
            lines.append({**base, "type": "assistant", "message": {"id": f"msg_{n}", "type": "message", "role": "assistant",
                          "model": "claude-sonnet-5", "content": [{"type": "tool_use", "id": f"toolu_{n}", "name": name,
                                                                   "input": tool_input}]}})  # fmt: skip
        elif what == "result":
            lines.append({**base, "type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{n - 1}", "content": data, "is_error": False}]}})  # fmt: skip
    path = folder / f"{session}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def codex_rollout(user_home: Path, session: str, cwd: Path, steps: list[Step]) -> Path:
    """A Codex rollout (~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl)."""
    start = steps[0][0]
    folder = user_home / ".codex" / "sessions" / start[:4] / start[5:7] / start[8:10]
    folder.mkdir(parents=True, exist_ok=True)
    lines: list[dict[str, Any]] = [{"timestamp": start, "type": "session_meta", "payload": {
        "id": session, "timestamp": start, "cwd": str(cwd), "originator": "codex_cli_rs", "cli_version": "0.169.0",
        "git": {"branch": "main"}, "instructions": "..."}}]  # fmt: skip
    for n, (at, what, data) in enumerate(steps):
        if what == "user":
            lines.append({"timestamp": at, "type": "response_item", "payload": {"type": "message", "role": "user",
                          "content": [{"type": "input_text", "text": data}]}})  # fmt: skip
            lines.append({"timestamp": at, "type": "event_msg", "payload": {"type": "user_message", "message": data}})
        elif what == "say":
            lines.append({"timestamp": at, "type": "response_item", "payload": {"type": "message", "role": "assistant",
                          "content": [{"type": "output_text", "text": data}]}})  # fmt: skip
        elif what == "call":
            name, tool_input = data
            if name == "apply_patch":
                lines.append({"timestamp": at, "type": "response_item", "payload": {
                    "type": "custom_tool_call", "name": "apply_patch", "call_id": f"call_{n}", "input": tool_input}})
            else:
                lines.append({"timestamp": at, "type": "response_item", "payload": {
                    "type": "function_call", "name": name, "arguments": json.dumps(tool_input), "call_id": f"call_{n}"}})
        elif what == "result":
            lines.append({"timestamp": at, "type": "response_item", "payload": {
                "type": "function_call_output", "call_id": f"call_{n - 1}", "output": data}})
    stamp = start[:19].replace(":", "-")
    path = folder / f"rollout-{stamp}-{session}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def gemini_chat(user_home: Path, session: str, cwd: Path, steps: list[Step]) -> Path:
    """A Gemini CLI chat log (~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl)."""
    project = user_home / ".gemini" / "tmp" / cwd.name
    (project / "chats").mkdir(parents=True, exist_ok=True)
    (project / ".project_root").write_text(f"{cwd}\n")
    start = steps[0][0]
    lines: list[dict[str, Any]] = [{"sessionId": session, "projectHash": "ab" * 32, "startTime": start,
                                    "lastUpdated": steps[-1][0], "kind": "main"}]  # fmt: skip
    for n, (at, what, data) in enumerate(steps):
        if what == "user":
            lines.append({"id": f"m{n}", "timestamp": at, "type": "user", "content": [{"text": data}]})
        elif what == "say":
            lines.append({"id": f"m{n}", "timestamp": at, "type": "gemini", "content": data, "toolCalls": []})
        elif what == "call":
            name, args = data
            lines.append({"id": f"m{n}", "timestamp": at, "type": "gemini", "content": "",
                          "toolCalls": [{"id": f"c{n}", "name": name, "args": args, "status": "success"}]})  # fmt: skip
    path = project / "chats" / f"session-{start[:16].replace(':', '-')}-{session[:8]}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@dataclass
class History:
    """What a built history holds, for the assertions."""

    refs: dict[str, str] = field(default_factory=dict)  # name -> ref
    sessions: dict[str, str] = field(default_factory=dict)  # name -> hook key ("<tool>:<id>")
    folders: dict[str, Path] = field(default_factory=dict)  # shop, site: the projects' git folders
    home: Path = Path()  # kenning's data folder


# ------------------------------------------------------------------------ the history



def remember(core: Core, repo: Path, text: str, **kw: object) -> str:
    kw.setdefault("origin", Origin.PERSON)
    result = core.remember(core.place(repo), RememberRequest(text=text, **kw))  # type: ignore[arg-type]
    assert result.memory is not None, result
    return result.memory.ref


def build_history(core: Core, clock: FixedClock, home: Path, user_home: Path, tmp: Path) -> History:
    shop = git_project(tmp / "src" / "shop", "https://github.com/acme/shop.git")
    site = git_project(tmp / "src" / "site", "https://github.com/acme/site.git")
    h = History(folders={"shop": shop, "site": site}, home=home)
    deploy = str(shop / "src" / "deploy.py")
    clock.set(t("2026-01-05T09:00:00Z"))
    h.refs["OLD"] = remember(core, shop, "The staging database was rebuilt from a snapshot.", kind=Kind.FACT)
    clock.set(t("2026-03-01T09:00:00Z"))
    r = h.refs
    r["L1"] = remember(core, shop, "Run npm publish with --dry-run before publishing a release.", kind=Kind.LESSON,
                       when=Trigger(TriggerTool.SHELL, r"^npm publish"))  # fmt: skip
    r["D1"] = remember(core, shop, "We ship releases through the release workflow because it tags the build.",
                       kind=Kind.DECISION, reason="it tags the build", source_ref="src/deploy.py")  # fmt: skip
    r["F1"] = remember(core, shop, "Release notes are written in the CHANGELOG by hand.", kind=Kind.FACT)
    r["P1"] = remember(core, shop, "The package is published under the acme scope on npm.", kind=Kind.FACT, index=True)
    r["I1"] = remember(core, shop, "Always run the unit tests before committing.", kind=Kind.FACT,
                       origin=Origin.AUTOMATION, source="claude-code-memory-file")  # fmt: skip
    r["I2"] = remember(core, shop, "Format Python with ruff format.", kind=Kind.FACT, origin=Origin.AUTOMATION,
                       source="codex-memory-file")  # fmt: skip
    r["C1"] = remember(core, shop, "The legacy helper returns one.", kind=Kind.FACT, source_ref="src/old.py")
    r["G1"] = remember(core, shop, "The legacy module is imported by the admin.", kind=Kind.FACT, source_ref="src/old.py")
    core.store.update(core.get(r["C1"]).evolve(citation=Citation.CHANGED))
    core.store.update(core.get(r["G1"]).evolve(citation=Citation.GONE))
    for name in IDS:
        tool = {"B": "codex", "F": "codex", "C": "gemini", "H": "gemini"}.get(name, "claude-code")
        h.sessions[name] = f"{tool}:{IDS[name]}"

    def claude(name: str, event: str, at: str, holdout: str = "off", cwd: Path = shop, **fields: object) -> str:
        payload = {"session_id": IDS[name], "transcript_path": "/dev/null", "cwd": str(cwd), "hook_event_name": event,
                   "permission_mode": "default", **fields}  # fmt: skip
        if event == "SessionStart":
            payload["source"] = "startup"
        return run_hook("claude-code", event, payload, home, at, holdout)

    def codex(name: str, event: str, at: str, **fields: object) -> str:
        payload = {"session_id": IDS[name], "turn_id": "1", "transcript_path": None, "cwd": str(shop),
                   "hook_event_name": event, "model": "gpt-5-codex", "permission_mode": "default", **fields}  # fmt: skip
        return run_hook("codex", event, payload, home, at, "on")

    def gemini(name: str, event: str, at: str, holdout: str, **fields: object) -> str:
        payload = {"session_id": IDS[name], "transcript_path": "/dev/null", "cwd": str(shop), "hook_event_name": event,
                   "timestamp": at, **fields}  # fmt: skip
        return run_hook("gemini", event, payload, home, at, holdout)

    # A — Claude Code, pointed: a lesson held before `npm publish` and cited; recall hits, one acted on.
    claude("A", "SessionStart", "2026-03-10T09:00:00Z")
    claude("A", "UserPromptSubmit", "2026-03-10T09:00:30Z", prompt="Publish the new release of the package to npm")
    held = claude("A", "PreToolUse", "2026-03-10T09:01:00Z", tool_name="Bash", tool_input={"command": "npm publish"})
    assert r["L1"] in held
    query = "publish the package release"
    claude("A", "PreToolUse", "2026-03-10T09:02:00Z", tool_name="mcp__kenning__recall", tool_input={"query": query})
    clock.set(t("2026-03-10T09:02:01Z"))
    assert deliveries.handed_out(core, "recall", [r["D1"], r["F1"]], asked=query, project=SHOP,
                                 tool="claude-code") == h.sessions["A"]  # fmt: skip
    claude_transcript(user_home, IDS["A"], shop, [
        ("2026-03-10T09:00:30Z", "user", "Publish the new release of the package to npm"),
        ("2026-03-10T09:01:00Z", "call", ("Bash", {"command": "npm publish"})),
        ("2026-03-10T09:01:01Z", "result", f"held: {r['L1']} Run npm publish with --dry-run first"),
        ("2026-03-10T09:01:05Z", "say", f"Following {r['L1']}, I run the dry run first."),
        ("2026-03-10T09:01:10Z", "call", ("Bash", {"command": "npm publish --dry-run"})),
        ("2026-03-10T09:01:12Z", "result", "ok"),
        ("2026-03-10T09:02:00Z", "call", ("mcp__kenning__recall", {"query": query})),
        ("2026-03-10T09:02:01Z", "result", f"{r['D1']} [decision] We ship releases … {r['F1']} [fact] Release notes …"),
        ("2026-03-10T09:03:00Z", "call", ("Edit", {"file_path": deploy, "old_string": "a", "new_string": "b"})),
        ("2026-03-10T09:03:01Z", "result", "ok"),
        ("2026-03-10T09:04:00Z", "user", "no, that's wrong, keep the old tag format"),
        ("2026-03-10T09:05:00Z", "call", ("Edit", {"file_path": deploy, "old_string": "b", "new_string": "c"})),
        ("2026-03-10T09:05:01Z", "result", "ok"),
        ("2026-03-10T09:06:00Z", "user", "I said the changelog must stay untouched"),
        ("2026-03-10T09:07:00Z", "user", "Publish the new release of the package to npm"),
    ])  # fmt: skip

    # B — Codex, holdout: no lesson; a correction, a repeated ask, an edit thrown away.
    codex("B", "SessionStart", "2026-03-11T10:00:00Z", source="startup")
    codex("B", "UserPromptSubmit", "2026-03-11T10:00:30Z", prompt="Fix the failing login test please")
    assert codex("B", "PreToolUse", "2026-03-11T10:00:40Z", tool_name="Bash", tool_input={"command": "npm publish"}) == ""
    patch = "*** Begin Patch\n*** Update File: {}\n@@\n+x\n*** End Patch"
    codex_rollout(user_home, IDS["B"], shop, [
        ("2026-03-11T10:00:30Z", "user", "Fix the failing login test please"),
        ("2026-03-11T10:01:00Z", "call", ("exec_command", {"cmd": "pytest -q tests/test_login.py"})),
        ("2026-03-11T10:01:02Z", "result", "1 failed"),
        ("2026-03-11T10:02:00Z", "call", ("apply_patch", patch.format("tests/conftest.py"))),
        ("2026-03-11T10:03:00Z", "user", "no, wrong file, revert that"),
        ("2026-03-11T10:03:30Z", "call", ("exec_command", {"cmd": "git checkout -- tests/conftest.py"})),
        ("2026-03-11T10:03:32Z", "result", ""),
        ("2026-03-11T10:04:00Z", "user", "Fix the failing login test please"),
        ("2026-03-11T10:05:00Z", "call", ("apply_patch", patch.format("src/login.py"))),
    ])  # fmt: skip

    # C — Gemini CLI, pointed: a decision arrives on reading the file it cites; cited in used=.
    gemini("C", "SessionStart", "2026-03-12T11:00:00Z", "off", source="startup")
    gemini("C", "BeforeAgent", "2026-03-12T11:00:30Z", "off", prompt="Explain how deploys work in this repository")
    held = gemini("C", "BeforeTool", "2026-03-12T11:01:00Z", "off", tool_name="read_file",
                  tool_input={"absolute_path": deploy})  # fmt: skip
    assert r["D1"] in held
    gemini_chat(user_home, IDS["C"], shop, [
        ("2026-03-12T11:00:30Z", "user", "Explain how deploys work in this repository"),
        ("2026-03-12T11:01:00Z", "call", ("read_file", {"absolute_path": deploy})),
        ("2026-03-12T11:01:30Z", "say", "Deploys go through the release workflow."),
        ("2026-03-12T11:03:00Z", "call", ("mcp_kenning_remember", {"text": "The release workflow tags builds.",
                                                                      "used": [r["D1"]]})),
    ])  # fmt: skip
    clock.set(t("2026-03-12T11:03:00Z"))
    core.use([r["D1"]], session=h.sessions["C"], tool="gemini")

    # D — Claude Code, a session started from a task: its card carries the pinned memory, used after.
    clock.set(t("2026-03-13T08:00:00Z"))
    task = work.add_task(core, core.place(shop), "Tidy the publish script", "Keep it short.")
    work.start_task(core, task, cwd=str(shop))
    card = claude("D", "SessionStart", "2026-03-13T08:00:05Z")
    assert r["P1"] in card and "kenning task" in card
    claude_transcript(user_home, IDS["D"], shop, [
        ("2026-03-13T08:00:30Z", "user", "Tidy the publish script as the task says"),
        ("2026-03-13T08:01:00Z", "call", ("Bash", {"command": "ls src"})),
        ("2026-03-13T08:01:01Z", "result", "deploy.py old.py"),
        ("2026-03-13T08:02:00Z", "say", "Done."),
    ])  # fmt: skip
    clock.set(t("2026-03-13T08:02:00Z"))
    core.use([r["P1"]], session=h.sessions["D"], tool="claude-code")

    # E — Claude Code, pointed, never captured: its lesson is given but cannot be judged.
    claude("E", "SessionStart", "2026-03-14T09:00:00Z")
    assert r["L1"] in claude("E", "PreToolUse", "2026-03-14T09:01:00Z", tool_name="Bash", tool_input={"command": "npm publish"})

    # F — Codex, captured, no hook ever saw it.
    codex_rollout(user_home, IDS["F"], shop, [
        ("2026-03-15T09:00:00Z", "user", "List the files in the repository"),
        ("2026-03-15T09:00:10Z", "call", ("exec_command", {"cmd": "ls"})),
    ])  # fmt: skip

    # H — Gemini CLI, holdout: a handoff note quoting a ref reaches its prompt; one edit.
    clock.set(t("2026-03-16T09:59:00Z"))
    work.handoff(core, core.place(shop), f"Before deploying read {r['D1']}: the workflow tags the build.",
                 from_session=h.sessions["A"], from_tool="claude-code")  # fmt: skip
    gemini("H", "SessionStart", "2026-03-16T10:00:00Z", "on", source="startup")
    note = gemini("H", "BeforeAgent", "2026-03-16T10:00:30Z", "on", prompt="Add a comment to the deploy script")
    assert r["D1"] in note
    assert gemini("H", "BeforeTool", "2026-03-16T10:01:00Z", "on", tool_name="read_file",
                  tool_input={"absolute_path": deploy}) == ""  # fmt: skip
    gemini_chat(user_home, IDS["H"], shop, [
        ("2026-03-16T10:00:30Z", "user", "Add a comment to the deploy script"),
        ("2026-03-16T10:01:00Z", "call", ("read_file", {"absolute_path": deploy})),
        ("2026-03-16T10:02:00Z", "call", ("replace", {"file_path": deploy, "old_string": "a", "new_string": "b"})),
    ])  # fmt: skip

    # An automation run given the index (no agent session: not judged).
    clock.set(t("2026-03-17T07:00:00Z"))
    index_mod.given(core, index_mod.build(core, core.place(shop), for_="automation", also=0), session="run-1", tool="cli")

    # K — Claude Code, pointed, in the other project.
    claude("K", "SessionStart", "2026-03-18T09:00:00Z", cwd=site)
    claude_transcript(user_home, IDS["K"], site, [
        ("2026-03-18T09:00:30Z", "user", "Look around the site repository"),
        ("2026-03-18T09:00:40Z", "call", ("Bash", {"command": "ls"})),
    ])  # fmt: skip

    # G — Claude Code, holdout, before the window: counts nowhere.
    claude("G", "SessionStart", "2026-01-02T09:00:00Z", holdout="on")
    claude_transcript(user_home, IDS["G"], shop, [
        ("2026-01-02T09:00:30Z", "user", "no, that is wrong, look again"),
        ("2026-01-02T09:01:00Z", "say", f"Sorry: {r['F1']} says so."),
    ])  # fmt: skip

    clock.set(NOW)
    assert core.clock is clock and core.settings is not None
    summary = sync_all(core, user_home, import_memory_files=False)
    assert summary.turns_added > 0
    return h
