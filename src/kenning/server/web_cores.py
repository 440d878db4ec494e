"""The cores the server's pages run over, and how a change made on a page travels.

Each request gets a :class:`~kenning.core.service.Core` over the workspace's memory stores
inside one data-plane transaction of the server store, opened **as the browser session**
(its token hash and the chosen workspace): row-level security binds every statement to that
session and workspace, as it binds a device's sync, after web_login's own checks.

A page that changes something (every form goes through ``kenning.web.common.change``) gets
a core whose memory store notes each memory the change touched. When the change is done, in
the same transaction, each touched memory goes out as its author's sync record — the path a
push takes (:func:`kenning.sync.apply.apply_batch`): rows belong to their author, so a
memory of another account is refused ("propose a change through review") and nothing is
kept; otherwise the record takes the next number, so the author's machines pull the change
at their next sync, and the workspace's copy is materialized again from it. A change that
would write anything but a memory's own fields and history (a placement, a review, a rule, a
new memory) cannot travel yet and is refused before it writes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, cast

from kenning.clock import Clock
from kenning.config import Settings
from kenning.core.service import Core
from kenning.errors import Refused
from kenning.model import Memory, MemoryEvent
from kenning.server.auth import token_hash
from kenning.store.protocol import MemoryStore, Stores
from kenning.store.server.protocol import Grant, ServerStore, WorkspaceTx
from kenning.sync import records, wire
from kenning.sync.apply import Item, apply_batch
from kenning.web.auth import Viewer
from kenning.web.common import CoreProvider

# The server's cores write no files (no hooks, no capture): their settings name the workspace.
SERVER_HOME = Path("/nonexistent/kenning-server")
# Memory-store writes a change may make: they travel as the memory's record.
TRAVELS = frozenset({"update", "add_event"})
# Writes of the server's own (counters, scope names, caches): kept in its copy only.
LOCAL = frozenset({"mark_recalled", "add_use", "upsert_scope", "set_meta"})
WRITES = frozenset({
    "insert", "delete", "add_tombstone", "add_placement", "remove_placement", "save_decision_doc", "add_review",
    "update_review", "set_policy", "clear_policy",
})  # fmt: skip


class NotYetOnServer(Refused):
    """A change the server's pages cannot make travel yet."""


class RecordingMemories:
    """The workspace's memory store, noting which memories a change touched (see the module
    docstring); writes that cannot travel are refused before they happen."""

    def __init__(self, inner: MemoryStore) -> None:
        self.inner = inner
        self.touched: dict[str, None] = {}

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if name in WRITES:
            raise NotYetOnServer(f"this change ({name.replace('_', ' ')}) cannot be made on the team server's pages yet",
                                 fix="make it in kenning ui on your machine; kenning sync brings it here")  # fmt: skip
        return attr

    def update(self, memory: Memory) -> None:
        self.touched[memory.ref] = None
        self.inner.update(memory)

    def add_event(self, workspace: str, event: MemoryEvent) -> None:
        self.touched[event.ref] = None
        self.inner.add_event(workspace, event)


# How the other stores' writes begin (rules, and the stores still to come on PostgreSQL): none
# travels as a sync record yet, so a page may read them but not write them on the server.
WRITE_VERBS = ("add_", "update_", "delete_", "remove_", "save_", "set_", "clear_", "upsert_", "insert", "record_",
               "forget", "replace_", "put_")  # fmt: skip


class ReadingOnly:
    """Another store of the bundle: its reads pass, its writes are refused (see WRITE_VERBS)."""

    def __init__(self, inner: object, name: str) -> None:
        self.inner = inner
        self.name = name

    def __getattr__(self, name: str) -> Any:
        if name.startswith(WRITE_VERBS):
            raise NotYetOnServer(f"changes to the {self.name} cannot be made on the team server's pages yet",
                                 fix="make them in kenning ui on your machine")  # fmt: skip
        return getattr(self.inner, name)


class RecordingStores:
    """A :class:`Stores` bundle whose memory store records and whose other stores read only."""

    def __init__(self, inner: Stores) -> None:
        self.inner = inner
        self.memories = RecordingMemories(inner.memories)

    def __getattr__(self, name: str) -> Any:
        found = getattr(self.inner, name)
        if name in ("capture", "graph", "notes", "hooks", "work", "rules"):
            return ReadingOnly(found, f"{name} store")
        return found


def send_as_author(tx: WorkspaceTx, workspace: str, account: str, memories: MemoryStore, refs: list[str],
                   clock: Clock) -> None:  # fmt: skip
    """Each changed memory as ``account``'s sync record, as a push would send it; raises
    (so the transaction rolls back) when one is not the account's or is refused."""
    now = clock.now()
    for ref in refs:
        held = tx.record(wire.MEMORY, ref)
        if held is None or held.deleted:
            raise Refused(f"{ref} has no record on the server to change", fix="reload the page")
        if held.owner != account:
            raise Refused(f"{ref} belongs to another member: rows belong to their author",
                          fix="propose the change through review (on your machine), or ask its author")  # fmt: skip
        memory = memories.get(workspace, ref)
        if memory is None:
            raise Refused(f"{ref} is not in this workspace's memory", fix="reload the page")
        body = records.memory_body(memory, memories.events(workspace, ref))
        item = Item(wire.MEMORY, ref, "put", wire.digest(body), body, base=held.seq)
        [result] = apply_batch(tx, workspace, account, [item], now)
        if result.status == wire.REFUSED:
            raise Refused(f"{ref}: {result.message}", fix="make the change on your machine and kenning sync")


def session_cores(store: ServerStore, clock: Clock) -> CoreProvider:
    """A provider of cores over the workspace of each request's browser session."""

    @contextmanager
    def provide(viewer: Viewer, write: bool) -> Iterator[Core]:
        if not viewer.workspace or not viewer.account:
            raise PermissionError("a server page needs a signed-in account and a workspace")
        settings = Settings(home=SERVER_HOME, workspace=viewer.workspace)
        # The session's cookie secret is its token: the data plane admits the transaction by its hash.
        with store.workspace(Grant(token_hash(viewer.session_key), viewer.workspace), write=write) as tx:
            if not write:
                yield Core(tx.stores(), clock, settings)
                return
            tx.lock()  # writers of the workspace take turns, as pushes do
            stores = RecordingStores(tx.stores())
            yield Core(cast(Stores, stores), clock, settings)
            send_as_author(tx, viewer.workspace, viewer.account, stores.inner.memories, list(stores.memories.touched),
                           clock)  # fmt: skip

    def provider(viewer: Viewer, write: bool = False) -> AbstractContextManager[Core]:
        return provide(viewer, write)

    return provider
