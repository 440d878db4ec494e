"""Install, uninstall and check kenning in agent tools.

Rules: never overwrite an entry named kenning that kenning did not write (refuse, unless
forced); back up each file before rewriting it; uninstall removes only kenning's parts and
keeps the user's later edits, and gives back the exact original bytes when nobody touched
the file since.
"""

from __future__ import annotations

import copy
import re
import subprocess
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import tomlkit

from kenning.errors import Refused
from kenning.install import files
from kenning.install.agents import NAME, Agent
from kenning.install.files import Doc, Ledger, plain
from kenning.install.hooks import CODEX_EVENT_KEYS, hook_entries, resolve

Json = dict[str, Any]
KENNING_HOOK = re.compile(r"kenning(-hook\b|['\"]? hook )")


@dataclass
class Report:
    """What one install or uninstall did: a line per part (added, updated or unchanged), the
    files it rewrote, and where the copy of each rewritten file went."""

    tool: str
    lines: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # files written
    backups: dict[str, str] = field(default_factory=dict)  # file -> its backup

    def as_dict(self) -> dict[str, object]:
        return {"tool": self.tool, "lines": self.lines, "changed": self.changed, "backups": self.backups}


def _state(before: Any, after: Any) -> str:
    return "added" if before is None else ("unchanged" if before == after else "updated")


def _current(doc: Doc, at: list[str], name: str) -> Any:
    container, _ = _walk(doc, at, create=False)
    return plain(container[name]) if container is not None and name in container else None


def _new_table(kind: str) -> Any:
    return tomlkit.table(is_super_table=True) if kind == "toml" else {}


def _walk(doc: Doc, at: list[str], create: bool) -> tuple[Any, list[list[str]]]:
    node: Any = doc.data
    created: list[list[str]] = []
    for i, key in enumerate(at):
        if key not in node:
            if not create:
                return None, created
            node[key] = _new_table(doc.kind)
            created.append(at[: i + 1])
        node = node[key]
        if not hasattr(node, "keys"):
            raise Refused(f"{doc.path}: {'.'.join(at[: i + 1])} is not a table", fix="fix the file by hand")
    return node, created


def _prune(doc: Doc, created: list[list[str]]) -> None:
    """Drop containers kenning created that are empty again (deepest first)."""
    for path in sorted(created, key=len, reverse=True):
        parent, _ = _walk(doc, path[:-1], create=False)
        if parent is not None and path[-1] in parent and len(parent[path[-1]]) == 0:
            del parent[path[-1]]


def put_entry(doc: Doc, at: list[str], name: str, value: Any, previous: Any, *, force: bool, what: str) -> list[list[str]]:
    container, created = _walk(doc, at, create=True)
    if name in container:
        current = plain(container[name])
        if current == value:
            return created
        if not (force or (previous is not None and current == previous)):
            raise Refused(
                f"{doc.path} already has {what} named {name!r} that kenning did not write",
                fix="leave it, rename it, or replace it with: kenning install <tool> --force",
            )
    container[name] = copy.deepcopy(value)
    return created


def remove_entry(doc: Doc, part: Json, *, force: bool) -> str:
    container, _ = _walk(doc, part["at"], create=False)
    name = part["name"]
    if container is None or name not in container:
        return ""
    if plain(container[name]) != part["value"] and not force:
        return f"left {name!r} in {doc.path}: it was edited by hand (remove it by hand, or uninstall --force)"
    del container[name]
    _prune(doc, part.get("created", []))
    return ""


def add_hooks(doc: Doc, groups: Json, previous: Json | None) -> list[list[str]]:
    if previous:
        remove_hooks(doc, {"at": ["hooks"], "groups": previous, "created": []})
    container, created = _walk(doc, ["hooks"], create=True)
    for event, event_groups in groups.items():
        if event not in container:
            container[event] = []
            created.append(["hooks", event])
        container[event].extend(copy.deepcopy(event_groups))
    return created


def remove_hooks(doc: Doc, part: Json) -> None:
    container, _ = _walk(doc, part["at"], create=False)
    if container is None:
        return
    for event, event_groups in part["groups"].items():
        present = container.get(event)
        if not isinstance(present, list):
            continue
        for group in event_groups:
            if group in present:
                present.remove(group)
    _prune(doc, part.get("created", []))


def _codex_trust(hooks_doc: Doc, groups: Json) -> dict[str, Json]:
    """Codex runs a hook from hooks.json only when config.toml trusts its exact definition."""
    out: dict[str, Json] = {}
    present = hooks_doc.data.get("hooks", {})
    from kenning.install.hooks import codex_hook_hash

    for event, event_groups in groups.items():
        listed = present.get(event, [])
        for group in event_groups:
            gi = max(i for i, g in enumerate(listed) if g == group)
            for hi, handler in enumerate(group.get("hooks", [])):
                key = f"{hooks_doc.path}:{CODEX_EVENT_KEYS.get(event, event)}:{gi}:{hi}"
                out[key] = {"trusted_hash": codex_hook_hash(event, group, handler)}
    return out


