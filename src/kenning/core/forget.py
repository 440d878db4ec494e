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
from typing import TYPE_CHECKING

from kenning.capture.lookup import find_session
from kenning.core.portable import text_digest
from kenning.errors import Invalid, NotFound
from kenning.ids import normalize_ref
from kenning.model import Memory
from kenning.store.protocol import StoredSession

if TYPE_CHECKING:
    from kenning.core.service import Core


@dataclass
class ForgetPlan:
    """What a forget deletes (shown before, and done on ``apply``)."""

    memories: list[Memory] = field(default_factory=list)
    session: StoredSession | None = None
    turns: int = 0
    facts: int = 0
    applied: bool = False

    def as_dict(self) -> dict[str, object]:
        return {
            "applied": self.applied,
            "memories": [{"ref": m.ref, "kind": m.kind.value, "scope": m.scope} for m in self.memories],
            "session": self.session.id if self.session else None,
            "turns": self.turns,
            "facts": self.facts,
        }


def plan_memories(core: Core, refs: list[str]) -> ForgetPlan:
    """The memories ``refs`` name (each must exist in this workspace)."""
    if not refs:
        raise Invalid("no memory named", fix="give one or more refs, e.g. kenning forget m:7f3a2b1c")
    plan = ForgetPlan()
    for raw in refs:
        memory = core.store.get(core.workspace, normalize_ref(raw))
        if memory is None or memory.workspace != core.workspace:
            raise NotFound(f"no memory {raw}", fix="check the ref with: kenning memory list --all")
        if memory not in plan.memories:
            plan.memories.append(memory)
    graph = core.stores.graph
    plan.facts = sum(graph.count_facts(core.workspace, memory_ref=m.ref) for m in plan.memories)
    return plan


def plan_session(core: Core, session: str, *, memories: bool) -> ForgetPlan:
    """The captured session ``session`` names (id, prefix or last), and with ``memories`` the
    memories it wrote."""
    capture = core.stores.capture
    row = find_session(capture, core.workspace, session)
    plan = ForgetPlan(session=row, turns=capture.turn_count(core.workspace, row.id))
    plan.facts = core.stores.graph.count_facts(core.workspace, session=row.id)
    if memories:
        raw = row.id.split(":", 1)[-1]
        plan.memories = [m for m in core.store.iter_all(core.workspace) if m.session in (row.id, raw)]
    return plan


def apply(core: Core, plan: ForgetPlan) -> ForgetPlan:
    """Delete what ``plan`` lists, leave the tombstones, and scrub the files."""
    stores, workspace, now = core.stores, core.workspace, core.now()
    with stores.transaction():
        for memory in plan.memories:
            stores.graph.delete_facts(workspace, memory_ref=memory.ref)
            stores.capture.forget_memory_file_ref(workspace, memory.ref)
            stores.memories.delete(workspace, memory.ref)
            stores.memories.add_tombstone(workspace, "memory", memory.ref, text_digest(memory.text), now)
        if plan.session is not None:
            sid = plan.session.id
            stores.graph.delete_facts(workspace, session=sid)
            stores.graph.forget_progress(workspace, sid)
            stores.capture.delete_session(workspace, sid)
            stores.hooks.forget_session(workspace, sid)
            stores.memories.add_tombstone(workspace, "session", sid, "", now)
    stores.scrub()
    plan.applied = True
    return plan
