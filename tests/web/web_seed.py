"""A store with something on every page: a git project with files, memories of every kind
(citations same, changed and gone; a held widget memory; a superseded slot; a `<script>`
text), a session that wrote and used memories and was shown a lesson, a captured transcript
of it, a contradiction and tidy proposals waiting for review, a decision doc, and rules.

Everything goes through kenning's own core functions (no SQL), so what the pages show is
what the product would hold."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from kenning.core import citations, rules, work
from kenning.core.capture_job import sync_all
from kenning.core.remember import RememberRequest
from kenning.core.service import Core
from kenning.domain.write_rules import parse_trigger
from kenning.model import Kind, Origin

PROJECT = "github.com/acme/shop"
SESSION_UUID = "9f1c2a7e-3b4d-4e5f-8a6b-7c8d9e0f1a2b"  # the recorded Claude Code transcript's id
HOOK_SESSION = f"claude-code:{SESSION_UUID}"
CAPTURED_SESSION = f"claude:{SESSION_UUID}"
SCRIPT_TEXT = "<script>document.title='pwned'</script> never reaches a page as markup"
TRANSCRIPT = Path(__file__).resolve().parents[1] / "capture" / "data" / "claude" / f"{SESSION_UUID}.jsonl"


@dataclass(frozen=True)
class Seeded:
    repo: Path
    decision: str
    fact: str  # cites src/app.py (same)
    changed: str  # cites lines of src/auth/login.py that then changed
    gone: str  # cites src/old.py, then deleted
    lesson: str  # edit:src/auth/**
    theme_old: str
    theme_new: str
    widget: str  # held until released
    script: str
    session_refs: tuple[str, ...]  # written by the session (one pinned)
    pinned_by_session: str
    contradiction: int
    merge: int
    retire_item: int


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def make_repo(parent: Path) -> Path:
    repo = parent / "shop"
    (repo / "src" / "auth").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "docs").mkdir()
    (repo / "src" / "app.py").write_text("import os\n\nTZ = os.environ.get('TZ', 'UTC')\n")
    (repo / "src" / "auth" / "login.py").write_text("def login(user):\n    check(user)\n    return token(user)\n")
    (repo / "src" / "old.py").write_text("LEGACY = True\n")
    (repo / "tests" / "test_login.py").write_text("def test_login():\n    assert True\n")
    (repo / "docs" / "deploy.md").write_text("# Deploy\n\nFrom main only.\n")
    (repo / "README.md").write_text("# shop\n")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "remote", "add", "origin", "git@github.com:Acme/Shop.git")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "shop")
    return repo


def _ref(result: object) -> str:
    memory = result.memory  # type: ignore[attr-defined]
    assert memory is not None, result
    return str(memory.ref)


def seed(core: Core, tmp: Path) -> Seeded:
    repo = make_repo(tmp)
    place = core.place(repo)
    assert place.project == PROJECT

    def person(text: str, **kw: object) -> str:
        return _ref(core.remember(place, RememberRequest(text=text, origin=Origin.PERSON, source="cli", **kw)))  # type: ignore[arg-type]

    decision = _ref(core.record_decision(place, RememberRequest(
        text="We use Redis streams for the job queue", kind=Kind.DECISION, reason="polling the database was slow",
        rejected="RabbitMQ", origin=Origin.PERSON, source="cli", title="Job queue")).remembered)  # fmt: skip
    fact = person("The app reads its time zone from TZ and defaults to UTC", source_ref="src/app.py:3")
    changed = person("Login checks the user before it issues a token", source_ref="src/auth/login.py:1-3")
    gone = person("The legacy flag lives in the old module", source_ref="src/old.py")
    lesson = person("Run the login tests after touching the auth package", kind=Kind.LESSON,
                    when=parse_trigger("edit:src/auth/**"))  # fmt: skip
    theme_old = person("The dashboard uses the light theme", kind=Kind.PREFERENCE, subject="ui.theme")
    theme_new = person("The dashboard uses the dark theme", kind=Kind.PREFERENCE, subject="ui.theme")
    script = person(SCRIPT_TEXT)
    core.set_policy(place, "workspace", "preset", "everything")  # the default keeps no app or widget writes
    widget = _ref(core.remember(place, RememberRequest(text="Standup notes live in the team wiki",
                                                       origin=Origin.WIDGET, source="standup-widget")))  # fmt: skip

    agent = [
        _ref(core.remember(place, RememberRequest(text=text, origin=Origin.AGENT, source="claude-code",
                                                  session=HOOK_SESSION)))  # fmt: skip
        for text in ("The CI runner has no time zone set", "Login tests mock the clock at UTC midnight",
                     "Staging deploys need the VPN profile loaded")
    ]
    core.pin(agent[2])

    # The cited lines of login.py change and old.py goes: the sweep marks them.
    (repo / "src" / "auth" / "login.py").write_text("def login(user):\n    verify(user)\n    return issue(user)\n")
    (repo / "src" / "old.py").unlink()
    citations.check_all(core, PROJECT)

    # A session the hooks saw: shown the lesson, cited two memories.
    work.ensure_session(core, place, "claude-code", SESSION_UUID, str(repo), forced=False)
    hooks = core.stores.hooks
    hooks.update_session(core.workspace, HOOK_SESSION, recalled=True, changed_files=True,
                         opening="Why does the login test fail on CI?")  # fmt: skip
    hooks.mark_shown(core.workspace, HOOK_SESSION, "lesson", [lesson], core.now())
    core.use([fact, agent[0]], session=HOOK_SESSION, tool="claude-code")
    for i in range(3):
        work.ensure_session(core, place, "codex", f"codex-session-{i}", str(repo), forced=i == 0)

    # The captured transcript of that session.
    home = tmp / "user-home"
    dst = home / ".claude" / "projects" / "-home-alice-src-shop" / TRANSCRIPT.name
    dst.parent.mkdir(parents=True)
    shutil.copy(TRANSCRIPT, dst)
    sync_all(core, home)

    # Needs review: a contradiction of a firmer memory, a merge and a retirement.
    firm = person("Mock the clock in scheduler tests")
    held = core.remember(place, RememberRequest(text="Never mock the clock in scheduler tests", origin=Origin.AGENT,
                                                source="codex"))  # fmt: skip
    assert held.review is not None, firm
    merge = core.propose(place, "merge", [agent[0], fact], text="CI has no time zone, so the app falls back to UTC",
                         why="the two say one thing", proposed_by="claude-code")  # fmt: skip
    retire_item = core.propose(place, "retire", [gone], why="its module was deleted", proposed_by="claude-code")

    rules.add_ready(core, "unused", n=60, project=PROJECT)
    rules.add_sentence(core, "Never store customer names in memory.")
    return Seeded(repo, decision, fact, changed, gone, lesson, theme_old, theme_new, widget, script,
                  tuple(agent), agent[2], held.review.id, merge.id, retire_item.id)  # fmt: skip
