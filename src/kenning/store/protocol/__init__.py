"""The storage contract: one protocol per store, and the bundle that carries them.

Backends keep their SQL dialect to themselves; everything above the store sees only these
protocols and the frozen values they take and return (no rows, no SQL). Every method names the
workspace it works in. Each protocol has a contract suite under ``tests/store/`` that every
backend in ``tests/store/backends.py`` passes.
"""

from kenning.store.protocol.bundle import StoreCheck, Stores
from kenning.store.protocol.capture import (
    CaptureCounts,
    CapturedSession,
    CaptureStore,
    ChunkFilter,
    ChunkHit,
    ChunkRow,
    LedgerEntry,
    SessionHead,
    StoredChunk,
    StoredSession,
    StoredTurn,
    TurnRow,
)
from kenning.store.protocol.graph import EntityRow, FactRow, GraphStore
from kenning.store.protocol.hooks import CHANNELS, SESSION_FIELDS, DeliveryRow, HookStateStore, SessionRow
from kenning.store.protocol.memories import (
    FACETS,
    Glance,
    Hit,
    IndexStats,
    MemoryFilter,
    MemoryStore,
    ScopeRow,
    SessionWrites,
    TidyCounts,
    Tombstone,
    TriggerRow,
    UseRow,
)
from kenning.store.protocol.notes import DiaryEntry, NotesStore, NoteValue
from kenning.store.protocol.rules import RULE_FIELDS, RuleRow, RuleStore
from kenning.store.protocol.work import TASK_FIELDS, HandoffRow, ItemRow, ProgressRow, TaskRow, WorkStore

__all__ = [
    "CHANNELS",
    "DeliveryRow",
    "RULE_FIELDS",
    "SESSION_FIELDS",
    "TASK_FIELDS",
    "HandoffRow",
    "HookStateStore",
    "ItemRow",
    "ProgressRow",
    "RuleRow",
    "RuleStore",
    "SessionRow",
    "TaskRow",
    "WorkStore",
    "DiaryEntry",
    "EntityRow",
    "FactRow",
    "GraphStore",
    "NoteValue",
    "NotesStore",
    "CaptureCounts",
    "CaptureStore",
    "CapturedSession",
    "ChunkFilter",
    "ChunkHit",
    "ChunkRow",
    "LedgerEntry",
    "SessionHead",
    "StoredChunk",
    "StoredSession",
    "StoredTurn",
    "TurnRow",
    "FACETS",
    "Glance",
    "Hit",
    "IndexStats",
    "MemoryFilter",
    "MemoryStore",
    "ScopeRow",
    "SessionWrites",
    "StoreCheck",
    "Stores",
    "TidyCounts",
    "Tombstone",
    "TriggerRow",
    "UseRow",
]
