"""The core as one object: what every adapter (CLI, MCP server, hooks, HTTP server) holds.

It binds a store, a clock and the settings, and forwards to the core modules; the modules
hold the behaviour and stay callable on their own in tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from kenning.clock import Clock, SystemClock, parse_as_of
from kenning.config import Settings
from kenning.core import curation, placements, policy
from kenning.core import recall as recall_mod
from kenning.core.scopes import Place, named, personal, place_for
from kenning.domain.lifecycle import in_recall_pool
from kenning.model import DecisionDoc, Memory, Placement, Placing, ReviewItem, Trigger
from kenning.store import BUSY_TIMEOUT_MS, open_stores
from kenning.store.protocol import MemoryFilter, MemoryStore, Stores

if TYPE_CHECKING:
    from kenning.core import decisions
    from kenning.core import remember as remember_mod

class Core:
    """The core over one bundle of stores (:class:`kenning.store.protocol.Stores`), a clock and
    the settings. Built once at each entry point: :meth:`open` (the stores the settings name)
    or ``Core(stores, clock, settings)`` over stores opened elsewhere."""

    def __init__(self, stores: Stores, clock: Clock | None = None, settings: Settings | None = None) -> None:
        self.stores = stores
        self.clock = clock or SystemClock()
        self.settings = settings

    @property
    def store(self) -> MemoryStore:
        """The memory store (``stores.memories``)."""
        return self.stores.memories

    @classmethod
    def open(cls, settings: Settings, clock: Clock | None = None, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> Core:
        """The core over the stores ``settings`` name, opened (and migrated) now."""
        return cls(open_stores(settings, busy_timeout_ms=busy_timeout_ms), clock, settings)

    def close(self) -> None:
        self.stores.close()

    @property
    def workspace(self) -> str:
        return self.settings.workspace if self.settings else "local"

    def now(self) -> datetime:
        return self.clock.now()

    # -- where ----------------------------------------------------------------------------
    def place(self, cwd: Path | str | None = None, *, project: str | None = None) -> Place:
        if project:
            return named(self.store, self.workspace, project, self.now())
        if cwd is None or str(cwd) == "":
            return personal(self.store, self.workspace, self.now())
        return place_for(self.store, self.workspace, Path(cwd), self.now())

    # -- write / read ---------------------------------------------------------------------
    def remember(self, place: Place, request: remember_mod.RememberRequest) -> remember_mod.RememberResult:
        from kenning.core import remember as remember_mod  # lazy: hooks never write memories

        return remember_mod.remember(self.store, place, request, self.now())

    def record_decision(
        self, place: Place, request: remember_mod.RememberRequest
    ) -> decisions.DecisionResult:
        from kenning.core import decisions

        return decisions.record(self.store, place, request, self.now())

    def give_out(self, place: Place, memories: list[Memory]) -> list[Memory]:
        """Keep out of what a session is about to receive what a person placed *not relevant
        here*, then apply the user's rules: they never remove anything, only keep memories out
        of what sessions receive."""
        from kenning.core import rules

        return rules.give_out(self, place, placements.keep_here(self.store, place, memories))

    def recall(
        self,
        place: Place,
        query: str,
        *,
        as_of: str | None = None,
        also: Sequence[str] = (),
        count: int = recall_mod.DEFAULT_COUNT,
        record: bool = True,
    ) -> recall_mod.RecallResult:
        when = parse_as_of(as_of) if as_of else None
        return recall_mod.recall(self.store, place, query, self.now(), as_of=when, also=also, count=count,
                                 gate=lambda ms: self.give_out(place, ms),
                                 record=record)  # fmt: skip

    def get(self, ref: str) -> Memory:
        return curation.fetch(self.store, self.workspace, ref)

    def list_memories(
        self, place: Place, *, offset: int = 0, limit: int = 100, include_inactive: bool = False
    ) -> list[Memory]:
        from kenning.model import Status

        statuses = tuple(Status) if include_inactive else (Status.ACTIVE,)
        return self.store.find(
            MemoryFilter(place.workspace, [place.project], statuses=statuses), offset=offset, limit=limit
        )

    def deliverable(self, memory: Memory) -> bool:
        return in_recall_pool(memory, self.now())

    def use(self, refs: Sequence[str], *, session: str = "", tool: str = "", branch: str = "") -> list[str]:
        from kenning.core import remember as remember_mod  # lazy: hooks never write memories
        from kenning.ids import normalize_ref

        normal = [normalize_ref(r) for r in refs]
        with self.store.transaction():
            return remember_mod.record_uses(
                self.store, self.workspace, normal, session=session, tool=tool, branch=branch, now=self.now()
            )

    # -- curation -------------------------------------------------------------------------
    def pin(self, ref: str) -> Memory:
        return curation.pin(self.store, self.workspace, ref, self.now())

    def unpin(self, ref: str) -> Memory:
        return curation.unpin(self.store, self.workspace, ref, self.now())

    def hide(self, ref: str) -> Memory:
        return curation.hide(self.store, self.workspace, ref, self.now())

    def give(self, ref: str) -> Memory:
        return curation.give(self.store, self.workspace, ref, self.now())

    def hold(self, ref: str) -> Memory:
        return curation.hold(self.store, self.workspace, ref, self.now())

    def release(self, ref: str) -> Memory:
        return curation.release(self.store, self.workspace, ref, self.now())

    def protect(self, ref: str, on: bool = True) -> Memory:
        return curation.protect(self.store, self.workspace, ref, self.now(), on)

    def retire(self, ref: str, why: str = "") -> Memory:
        return curation.retire(self.store, self.workspace, ref, self.now(), why)

    def bring_back(self, ref: str) -> Memory:
        return curation.bring_back(self.store, self.workspace, ref, self.now())

    def retire_session(self, place: Place, session: str, *, apply: bool) -> curation.SessionRetirement:
        return curation.retire_session(
            self.store, place.workspace, list(place.reach), session, self.now(), apply=apply
        )

    def history(self, ref: str) -> curation.History:
        return curation.history(self.store, self.workspace, ref)

    # -- placements -----------------------------------------------------------------------
    def place_memory(self, ref: str, decision: Placing, key: str = "", *, by: str = "") -> Placement:
        """Always give ``ref`` here, keep it out of here, or keep it out of agent runs."""
        return placements.decide(self, ref, decision, key, by=by)

    def unplace_memory(self, ref: str, decision: Placing, key: str = "") -> Placement:
        return placements.undo(self, ref, decision, key)

    def placements(self, ref: str) -> list[Placement]:
        return placements.listing(self, ref)

    # -- decisions ------------------------------------------------------------------------
    def decision_docs(self, place: Place) -> list[DecisionDoc]:
        return self.store.decision_docs(place.workspace, list(place.reach))

    def add_outcome(self, doc: DecisionDoc, line: str) -> DecisionDoc:
        from kenning.core import decisions

        return decisions.add_outcome(self.store, doc, line, self.now())

    # -- needs review ---------------------------------------------------------------------
    def reviews(self, place: Place) -> list[ReviewItem]:
        return self.store.reviews(place.workspace, list(place.reach))

    def propose(
        self,
        place: Place,
        kind: str,
        refs: list[str],
        *,
        text: str = "",
        when: Trigger | None = None,
        why: str = "",
        proposed_by: str = "agent",
    ) -> ReviewItem:
        from kenning.core import reviews

        return reviews.propose(
            self.store, place, kind, refs, self.now(), text=text, when=when, why=why, proposed_by=proposed_by
        )

    def resolve_review(self, place: Place, review_id: int, choice: str) -> ReviewItem:
        from kenning.core import reviews

        return reviews.resolve(self.store, place, review_id, choice, self.now())

    def accept_all(self, place: Place) -> tuple[str, list[ReviewItem]]:
        from kenning.core import reviews

        return reviews.accept_all(self.store, place, self.now())

    def undo_batch(self, place: Place, batch: str) -> list[ReviewItem]:
        from kenning.core import reviews

        return reviews.undo(self.store, place, batch, self.now())

    # -- policy ---------------------------------------------------------------------------
    def policy(self, place: Place) -> policy.Policy:
        return policy.resolve(self.store, place.workspace, place.project)

    def set_policy(self, place: Place, level: str, setting: str, value: str) -> object:
        scope = {"project": place.project, "group": place.group, "workspace": ""}.get(level)
        if scope is None or (level == "group" and not place.group):
            from kenning.errors import Invalid

            raise Invalid(
                f"level {level!r} is not available here",
                fix="use project or workspace (group only inside a group)",
            )
        return policy.set_setting(self.store, place.workspace, scope, setting, value, self.now())
