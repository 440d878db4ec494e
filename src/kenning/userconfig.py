"""Settings a person chooses with ``kenning config``: one JSON file, ``config.json`` in the
data folder, readable by its owner only.

A setting has a value for all projects (``global``) and may have one per project; the
project's value wins, then the global one, then the built-in default. Every setting is
declared once in :data:`KEYS` (name, type, default, what it does); a name that is not there is
refused with the list of names. To add a setting, add a :class:`Key` and read it where it
matters through :func:`value`.

The start hook reads this file on every session start, so this module uses the standard
library and kenning's small JSON reader only.
"""

from __future__ import annotations

import os

from kenning import jsonfast
from kenning.errors import Invalid

FILE = "config.json"
VERSION = 1
GLOBAL = "global"
TRUE_WORDS = ("on", "true", "yes", "1")
FALSE_WORDS = ("off", "false", "no", "0")


class Key:
    """One setting: its name, its type (``bool`` for now), default and what it does."""

    __slots__ = ("name", "kind", "default", "help")

    def __init__(self, name: str, kind: str, default: bool, help: str) -> None:
        self.name, self.kind, self.default, self.help = name, kind, default, help

    def parse(self, text: str) -> bool:
        word = text.strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
        raise Invalid(f"{self.name} takes on or off, not {text!r}", fix=f"kenning config set {self.name} on")


WAKEUP_AT_START = "start.wakeup"
KEYS: dict[str, Key] = {
    WAKEUP_AT_START: Key(
        WAKEUP_AT_START, "bool", False,
        "The start hook adds the wake-up bundle (identity line, top decisions and preferences, "
        "current graph facts) after the brief. Off by default: sessions look memory up for their "
        "task with recall instead.",
    ),
}  # fmt: skip


class Setting:
    """A setting's value where it was asked for, and where that value came from."""

    __slots__ = ("key", "value", "source")

    def __init__(self, key: Key, value: bool, source: str) -> None:
        self.key, self.value, self.source = key, value, source  # source: project | global | default

    def as_dict(self) -> dict[str, object]:
        return {"key": self.key.name, "value": self.value, "source": self.source, "default": self.key.default,
                "help": self.key.help}  # fmt: skip


def key(name: str) -> Key:
    found = KEYS.get(name.strip())
    if found is None:
        raise Invalid(f"unknown setting {name!r}", fix=f"use one of: {', '.join(sorted(KEYS))} (kenning config list)")
    return found


def path(home: str) -> str:
    return os.path.join(home, FILE)


def load(home: str) -> dict[str, dict[str, object]]:
    """``{"global": {name: value}, "<project key>": {name: value}}``; {} when there is no file
    or it cannot be read (a hook never fails on it)."""
    try:
        with open(path(home), encoding="utf-8") as fh:
            data = jsonfast.loads(fh.read())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or not isinstance(data.get("values"), dict):
        return {}
    return {scope: dict(values) for scope, values in data["values"].items() if isinstance(values, dict)}


def value(values: dict[str, dict[str, object]], name: str, project: str) -> Setting:
    """The setting for ``project`` ("" asks for the global value)."""
    k = key(name)
    for scope in ((project, GLOBAL) if project else (GLOBAL,)):
        got = values.get(scope, {}).get(k.name)
        if isinstance(got, bool):
            return Setting(k, got, "project" if scope == project else GLOBAL)
    return Setting(k, k.default, "default")


def is_on(home: str, name: str, project: str) -> bool:
    return bool(value(load(home), name, project).value)


def _save(home: str, values: dict[str, dict[str, object]]) -> None:
    import json

    os.makedirs(home, mode=0o700, exist_ok=True)
    target = path(home)
    tmp = f"{target}.{os.getpid()}.tmp"
    kept = {scope: v for scope, v in sorted(values.items()) if v}
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"version": VERSION, "values": kept}, fh, indent=2, sort_keys=True)
            fh.write("\n")
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def set_value(home: str, name: str, text: str, project: str) -> Setting:
    """Set ``name`` for ``project`` ("" for every project); returns the setting as it now reads."""
    k = key(name)
    parsed = k.parse(text)
    values = load(home)
    values.setdefault(project or GLOBAL, {})[k.name] = parsed
    _save(home, values)
    return value(values, k.name, project)


def unset(home: str, name: str, project: str) -> Setting:
    """Remove ``name``'s own value at ``project`` ("" for global); the next level then holds."""
    k = key(name)
    values = load(home)
    values.get(project or GLOBAL, {}).pop(k.name, None)
    _save(home, values)
    return value(values, k.name, project)


def listing(home: str, project: str) -> list[Setting]:
    values = load(home)
    return [value(values, name, project) for name in sorted(KEYS)]
