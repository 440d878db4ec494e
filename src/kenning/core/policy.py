"""What a project keeps: policies per workspace, group and project, with inheritance.

Each setting resolves from the nearest level that sets it (project, then group, then
workspace, then kenning's default) and says where it came from. Banned words are the one
setting that accumulates: a word banned higher up stays banned.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from kenning.errors import Invalid, Refused
from kenning.model import Kind, Origin
from kenning.store.protocol import MemoryStore

WRITERS = ("agents", "automations", "apps", "memory-files")
# kenning's own default: every kind from the agents, kenning's automations and the agents'
# memory files. Apps (integrations and widgets, writing through `remember --origin app|widget`)
# are kept once a person allows them: the "everything" preset, or the writers setting.
DEFAULT_WRITERS = ("agents", "automations", "memory-files")
PRESETS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # preset -> (kinds, writers). At a project or group, "default" means the level above's.
    "default": (tuple(k.value for k in Kind), DEFAULT_WRITERS),
    "decisions-and-lessons": (("decision", "lesson"), DEFAULT_WRITERS),
    "everything": (tuple(k.value for k in Kind), WRITERS),
}
SETTINGS = ("preset", "kinds", "writers", "banned_words", "capture")
MEMORY_FILE_TOOL_SUFFIX = "-memory-file"


@dataclass(frozen=True)
class Resolved:
    value: object
    source: str  # "project", "group", "workspace" or "default"


@dataclass(frozen=True)
class Policy:
    preset: Resolved
    kinds: Resolved
    writers: Resolved
    banned_words: Resolved
    capture: Resolved

    def as_dict(self) -> dict[str, dict[str, object]]:
        return {
            name: {"value": getattr(self, name).value, "source": getattr(self, name).source}
            for name in SETTINGS
        }


def _levels(store: MemoryStore, workspace: str, scope: str) -> list[tuple[str, dict[str, str]]]:
    levels: list[tuple[str, dict[str, str]]] = []
    row = store.get_scope(workspace, scope)
    levels.append(("project", store.policies(workspace, scope)))
    if row is not None and row.parent:
        levels.append(("group", store.policies(workspace, row.parent)))
    levels.append(("workspace", store.policies(workspace, "")))
    return levels


def resolve(store: MemoryStore, workspace: str, scope: str) -> Policy:
    levels = _levels(store, workspace, scope)

    def first(setting: str) -> tuple[object, str] | None:
        for name, values in levels:
            if setting in values:
                return json.loads(values[setting]), name
        return None

    preset_found = first("preset")
    preset = Resolved(*(preset_found or ("default", "default")))
    kinds_p, writers_p = PRESETS[str(preset.value)]
    kinds_found = first("kinds")
    writers_found = first("writers")
    capture_found = first("capture")
    banned: list[str] = []
    banned_sources: list[str] = []
    for name, values in levels:
        if "banned_words" in values:
            for word in json.loads(values["banned_words"]):
                if word not in banned:
                    banned.append(word)
            banned_sources.append(name)
    return Policy(
        preset=preset,
        kinds=Resolved(*(kinds_found or (list(kinds_p), preset.source))),
        writers=Resolved(*(writers_found or (list(writers_p), preset.source))),
        banned_words=Resolved(banned, "+".join(banned_sources) or "default"),
        capture=Resolved(*(capture_found or (True, "default"))),
    )


def writer_category(origin: Origin, origin_tool: str) -> str | None:
    """The policy's writer category, or None for a person (never filtered)."""
    if origin is Origin.PERSON:
        return None
    if origin_tool.endswith(MEMORY_FILE_TOOL_SUFFIX):
        return "memory-files"
    if origin is Origin.AGENT:
        return "agents"
    if origin is Origin.AUTOMATION:
        return "automations"
    return "apps"


def check_write(policy: Policy, *, kind: Kind, origin: Origin, origin_tool: str, texts: list[str]) -> None:
    """Refuse what the project's policy does not keep. A person's own save is never filtered."""
    category = writer_category(origin, origin_tool)
    if category is None:
        return
    kinds = list(policy.kinds.value)  # type: ignore[call-overload]
    if kind.value not in kinds:
        raise Refused(
            f"this project keeps only {', '.join(kinds)} (policy set at {policy.kinds.source} level); not {kind.value}",
            fix="save it in a project that keeps this kind, or ask the person to change the policy (kenning memory policy)",
        )
    writers = list(policy.writers.value)  # type: ignore[call-overload]
    if category not in writers:
        allow = ",".join([*writers, category])
        raise Refused(
            f"this project does not keep memories written by {category} (policy set at {policy.writers.source} level)",
            fix=f"ask the person to save it, or to allow this writer with: kenning memory policy set writers {allow}",
        )
    haystack = " ".join(texts).casefold()
    for word in policy.banned_words.value:  # type: ignore[attr-defined]
        if str(word).casefold() in haystack:
            raise Refused(
                f"the text mentions {word!r}, a word this project's memory may never mention",
                fix="leave that word out of the memory",
            )


def set_setting(
    store: MemoryStore, workspace: str, scope: str, setting: str, value: str, at: datetime
) -> object:
    """Parse and store one setting at one level ('' scope = the workspace)."""
    parsed: object
    if setting == "preset":
        if value not in PRESETS:
            raise Invalid(f"preset {value!r} is unknown", fix=f"choose one of {', '.join(PRESETS)}")
        if value == "default" and scope:
            # "The workspace default": this project or group keeps what the level above keeps.
            for name in ("preset", "kinds", "writers"):
                store.clear_policy(workspace, scope, name)
            return value
        parsed = value
    elif setting in ("kinds", "writers"):
        allowed = [k.value for k in Kind] if setting == "kinds" else list(WRITERS)
        items = [v.strip() for v in value.split(",") if v.strip()]
        bad = [v for v in items if v not in allowed]
        if bad or not items:
            raise Invalid(
                f"{setting} {value!r} is not a list of {setting}",
                fix=f"give a comma-separated list of: {', '.join(allowed)}",
            )
        parsed = items
    elif setting == "banned_words":
        parsed = [v.strip() for v in value.split(",") if v.strip()]
    elif setting == "capture":
        lowered = value.strip().lower()
        if lowered not in ("on", "off", "true", "false", "yes", "no"):
            raise Invalid(f"capture {value!r} is not on or off", fix="write on or off")
        parsed = lowered in ("on", "true", "yes")
    else:
        raise Invalid(f"policy setting {setting!r} is unknown", fix=f"choose one of {', '.join(SETTINGS)}")
    store.set_policy(workspace, scope, setting, json.dumps(parsed), at)
    return parsed


def capture_enabled(store: MemoryStore, workspace: str, scope: str) -> bool:
    """Whether this project's sessions are captured."""
    return bool(resolve(store, workspace, scope).capture.value)