def _merged(previous: Json | None, created: list[list[str]]) -> list[list[str]]:
    """Containers kenning created, across installs (a reinstall finds them already there)."""
    out = [list(p) for p in (previous or {}).get("created", [])]
    return out + [p for p in created if p not in out]


class Installer:
    def __init__(self, home: Path, state_dir: Path, now: datetime) -> None:
        self.home = home
        self.state_dir = state_dir
        self.now = now
        self.ledger = Ledger(state_dir)

    def install(
        self, agent: Agent, executable: str, env: dict[str, str], *, force: bool = False, hooks: Json | None = None
    ) -> Report:
        report = Report(agent.name)
        record = self.ledger.tool(agent.name)
        old_files: dict[str, Json] = record.get("files", {})
        docs: dict[Path, Doc] = {}
        parts: dict[str, list[Json]] = {}

        def doc(path: Path, kind: str) -> Doc:
            if path not in docs:
                docs[path] = files.load(path, kind)
                parts[str(path)] = []
            return docs[path]

        def previous(path: Path, kind: str, name: str = NAME) -> Json | None:
            for part in old_files.get(str(path), {}).get("parts", []):
                if part["kind"] == kind and part.get("name", "") == (name if kind == "entry" else ""):
                    return part
            return None

        mcp_path = agent.mcp_path(self.home)
        mcp_doc = doc(mcp_path, agent.mcp_kind)
        value = agent.entry(executable, env)
        prev = previous(mcp_path, "entry")
        mcp_state = _state(_current(mcp_doc, list(agent.mcp_at), NAME), value)
        created = put_entry(mcp_doc, list(agent.mcp_at), NAME, value, prev["value"] if prev else None,
                            force=force, what="an MCP server")  # fmt: skip
        created = _merged(prev, created)
        parts[str(mcp_path)].append({"kind": "entry", "at": list(agent.mcp_at), "name": NAME, "value": value,
                                     "created": created})  # fmt: skip
        report.lines.append(f"MCP server {mcp_state}: {mcp_path}")

        entries = hook_entries(agent.name) if hooks is None else hooks
        hooks_path = agent.hooks_path(self.home)
        if entries and hooks_path is not None:
            groups = resolve(entries, executable, milliseconds=agent.hooks_ms)
            hooks_doc = doc(hooks_path, "json")
            prev_hooks = previous(hooks_path, "hooks")
            present = hooks_doc.data.get("hooks", {}) if isinstance(hooks_doc.data, dict) else {}
            before = prev_hooks["groups"] if prev_hooks else None
            # Ours and still in the file as we wrote them (a hand edit may have taken them out).
            if before is not None and not all(g in present.get(e, []) for e, gs in before.items() for g in gs):
                before = None
            hooks_state = _state(before, groups)
            created = _merged(prev_hooks, add_hooks(hooks_doc, groups, prev_hooks["groups"] if prev_hooks else None))
            parts[str(hooks_path)].append({"kind": "hooks", "at": ["hooks"], "groups": groups, "created": created})
            count = sum(len(g.get("hooks", [])) for gs in groups.values() for g in gs)
            report.lines.append(f"{count} hooks {hooks_state}: {hooks_path} ({', '.join(groups)})")
            if agent.name == "codex":
                trusted = _codex_trust(hooks_doc, groups)
                old_trust = [p for p in old_files.get(str(mcp_path), {}).get("parts", [])
                             if p["kind"] == "entry" and p["at"] == ["hooks", "state"]]  # fmt: skip
                for old in old_trust:
                    if old["name"] not in trusted:
                        remove_entry(mcp_doc, old, force=False)
                for key, trust in trusted.items():
                    prev_trust = next((p for p in old_trust if p["name"] == key), None)
                    created = put_entry(mcp_doc, ["hooks", "state"], key, trust, None, force=True, what="a hook trust")
                    created = _merged(prev_trust, created)
                    parts[str(mcp_path)].append({"kind": "entry", "at": ["hooks", "state"], "name": key,
                                                 "value": trust, "created": created})  # fmt: skip
                report.lines.append(f"hooks trusted ({hooks_state}): {mcp_path}")

        new_files: dict[str, Json] = {}
        for path, d in docs.items():
            data = d.render()
            before = old_files.get(str(path))
            # The original bytes can be given back only while nobody else changed the file.
            restorable = before is None or (before.get("restorable", False) and files.sha(d.original) == before["sha"])
            if data != d.original:
                copy = files.backup(self.state_dir, path, self.now)
                files.write_atomic(path, data)
                report.changed.append(str(path))
                if copy is not None:
                    report.backups[str(path)] = str(copy)
                    report.lines.append(f"backed up {path} to {copy}")
                else:
                    report.lines.append(f"created {path}")
            new_files[str(path)] = {
                "sha": files.sha(data),
                "existed": before["existed"] if before else d.original is not None,
                "original": before["original"] if before else files.keep_original(self.state_dir, path, d.original),
                "restorable": restorable,
                "parts": parts[str(path)],
            }
        self.ledger.set_tool(agent.name, {"command": executable, "installed_at": self.now.isoformat(), "files": new_files})
        self.ledger.save()
        return report

    def uninstall(self, agent: Agent, *, force: bool = False) -> Report:
        report = Report(agent.name)
        record = self.ledger.tool(agent.name)
        if not record:
            report.lines.append("kenning was not installed here by kenning; nothing to remove")
            return report
        for path_text, rec in record.get("files", {}).items():
            path = Path(path_text)
            current = path.read_bytes() if path.exists() else None
            if current is None:
                continue
            if rec.get("restorable") and files.sha(current) == rec["sha"]:
                copy = files.backup(self.state_dir, path, self.now)
                report.changed.append(str(path))
                if copy is not None:
                    report.backups[str(path)] = str(copy)
                if rec["existed"]:
                    files.write_atomic(path, Path(rec["original"]).read_bytes())
                else:
                    path.unlink()
                report.lines.append(f"restored {path} as it was before install")
                continue
            d = files.load(path, "toml" if path.suffix == ".toml" else "json")
            for part in rec.get("parts", []):
                if part["kind"] == "hooks":
                    remove_hooks(d, part)
                else:
                    note = remove_entry(d, part, force=force)
                    if note:
                        report.lines.append(note)
            data = d.render()
            if data != current:
                copy = files.backup(self.state_dir, path, self.now)
                files.write_atomic(path, data)
                report.changed.append(str(path))
                if copy is not None:
                    report.backups[str(path)] = str(copy)
            report.lines.append(f"removed kenning's entries from {path}")
        self.ledger.set_tool(agent.name, None)
        self.ledger.save()
        return report


