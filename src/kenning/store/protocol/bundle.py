"""The stores a kenning process works with, bundled: what :class:`kenning.core.service.Core` is
built from, once, at each entry point (:func:`kenning.store.open_stores`)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import NamedTuple, Protocol

from kenning.store.protocol.capture import CaptureStore
from kenning.store.protocol.graph import GraphStore
from kenning.store.protocol.hooks import HookStateStore
from kenning.store.protocol.memories import MemoryStore
from kenning.store.protocol.notes import NotesStore
from kenning.store.protocol.rules import RuleStore
from kenning.store.protocol.work import WorkStore


class StoreCheck(NamedTuple):
    """What ``kenning doctor`` says about the store: ``state`` is ok, missing, locked, corrupt
    or unreadable; ``detail`` says what was seen and ``fix`` what to do."""

    state: str
    path: str
    detail: str
    fix: str = ""


class Stores(Protocol):
    """One backend's stores over one connection (or pool).

    ``transaction()`` spans every store of the bundle: what is written through any of them
    inside it is committed together or not at all; nested calls join the outer transaction.
    """

    @property
    def engine(self) -> str:
        """The engine's name ("sqlite", "postgresql"), for status lines and messages."""
        ...

    @property
    def memories(self) -> MemoryStore: ...
    @property
    def capture(self) -> CaptureStore: ...
    @property
    def graph(self) -> GraphStore: ...
    @property
    def notes(self) -> NotesStore: ...
    @property
    def hooks(self) -> HookStateStore: ...
    @property
    def work(self) -> WorkStore: ...
    @property
    def rules(self) -> RuleStore: ...

    def transaction(self) -> AbstractContextManager[object]: ...
    def close(self) -> None: ...

    def scrub(self) -> None:
        """After a delete meant for real (``kenning forget``): leave no copy of deleted data in
        the engine's files (SQLite: merge the full-text indexes, truncate the write-ahead log)."""
        ...

    def bytes_in_use(self) -> int:
        """Bytes of storage that hold data (free space left by deletes not counted)."""
        ...
