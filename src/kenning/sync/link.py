"""This machine's login to a team server, kept in ``server.json`` in the data folder (mode 0600:
it holds the device token)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from kenning import private
from kenning.errors import Invalid, NotFound
from kenning.sync.client import Link

FILENAME = "server.json"


def path(home: Path) -> Path:
    return home / FILENAME


def load(home: Path) -> Link | None:
    file = path(home)
    if not file.exists():
        return None
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        return Link(data["server"], data["account"], data["account_name"], data["device"],
                    tuple(data["workspaces"]), data["token"])  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise Invalid(f"{file} is unreadable ({exc})", fix=f"run kenning logout, or delete {file}, then kenning login") from exc


def require(home: Path) -> Link:
    link = load(home)
    if link is None:
        raise NotFound("this machine is not logged in to a team server",
                       fix="run: kenning login URL --invite TOKEN (or kenning login URL for a device code)")  # fmt: skip
    return link


def save(home: Path, link: Link) -> Path:
    private.folder(home)
    file = path(home)
    private.write(file, json.dumps({**asdict(link), "workspaces": list(link.workspaces)}, indent=2).encode())
    return file


def remove(home: Path) -> bool:
    file = path(home)
    if file.exists():
        file.unlink()
        return True
    return False
