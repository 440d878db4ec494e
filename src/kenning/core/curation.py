"""What a person does to memories by hand: pin, hide, hold, protect, retire, bring back,
retire everything a session wrote, and the history of what replaced what."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from kenning.domain.lifecycle import INDEX_PIN_CAP
from kenning.errors import NotFound, Refused
from kenning.ids import normalize_ref
from kenning.model import Memory, MemoryEvent, Status
from kenning.store.protocol import MemoryFilter, MemoryStore


def fetch(store: MemoryStore, workspace: str, ref: str) -> Memory:
    memory = store.get(workspace, normalize_ref(ref))
    if memory is None:
        raise NotFound(f"no memory {ref}", fix="check the ref with: kenning memory list (refs look like m:7f3a2b1c)")
    return memory


def _flag(store: MemoryStore, workspace: str, ref: str, now: datetime, event: str, **changes: object) -> Memory:
    memory = fetch(store, workspace, ref)
    updated = memory.evolve(**changes)
    with store.transaction():
        store.update(updated)
        store.add_event(workspace, MemoryEvent(memory.ref, now, event))
    return updated


def pin(store: MemoryStore, workspace: str, ref: str, now: datetime) -> Memory:
    memory = fetch(store, workspace, ref)
    if not (memory.pinned or memory.index_pinned):
        pinned = [
            m
            for m in store.find(MemoryFilter(memory.workspace, [memory.scope]))
            if m.pinned or m.index_pinned
        ]
        if len(pinned) >= INDEX_PIN_CAP:
            raise Refused(
                f"this project already has {INDEX_PIN_CAP} pinned memories",
                fix="unpin one first: kenning memory unpin <ref>",
            )
    # Pinning wakes a resting memory: it counts as a restatement.
    return _flag(store, workspace, ref, now, "pinned", pinned=True, confirmed_at=now)


def unpin(store: MemoryStore, workspace: str, ref: str, now: datetime) -> Memory:
    return _flag(store, workspace, ref, now, "unpinned", pinned=False, index_pinned=False)


def hide(store: MemoryStore, workspace: str, ref: str, now: datetime) -> Memory:
    return _flag(store, workspace, ref, now, "hidden", hidden=True)


def give(store: MemoryStore, workspace: str, ref: str, now: datetime) -> Memory:
    """Give to sessions again (undo hide)."""
    return _flag(store, workspace, ref, now, "given", hidden=False)


def hold(store: MemoryStore, workspace: str, ref: str, now: datetime) -> Memory:
    return _flag(store, workspace, ref, now, "held", held=True)


def release(store: MemoryStore, workspace: str, ref: str, now: datetime) -> Memory:
    return _flag(store, workspace, ref, now, "released", held=False)


def protect(store: MemoryStore, workspace: str, ref: str, now: datetime, on: bool = True) -> Memory:
    return _flag(store, workspace, ref, now, "protected" if on else "unprotected", protected=on)


def retire(store: MemoryStore, workspace: str, ref: str, now: datetime, why: str = "") -> Memory:
    memory = fetch(store, workspace, ref)
    if memory.status is not Status.ACTIVE:
        raise Refused(
            f"{memory.ref} is already {memory.status.value}",
            fix="bring it back first if you meant to change it",
        )
    return _flag(store, workspace, ref, now, "retired", status=Status.RETIRED, status_at=now, status_note=why)


def bring_back(store: MemoryStore, workspace: str, ref: str, now: datetime) -> Memory:
    memory = fetch(store, workspace, ref)
    if memory.status is Status.ACTIVE:
        raise Refused(f"{memory.ref} is already active", fix="nothing to bring back")
    if memory.status is Status.SUPERSEDED and memory.status_note:
        newer = store.get(workspace, memory.status_note)
        if newer is not None and newer.status is Status.ACTIVE:
            raise Refused(
                f"{memory.ref} was replaced by {newer.ref}, which is still active",
                fix=f"retire {newer.ref} first, or restate the claim as a new memory",
            )
    return _flag(
        store,
        workspace,
        ref,
        now,
        "brought_back",
        status=Status.ACTIVE,
        status_at=None,
        status_note="",
        confirmed_at=now,
    )


@dataclass(frozen=True)
class SessionRetirement:
    session: str
    retire: list[Memory]
    kept: list[Memory]  # pinned or protected: never taken


def retire_session(
    store: MemoryStore, workspace: str, scopes: list[str], session: str, now: datetime, *, apply: bool
) -> SessionRetirement:
    """Everything one session wrote, except what the person pinned or protected. With
    ``apply=False`` it only shows what would happen (the preview)."""
    if not session.strip():
        raise NotFound(
            "no session given", fix="pass the session id shown by: kenning memory list --json (field session)"
        )
    written = store.find(MemoryFilter(workspace, scopes, session=session))
    retire_list = [m for m in written if not (m.pinned or m.protected)]
    kept = [m for m in written if m.pinned or m.protected]
    if apply:
        with store.transaction():
            for m in retire_list:
                store.update(
                    m.evolve(
                        status=Status.RETIRED, status_at=now, status_note=f"retired with session {session}"
                    )
                )
                store.add_event(workspace, MemoryEvent(m.ref, now, "retired", f"session {session}"))
    return SessionRetirement(session, retire_list, kept)


@dataclass(frozen=True)
class History:
    memory: Memory
    events: list[MemoryEvent]
    replaced: list[Memory]  # what this memory replaced, newest first
    replaced_by: list[Memory]  # what replaced it, oldest first


def history(store: MemoryStore, workspace: str, ref: str) -> History:
    memory = fetch(store, workspace, ref)
    replaced: list[Memory] = []
    frontier = [memory.ref]
    seen = {memory.ref}
    while frontier:
        current = frontier.pop()
        for event in store.events(workspace, current):
            if event.event == "replaced" and event.other_ref not in seen:
                old = store.get(workspace, event.other_ref)
                if old is not None:
                    replaced.append(old)
                    seen.add(old.ref)
                    frontier.append(old.ref)
    replaced.sort(key=lambda m: m.created_at, reverse=True)
    replaced_by: list[Memory] = []
    cursor = memory
    while cursor.status is Status.SUPERSEDED and cursor.status_note and cursor.status_note not in seen:
        nxt = store.get(workspace, cursor.status_note)
        if nxt is None:
            break
        replaced_by.append(nxt)
        seen.add(nxt.ref)
        cursor = nxt
    return History(memory, store.events(workspace, memory.ref), replaced, replaced_by)
