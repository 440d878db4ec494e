"""Resume on the Claude Code and Codex fixture sessions, after a real sync."""

from __future__ import annotations

from graph_sessions import CLAUDE_SESSION, CODEX_SESSION, Shop

from kenning.context import resume


def test_resume_of_the_branch_is_the_claude_session(shop: Shop) -> None:
    shop.sync()
    (shop.root / "orders" / "views.py").write_text("def export(request):\n    return enqueue()\n")
    place = shop.core.place(shop.root)
    assert place.branch == "fix/export"
    state = resume.resume(shop.core.stores.capture, place)
    assert state.session == f"claude:{CLAUDE_SESSION}"
    assert state.asked.startswith("The orders export times out.")
    assert state.unanswered.startswith("Good. I'm pairing with Dana")
    assert state.todos_open == ["Move the export to a task", "Add a retry policy"]
    assert state.todos_done == 1
    assert state.failing == ["grep -n CELERY shop/settings.py", "pytest -q tests/test_export.py"]
    assert [p.rsplit("/", 1)[-1] for p in state.files_edited] == ["celery.py", "tasks.py", "pyproject.toml"]
    assert "orders/views.py" in state.files_git  # changed in the work tree since the session
    text = resume.render(state)
    assert "todo: «Add a retry policy»" in text and "unanswered ask: «" in text and "failing: «pytest" in text


def test_resume_of_the_codex_branch(shop: Shop) -> None:
    shop.sync()
    shop.git("checkout", "-q", "-b", "feat/search")
    from kenning import gitinfo

    gitinfo.clear_cache()
    place = shop.core.place(shop.root)
    state = resume.resume(shop.core.stores.capture, place)
    assert state.session == f"codex:{CODEX_SESSION}"
    assert state.tool == "codex"
    assert state.asked.startswith("Add full-text search")
    assert state.unanswered == ""
    assert state.todos_open == ["Wire the search endpoint", "Add ranking tests"]
    # the test run failed, then passed: only ruff is still failing
    assert state.failing == ["ruff check shop"]
    assert state.files_edited == ["shop/search.py", "shop/models.py"]
    assert state.done.startswith("Search endpoint wired")


def test_resume_names_a_session_by_prefix(shop: Shop) -> None:
    shop.sync()
    place = shop.core.place(shop.root)
    state = resume.resume(shop.core.stores.capture, place, CODEX_SESSION[:8])
    assert state.session == f"codex:{CODEX_SESSION}"
