"""Reading and rewriting agent-tool config files without disturbing the user's own parts:
JSON keeps its indent, key order and final newline; TOML goes through tomlkit (comments and
layout kept). Every rewrite is backed up first; the ledger records what kenning wrote.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import tomlkit

from kenning import private
from kenning.errors import Refused

KEEP_BACKUPS = 5


@dataclass
class Doc:
    """One config file: its parsed data and how to write it back the same way."""

    path: Path
    kind: str  # json | toml
    data: Any
    original: bytes | None  # None: the file did not exist
    indent: str | int | None = 2
    newline: bool = True

    def render(self) -> bytes:
        if self.kind == "toml":
            return tomlkit.dumps(self.data).encode()
        text = json.dumps(self.data, indent=self.indent, ensure_ascii=False)
        return (text + ("\n" if self.newline else "")).encode()


def load(path: Path, kind: str) -> Doc:
    if not path.exists():
        data: Any = tomlkit.document() if kind == "toml" else {}
        return Doc(path, kind, data, None)
    raw = path.read_bytes()
    text = raw.decode("utf-8")
    if kind == "toml":
        try:
            return Doc(path, kind, tomlkit.parse(text), raw)
        except Exception as error:
            raise Refused(f"{path} is not valid TOML ({error})", fix="fix the file by hand, then run install again") from error
    clean, comments = strip_jsonc(text)
    if comments:
        raise Refused(
            f"{path} holds comments kenning cannot keep when it rewrites the file",
            fix="add kenning's entry by hand (see docs/install.md) or remove the comments",
        )
    try:
        data = json.loads(clean) if clean.strip() else {}
    except ValueError as error:
        raise Refused(f"{path} is not valid JSON ({error})", fix="fix the file by hand, then run install again") from error
    if not isinstance(data, dict):
        raise Refused(f"{path} does not hold a JSON object", fix="fix the file by hand, then run install again")
    return Doc(path, kind, data, raw, _indent_of(text), text.endswith("\n"))


def _indent_of(text: str) -> str | int | None:
    if "\n" not in text.strip():
        return None  # a one-line file stays on one line
    match = re.search(r"\n([ \t]+)\S", text)
    if not match:
        return 2
    lead = match.group(1)
    return len(lead) if set(lead) == {" "} else lead


def strip_jsonc(text: str) -> tuple[str, bool]:
    """JSON with // and /* */ comments (opencode.jsonc): the JSON, and whether any comment was there.
    Written by hand because the stdlib has no JSONC reader; it only has to respect strings."""
    out, i, found, n = [], 0, False, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            found = True
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            found = True
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(ch)
            i += 1
    return "".join(out), found


def sha(data: bytes | None) -> str:
    return hashlib.sha256(data).hexdigest() if data is not None else ""


def _slot(state_dir: Path, path: Path) -> Path:
    """Where backups of one file live: named after the file plus a short hash of its path."""
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:10]
    return state_dir / "install-backups" / f"{path.name}-{digest}"


def _private_copy(target: Path, data: bytes) -> None:
    """A backup in the data folder: 0600, so at least as closed as any original (an agent
    config such as ~/.claude.json can hold API keys), made so before a byte is written."""
    private.write(target, data)


def backup(state_dir: Path, path: Path, now: datetime) -> Path | None:
    """Copy ``path`` aside before it is rewritten; keep the 5 newest copies."""
    if not path.exists():
        return None
    slot = _slot(state_dir, path)
    private.folder(slot)
    target = slot / f"{now.strftime('%Y%m%dT%H%M%S%f')}.bak"
    n = 0
    while target.exists():
        n += 1
        target = slot / f"{now.strftime('%Y%m%dT%H%M%S%f')}-{n}.bak"
    _private_copy(target, path.read_bytes())
    for old in sorted(slot.glob("*.bak"))[:-KEEP_BACKUPS]:
        old.unlink()
    return target


def keep_original(state_dir: Path, path: Path, original: bytes | None) -> str:
    """The file as it was before kenning first touched it (kept apart from the rotation),
    so an uninstall can give back the exact bytes. "" when the file did not exist."""
    if original is None:
        return ""
    slot = _slot(state_dir, path)
    private.folder(slot)
    target = slot / "original"
    if not target.exists():
        _private_copy(target, original)
    return str(target)


def write_atomic(path: Path, data: bytes, *, new_mode: int = 0o644) -> None:
    """Replace ``path``'s content atomically, keeping its mode (``new_mode`` for a new file).

    A symlink (a config kept in a dotfiles repository) is written through: the file it points
    at is replaced and the link stays a link.
    """
    if path.is_symlink():
        path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else new_mode
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".kenning-tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class Ledger:
    """``installed.json`` in the data folder: per tool, per file, what kenning wrote."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / "installed.json"
        self.data: dict[str, Any] = {"version": 1, "tools": {}}
        if self.path.exists():
            try:
                self.data = json.loads(self.path.read_text())
            except ValueError:
                self.data = {"version": 1, "tools": {}}

    def tool(self, name: str) -> dict[str, Any]:
        found: dict[str, Any] = self.data["tools"].get(name) or {}
        return found

    def set_tool(self, name: str, record: dict[str, Any] | None) -> None:
        if record:
            self.data["tools"][name] = record
        else:
            self.data["tools"].pop(name, None)

    def save(self) -> None:
        private.folder(self.path.parent)
        private.tighten(self.path, private.FILE_MODE)
        write_atomic(self.path, (json.dumps(self.data, indent=2, ensure_ascii=False) + "\n").encode(),
                     new_mode=private.FILE_MODE)  # fmt: skip


def plain(value: Any) -> Any:
    """A tomlkit item as plain Python (JSON values pass through)."""
    unwrap = getattr(value, "unwrap", None)
    return unwrap() if callable(unwrap) else value
