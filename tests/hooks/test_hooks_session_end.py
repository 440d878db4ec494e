"""SessionEnd escalates the session: what the user decided and corrected becomes graph facts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from kenning.config import Settings
from kenning.store.sqlite.schema import open_database


def _line(kind: str, text: str, n: int, cwd: Path) -> str:
    base = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": str(cwd), "sessionId": "s-end-1",
            "version": "2.1.328", "gitBranch": "main", "uuid": f"u{n}", "timestamp": f"2026-03-02T10:00:{n:02d}.000Z"}  # fmt: skip
    if kind == "user":
        return json.dumps({**base, "type": "user", "message": {"role": "user", "content": text}})
    return json.dumps({**base, "type": "assistant", "message": {"id": f"msg{n}", "role": "assistant", "model": "m",
                       "content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}})  # fmt: skip


def test_session_end_turns_the_users_decision_into_a_fact(tmp_path: Path, kenning_home: Path) -> None:
    repo = tmp_path / "shop"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    transcript = tmp_path / "s-end-1.jsonl"
    transcript.write_text("\n".join([
        _line("user", "We decided to use Postgres for the orders service because we need transactions.", 1, repo),
        _line("assistant", "Let me check the config file first.", 2, repo),
        _line("user", "Looks good, thanks.", 3, repo),
    ]) + "\n")  # fmt: skip
    payload = {"session_id": "s-end-1", "transcript_path": str(transcript), "cwd": str(repo),
               "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}  # fmt: skip
    env = {**os.environ, "KENNING_HOME": str(kenning_home)}
    proc = subprocess.run([sys.executable, "-m", "kenning.hooks.main", "claude-code", "SessionEnd"], input=json.dumps(payload),
                          capture_output=True, text=True, env=env, timeout=60)  # fmt: skip
    assert proc.returncode == 0 and proc.stdout.strip() == ""
    db = open_database(Settings(home=kenning_home).db_path)
    try:
        rows = db.query("SELECT * FROM graph_facts")
        texts = [f"{r['subject']} {r['predicate']} {r['object']}" for r in rows]
        assert any("postgres" in t.lower() and "decided" in t.lower() for t in texts), texts
        assert not any("let me check" in t.lower() for t in texts)
    finally:
        db.close()
