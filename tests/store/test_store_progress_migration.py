"""Migration graph m003: extraction progress kept by session alone (before it) moves to the
workspace its session belongs to, so a data folder made by the old schema upgrades in place and
``progress_of`` answers for one workspace, as on PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from kenning.store.sqlite.db import connect, migrate
from kenning.store.sqlite.graph_store import SqliteGraphStore
from kenning.store.sqlite.schema import all_sets, open_database

T = "2026-03-01T09:00:00.000000Z"


def old_store(path: Path) -> None:
    """A store at the schema before m003, with progress of sessions captured in two workspaces,
    of a session known only from the facts it gave, and of one found nowhere."""
    conn = connect(path)
    migrate(conn, all_sets(), stop_before={"graph": "m003_progress_workspace"})
    conn.execute("BEGIN")
    for sid, workspace in (("claude:mine", "local"), ("codex:team", "acme")):
        conn.execute("INSERT INTO capture_sessions (id, workspace, tool) VALUES (?, ?, 'claude')", (sid, workspace))
    conn.execute(
        "INSERT INTO graph_facts (workspace, subject, predicate, object, valid_from, session, created_at)"
        " VALUES ('acme', 'shop', 'uses', 'postgres', ?, 'claude:forgotten-capture', ?)", (T, T))  # fmt: skip
    for sid, kind, turn in (("claude:mine", "extract", 12), ("claude:mine", "escalate", 4), ("codex:team", "extract", 30),
                            ("claude:forgotten-capture", "extract", 7), ("gemini:nowhere", "extract", 2)):  # fmt: skip
        conn.execute("INSERT INTO graph_progress (session, kind, last_turn, updated_at) VALUES (?, ?, ?, ?)",
                     (sid, kind, turn, T))  # fmt: skip
    conn.execute("COMMIT")
    conn.close()


def test_progress_moves_to_its_sessions_workspace(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old_store(path)
    db = open_database(path)
    try:
        graph = SqliteGraphStore(db)
        assert graph.progress_of("local", "extract") == {"claude:mine": 12, "gemini:nowhere": 2}
        assert graph.progress_of("local", "escalate") == {"claude:mine": 4}
        assert graph.progress_of("acme", "extract") == {"claude:forgotten-capture": 7, "codex:team": 30}
        assert graph.progress("acme", "claude:mine", "extract") == 0  # another workspace's session
        # The new key: the same session id may now carry progress in two workspaces.
        graph.set_progress("acme", "claude:mine", "extract", 3, T)
        assert graph.progress("local", "claude:mine", "extract") == 12
        assert graph.progress("acme", "claude:mine", "extract") == 3
        graph.forget_progress("acme", "claude:mine")
        assert graph.progress("local", "claude:mine", "extract") == 12
    finally:
        db.close()
