"""The card of a session started from a task: title, goal, scope, connected, rules, and at most
5 memories chosen without matching words (files the task names, then pinned)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from kenning import gitinfo
from kenning.context import card
from kenning.core import rules, work
from kenning.core.remember import RememberRequest
from kenning.core.service import Core
from kenning.model import Kind, Origin


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    (tmp_path / "gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    root = tmp_path / "shop"
    (root / "src" / "auth").mkdir(parents=True)
    (root / "src" / "auth" / "session.py").write_text("def refresh_token(user):\n    return user\n")
    (root / "src" / "billing.py").write_text("class InvoiceBuilder:\n    pass\n")
    env = dict(os.environ, GIT_AUTHOR_NAME="A", GIT_AUTHOR_EMAIL="a@example.com", GIT_COMMITTER_NAME="A",
               GIT_COMMITTER_EMAIL="a@example.com", GIT_CONFIG_NOSYSTEM="1")  # fmt: skip
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    gitinfo.clear_cache()
    return root


def remember(core: Core, repo: Path, text: str, **kw: object) -> str:
    result = core.remember(core.place(repo), RememberRequest(text=text, origin=Origin.PERSON, **kw))  # type: ignore[arg-type]
    assert result.memory is not None
    return result.memory.ref


def test_card_picks_memories_about_the_task_files_then_pinned(core: Core, repo: Path) -> None:
    place = core.place(repo)
    about_session = remember(core, repo, "Tokens are refreshed on every request because mobile clients sleep.",
                             kind=Kind.DECISION, source_ref="src/auth/session.py:1")  # fmt: skip
    about_billing = remember(core, repo, "Invoices round half up to match the accounting export.",
                             kind=Kind.FACT, source_ref="src/billing.py")  # fmt: skip
    pinned = remember(core, repo, "Use pnpm rather than npm in this repository.", kind=Kind.PREFERENCE, index=True)
    unrelated = remember(core, repo, "The refresh token flow was rewritten in March.", kind=Kind.FACT)
    task_id = work.add_task(core, place, "Fix refresh_token expiry", "Tokens expire too early for mobile users.")
    task = work.start_task(core, task_id, cwd=str(repo))
    text = card.build(core, place, task)
    assert len(text) <= card.LIMIT
    assert text.startswith(f"kenning task #{task_id}: Fix refresh_token expiry")
    assert "Goal: Tokens expire too early for mobile users." in text
    assert "Project shop · branch main" in text
    # The file defining refresh_token (git grep), then pinned; never matched by words.
    assert text.index(about_session) < text.index(pinned)
    assert about_billing not in text and unrelated not in text
    assert text.splitlines()[-1].startswith("For more, call `recall`")


def test_named_file_in_the_title_and_at_most_five(core: Core, repo: Path) -> None:
    place = core.place(repo)
    claims = ["Invoices carry the customer's tax id.", "Refunds go back to the original card.",
              "Currency is stored in minor units.", "Credit notes never change an issued invoice.",
              "Trial accounts get no invoice at all.", "Dunning emails stop after the third reminder.",
              "Discount codes apply before tax."]
    refs = [remember(core, repo, c, kind=Kind.FACT, source_ref="src/billing.py") for c in claims]
    task = work.start_task(core, work.add_task(core, place, "Tidy src/billing.py"), cwd=str(repo))
    text = card.build(core, place, task)
    assert sum(r in text for r in refs) == card.MAX_MEMORIES


def test_connected_by_name_only_and_rules(core: Core, repo: Path) -> None:
    place = core.place(repo)
    core.store.set_meta(core.workspace, f"integrations.{core.workspace}", json.dumps(["GitHub (acme/shop)", "Linear"]))
    rules.add_sentence(core, "Never push straight to main.", project=place.project)
    task = work.start_task(core, work.add_task(core, place, "Ship the cart"), cwd=str(repo))
    text = card.build(core, place, task)
    assert "Connected: GitHub (acme/shop), Linear" in text
    assert "Rules:\n- Never push straight to main." in text


def test_code_and_file_names_are_found() -> None:
    assert card.named_files("Fix src/auth/session.py and README.md, v1.2 too") == ["src/auth/session.py", "README.md"]
    assert card.code_names("Fix refresh_token and InvoiceBuilder, then call build()") == [
        "refresh_token", "InvoiceBuilder", "build"]  # fmt: skip


def test_a_memory_whose_cited_code_changed_stays_off_the_card(core: Core, repo: Path) -> None:
    place = core.place(repo)
    kept = remember(core, repo, "Invoices round half up to match the accounting export.",
                    kind=Kind.FACT, source_ref="src/billing.py:1")  # fmt: skip
    moved = remember(core, repo, "Tokens refresh on every request because mobile clients sleep.",
                     kind=Kind.DECISION, source_ref="src/auth/session.py:1-2")  # fmt: skip
    task = work.start_task(core, work.add_task(core, place, "Tidy src/billing.py and src/auth/session.py"),
                           cwd=str(repo))  # fmt: skip
    text = card.build(core, place, task)
    assert kept in text and moved in text
    # The cited lines change; no sweep runs: the next card reads the citation itself.
    (repo / "src" / "auth" / "session.py").write_text("def refresh_token(user, force):\n    return None\n")
    text = card.build(core, place, task)
    assert kept in text and moved not in text
    assert core.get(moved).citation.value == "changed"
