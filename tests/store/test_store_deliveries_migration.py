"""hooks/m004_deliveries: lessons handed out before the deliveries table existed are read back
from what the hooks showed each session, so the memory report counts them too."""

from __future__ import annotations

from pathlib import Path

from kenning.store.sqlite.db import connect, migrate
from kenning.store.sqlite.schema import all_sets, open_database


def test_lessons_shown_before_are_backfilled_once(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = connect(path)
    migrate(conn, all_sets(), stop_before={"hooks": "m004_deliveries", "capture": "m001_capture", "graph": "m001_graph"})
    conn.execute("INSERT INTO hook_sessions (session, tool, workspace, project, started_at, last_seen)"
                 " VALUES ('codex:s1', 'codex', 'local', 'github.com/acme/shop', '2026-03-01T09:00:00.000000Z',"
                 " '2026-03-01T09:00:00.000000Z')")  # fmt: skip
    for what, key in (("lesson", "m:00000001"), ("lesson", "m:00000002"), ("agent", "claude-code:x"), ("handoff", "7")):
        conn.execute("INSERT INTO hook_shown (session, what, key, at) VALUES ('codex:s1', ?, ?,"
                     " '2026-03-01T09:05:00.000000Z')", (what, key))  # fmt: skip
    conn.close()
    db = open_database(path)
    try:
        rows = [tuple(r) for r in db.query(
            "SELECT workspace, session, channel, ref, project, tool, at FROM memory_deliveries ORDER BY ref")]  # fmt: skip
    finally:
        db.close()
    assert rows == [("local", "codex:s1", "lesson", f"m:0000000{n}", "github.com/acme/shop", "codex",
                     "2026-03-01T09:05:00.000000Z") for n in (1, 2)]  # fmt: skip
