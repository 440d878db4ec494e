"""Forget: delete for real, where everything else in kenning only retires or hides.

``forget`` of a memory deletes its row, its full-text terms and their statistics, its history
and uses, its decision doc, the graph facts recorded from it, the review items that name it and
the imported-file record that made it. ``forget`` of a session deletes its captured turns and
chunks (and their full-text entries), the session itself, what the hooks kept of it, the graph
facts extracted from it, and with ``memories=True`` the memories it wrote. Then the full-text
indexes are merged and the write-ahead log truncated, so the bytes are gone from the files
(the connection runs with ``secure_delete``).

Each forgotten thing leaves a tombstone (a memory's ref and a hash of its text, never the
text; a session's id) so that a later ``kenning sessions sync`` or ``kenning import`` does not
bring it back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kenning.capture.lookup import find_session
from kenning.core.portable import text_digest
from kenning.errors import Invalid, NotFound
from kenning.ids import normalize_ref
from kenning.model import Memory
from kenning.store.sqlite.capture_store import CaptureStore
from kenning.store.sqlite.graph_store import GraphStore

if TYPE_CHECKING:
    from kenning.core.service import Core
    from kenning.store.sqlite.db import Database


@dataclass
class ForgetPlan:
    """What a forget deletes (shown before, and done on ``apply``)."""

    memories: list[Memory] = field(default_factory=list)
    session: dict[str, Any] | None = None
    turns: int = 0
    facts: int = 0
    applied: bool = False

    def as_dict(self) -> dict[str, object]:
        return {
            "applied": self.applied,
            "memories": [{"ref": m.ref, "kind": m.kind.value, "scope": m.scope} for m in self.memories],
            "session": self.session["id"] if self.session else None,
            "turns": self.turns,
            "facts": self.facts,
        }


def _db(core: Core) -> Database:
    if core.db is None:
        raise RuntimeError("forget needs the SQLite store")
    return core.db


def plan_memories(core: Core, refs: list[str]) -> ForgetPlan:
    """The memories ``refs`` name (each must exist in this workspace)."""
    if not refs:
        raise Invalid("no memory named", fix="give one or more refs, e.g. kenning forget m:7f3a2b1c")
    plan = ForgetPlan()
    for raw in refs:
        memory = core.store.get(normalize_ref(raw))
        if memory is None or memory.workspace != core.workspace:
            raise NotFound(f"no memory {raw}", fix="check the ref with: kenning memory list --all")
        if memory not in plan.memories:
            plan.memories.append(memory)
    graph = GraphStore(_db(core))
    plan.facts = sum(graph.count_facts(core.workspace, memory_ref=m.ref) for m in plan.memories)
    return plan


def plan_session(core: Core, session: str, *, memories: bool) -> ForgetPlan:
    """The captured session ``session`` names (id, prefix or last), and with ``memories`` the
    memories it wrote."""
    db = _db(core)
    row = find_session(db, session, workspace=core.workspace)
    plan = ForgetPlan(session=row, turns=CaptureStore(db).turn_count(row["id"]))
    plan.facts = GraphStore(db).count_facts(core.workspace, session=row["id"])
    if memories:
        raw = row["id"].split(":", 1)[-1]
        plan.memories = [m for m in core.store.iter_all(core.workspace) if m.session in (row["id"], raw)]
    return plan


def apply(core: Core, plan: ForgetPlan) -> ForgetPlan:
    """Delete what ``plan`` lists, leave the tombstones, and scrub the files."""
    db, now = _db(core), core.now()
    graph, capture = GraphStore(db), CaptureStore(db)
    with core.store.transaction():
        for memory in plan.memories:
            graph.delete_facts(core.workspace, memory_ref=memory.ref)
            capture.forget_memory_file_ref(memory.ref)
            core.store.delete(memory.ref)
            core.store.add_tombstone(core.workspace, "memory", memory.ref, text_digest(memory.text), now)
        if plan.session is not None:
            sid = plan.session["id"]
            graph.delete_facts(core.workspace, session=sid)
            capture.delete_session(sid)
            core.store.add_tombstone(core.workspace, "session", sid, "", now)
    db.scrub()
    plan.applied = True
    return plan
