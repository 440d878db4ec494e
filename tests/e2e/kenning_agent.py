"""kenning as the real agent CLIs see it: installed by `kenning install` into a temp HOME.

Helpers shared by the kenning scenarios: install, seed memories as a user would (the CLI),
read what a hook answered from Claude Code's stream, and read the store back.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from e2e_support import Json, Workspace, require_kenning

# The hooks read this to put a session in (1) or out of (0) the holdout group, so that no
# scenario depends on which quarter a random session id falls in.
HOLDOUT_ENV = "KENNING_HOLDOUT"
IN_GROUP = {HOLDOUT_ENV: "0"}
HOLDOUT = {HOLDOUT_ENV: "1"}

SECRET_PASSWORD = "Sup3rS3cretPass"
SECRET_AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
SETTINGS_ENV = (f"DATABASE_URL=postgres://shop:{SECRET_PASSWORD}@db.internal:5432/shop\n"
                f"AWS_ACCESS_KEY_ID={SECRET_AWS_KEY}\n")


def install_kenning(ws: Workspace, tool: str = "claude") -> str:
    """`kenning install <tool> --user-home HOME`, as a user would; returns what it printed."""
    require_kenning("install", "hook", "mcp")
    proc = ws.kenning("install", tool, "--user-home", str(ws.home))
    return proc.stdout + proc.stderr


def remember(ws: Workspace, text: str, *args: str) -> str:
    """Seed one memory through the CLI (origin: person); returns its ref."""
    out = ws.kenning("remember", text, *args, "--json").stdout
    data = json.loads(out)
    memory = data.get("memory") or data
    return str(memory["ref"])


def hook_output(response: Json) -> str:
    """What a hook answered, from a stream-json ``hook_response``: its context text, the
    reason of a block, or its plain stdout."""
    stdout = str(response.get("stdout") or "").strip()
    if not stdout.startswith("{"):
        return stdout
    try:
        data = json.loads(stdout)
    except ValueError:
        return stdout
    specific = data.get("hookSpecificOutput") or {}
    parts = [specific.get("additionalContext"), data.get("reason"), data.get("systemMessage"),
             specific.get("permissionDecisionReason")]
    return "\n".join(str(p) for p in parts if p)


def hook_json(response: Json) -> Json:
    stdout = str(response.get("stdout") or "").strip()
    try:
        data = json.loads(stdout) if stdout.startswith("{") else {}
    except ValueError:
        data = {}
    return data if isinstance(data, dict) else {}


def db_bytes(ws: Workspace) -> bytes:
    """Every byte kenning keeps in its data folder's SQLite files (db, WAL, journal)."""
    out = b""
    for path in sorted(ws.kenning_home.rglob("*")):
        if path.is_file() and (path.suffix in {".db", ".sqlite"} or path.name.endswith(("-wal", "-journal"))):
            out += path.read_bytes()
    return out


def store_rows(ws: Workspace, sql: str, args: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
    """Read the store directly (read-only), to check what really landed on disk."""
    path = ws.kenning_home / "kenning.db"
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    try:
        return list(con.execute(sql, args))
    finally:
        con.close()

