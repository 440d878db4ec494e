"""Helpers shared by the MCP tests: a real git project, a store snapshot, result parsing."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from mcp.types import CallToolResult


def git_project(root: Path, remote: str = "https://github.com/acme/shop.git") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for args in (["init", "-q", "-b", "main"], ["remote", "add", "origin", remote]):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
    return root


def snapshot(db_path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the memory tables: equal snapshots mean nothing was written."""
    conn = sqlite3.connect(str(db_path))
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: sorted(map(tuple, conn.execute(f'SELECT * FROM "{t}"').fetchall()), key=repr) for t in tables}
    finally:
        conn.close()


def data(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text if result.content else result
    assert result.structured_content is not None
    return result.structured_content


def text_of(result: CallToolResult) -> str:
    """Everything the model would read: text blocks and structured content."""
    parts = [getattr(c, "text", "") for c in result.content]
    parts.append(json.dumps(result.structured_content or {}, ensure_ascii=False))
    return "\n".join(parts)


def error_text(result: CallToolResult) -> str:
    assert result.is_error, f"expected an error result, got {text_of(result)[:300]}"
    return result.content[0].text
