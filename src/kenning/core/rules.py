"""The user's rules: which memories agents get. A rule only decides what is given out; it never
removes a memory, and what it leaves out returns when it is turned off.

Ready rules: leave out what nobody used for N days (60), keep only lessons used in at least N
sessions (2), keep only decisions from work that shipped, drop what came from work that was
undone (read from the Outcome lines of decision docs: "Shipped …", "Reverted …"). A rule
written as a sentence is never checked; agents are told it under "Rules".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from kenning.domain.lifecycle import last_activity
from kenning.errors import Invalid, NotFound
from kenning.model import Kind, Memory
from kenning.redacted import EMPTY, one_line, redacted
from kenning.store.protocol import MemoryFilter, RuleRow

if TYPE_CHECKING:
    from kenning.core.scopes import Place
    from kenning.core.service import Core

READY = {"unused": 60, "proven": 2, "shipped": 0, "undone": 0}
KINDS = (*READY, "sentence")
MAX_SENTENCE = 300


def give_out(core: Core, place: Place, memories: list[Memory]) -> list[Memory]:
    if not memories:
        return memories
    rules = [r for r in core.stores.rules.rules(core.workspace, place.project, enabled_only=True)
             if r.kind != "sentence"]  # fmt: skip
    if not rules:
        return memories
    out: set[str] = set()
    for rule in rules:
        out |= left_out(core, rule, memories)
    return [m for m in memories if m.ref not in out]


def left_out(core: Core, rule: RuleRow, memories: list[Memory]) -> set[str]:
    """Refs among ``memories`` that ``rule`` keeps out of what sessions receive."""
    now = core.now()
    if rule.kind == "unused":
        cutoff = now - timedelta(days=rule.n)
        return {m.ref for m in memories if (not rule.memory_kind or m.kind.value == rule.memory_kind)
                and not (m.pinned or m.index_pinned) and last_activity(m) < cutoff}  # fmt: skip
    if rule.kind == "proven":
        lessons = [m for m in memories if m.kind is Kind.LESSON]
        counts = core.store.use_sessions(core.workspace, [m.ref for m in lessons])
        return {m.ref for m in lessons if counts.get(m.ref, 0) < rule.n}
    if rule.kind in ("shipped", "undone"):
        decisions = [m for m in memories if m.kind is Kind.DECISION]
        outcomes = core.store.outcomes(core.workspace, [m.ref for m in decisions])
        if rule.kind == "shipped":
            return {m.ref for m in decisions
                    if not any(line.lower().startswith("shipped") for line in outcomes.get(m.ref, ()))}  # fmt: skip
        return {m.ref for m in memories
                if any(line.lower().startswith("reverted") for line in outcomes.get(m.ref, ()))}  # fmt: skip
    return set()


# ------------------------------------------------------------------------- management


@dataclass(frozen=True)
class RuleView:
    rule: RuleRow
    words: str
    leaves_out: int


def describe(rule: RuleRow) -> str:
    what = f"{rule.memory_kind} memories" if rule.memory_kind else "memories"
    if rule.kind == "unused":
        return f"Leave out {what} nobody used for {rule.n} days"
    if rule.kind == "proven":
        return f"Keep only lessons used in at least {rule.n} sessions"
    if rule.kind == "shipped":
        return "Keep only decisions from work that shipped"
    if rule.kind == "undone":
        return "Drop what came from work that was undone"
    return rule.text


def add_ready(core: Core, kind: str, *, n: int | None = None, project: str = "", memory_kind: str = "") -> int:
    if kind not in READY:
        raise Invalid(f"ready rule {kind!r} is unknown", fix=f"choose one of {', '.join(READY)}")
    value = READY[kind] if n is None else n
    if kind in ("unused", "proven") and value < 1:
        raise Invalid(f"N must be at least 1, not {value}", fix="give a positive number")
    if memory_kind and memory_kind not in {k.value for k in Kind}:
        raise Invalid(f"kind {memory_kind!r} is unknown", fix=f"use one of {', '.join(k.value for k in Kind)}")
    return core.stores.rules.add_rule(core.workspace, project, kind, value, memory_kind, EMPTY, core.now())


def add_sentence(core: Core, text: str, *, project: str = "") -> int:
    cleaned = one_line(text)
    if not cleaned:
        raise Invalid("the rule is empty", fix="write the rule as one sentence")
    if len(cleaned) > MAX_SENTENCE:
        raise Invalid(f"the rule is {len(cleaned)} characters long", fix=f"keep it under {MAX_SENTENCE}")
    return core.stores.rules.add_rule(core.workspace, project, "sentence", 0, "", redacted(cleaned), core.now())


def _get(core: Core, rule_id: int) -> RuleRow:
    rule = core.stores.rules.rule(core.workspace, rule_id)
    if rule is None:
        raise NotFound(f"rule {rule_id} does not exist", fix="list rules with: kenning memory rules list")
    return rule


def set_enabled(core: Core, rule_id: int, on: bool) -> RuleRow:
    _get(core, rule_id)
    core.stores.rules.update_rule(core.workspace, rule_id, core.now(), enabled=on)
    return _get(core, rule_id)


def set_n(core: Core, rule_id: int, n: int) -> RuleRow:
    rule = _get(core, rule_id)
    if rule.kind not in ("unused", "proven") or n < 1:
        raise Invalid("only the unused and proven rules take a positive N", fix="give N >= 1 to one of those")
    core.stores.rules.update_rule(core.workspace, rule_id, core.now(), n=n)
    return _get(core, rule_id)


def remove(core: Core, rule_id: int) -> None:
    _get(core, rule_id)
    core.stores.rules.delete_rule(core.workspace, rule_id)


def count_left_out(core: Core, rule: RuleRow, scopes: list[str]) -> int:
    """How many active memories of ``scopes`` ``rule`` keeps out: the same judgement as
    :func:`left_out`, read from the store without loading every memory (a listing at 10k
    memories must stay fast)."""
    if rule.kind == "sentence":
        return 0
    if rule.kind == "unused":
        kinds = (Kind(rule.memory_kind),) if rule.memory_kind else None
        idle = MemoryFilter(core.workspace, scopes, kinds=kinds, idle_before=core.now() - timedelta(days=rule.n))
        return core.store.count(idle)
    if rule.kind == "proven":
        return core.stores.rules.count_unproven(core.workspace, scopes, rule.n)
    if rule.kind in ("shipped", "undone"):
        # Outcomes belong to decisions: shipped keeps those with a "Shipped" line, undone drops
        # those with a "Reverted" one (the words left_out reads).
        word, having = ("shipped", False) if rule.kind == "shipped" else ("reverted", True)
        return core.stores.rules.count_decisions_by_outcome(core.workspace, scopes, word, having=having)
    return 0


def listing(core: Core, place: Place | None) -> list[RuleView]:
    """Every rule for this project (or all), with how many of its memories each leaves out."""
    rules = core.stores.rules.rules(core.workspace, place.project if place else None)
    return [RuleView(rule, describe(rule), count_left_out(core, rule, [place.project]) if place else 0)
            for rule in rules]  # fmt: skip


def listing_everywhere(core: Core) -> list[RuleView]:
    """Every rule of the workspace; each counts what it leaves out where it holds (its
    project's memories, or every project's for a rule that holds for all)."""
    from kenning.core.browse import scope_keys

    return [RuleView(rule, describe(rule), count_left_out(core, rule, scope_keys(core, rule.project)))
            for rule in core.stores.rules.rules(core.workspace)]  # fmt: skip