@dataclass
class Check:
    tool: str
    label: str
    detected: bool
    registered: bool
    ours: bool
    command: str
    runs: bool | None
    hooks: int
    problem: str = ""

    def line(self) -> str:
        if not self.registered:
            state = "not registered" + ("" if self.detected else " (not detected)")
            return f"{self.label:<12} {state}{': ' + self.problem if self.problem else ''}"
        runs = "command runs" if self.runs else f"command FAILS: {self.problem or 'see kenning doctor --json'}"
        who = "" if self.ours else " (entry written by hand)"
        return f"{self.label:<12} registered{who}, {runs} ({self.command}), {self.hooks} hooks"


def check(agent: Agent, home: Path, ledger: Ledger, path_env: str | None) -> Check:
    result = Check(agent.name, agent.label, agent.detected(home, path_env), False, bool(ledger.tool(agent.name)), "", None, 0)
    try:
        d = files.load(agent.mcp_path(home), agent.mcp_kind)
    except Exception as error:
        result.problem = str(error)
        return result
    container, _ = _walk(d, list(agent.mcp_at), create=False)
    entry = plain(container.get(NAME)) if container is not None else None
    if not isinstance(entry, dict):
        return result
    result.registered = True
    command = entry.get("command")
    argv = [str(c) for c in command] if isinstance(command, list) else [str(command), *map(str, entry.get("args", []))]
    result.command = " ".join(argv)
    result.runs, result.problem = _runs(argv)
    hooks_path = agent.hooks_path(home)
    if hooks_path is not None and hooks_path.exists():
        try:
            hd = files.load(hooks_path, "json")
            result.hooks = sum(
                1 for gs in hd.data.get("hooks", {}).values() if isinstance(gs, list) for g in gs
                for h in g.get("hooks", []) if KENNING_HOOK.search(str(h.get("command", "")))
            )  # fmt: skip
        except Exception as error:
            result.problem = str(error)
    return result


def _runs(argv: list[str]) -> tuple[bool, str]:
    """Start the registered command with --help: it must exit 0 within a few seconds."""
    try:
        done = subprocess.run([*argv, "--help"], capture_output=True, timeout=15, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as error:
        return False, str(error)
    if done.returncode != 0:
        return False, (done.stderr.decode(errors="replace").strip().splitlines() or [f"exit {done.returncode}"])[-1]
    return True, ""
