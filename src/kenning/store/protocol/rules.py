"""The rule store: the user's rules about which memories agents get (ready rules with a number,
and rules written as a sentence). Every method names its workspace. What a rule leaves out is
judged in :mod:`kenning.core.rules`; the store keeps the rules. (Policies, what a project
keeps, live with the memory store: a write checks them in the same transaction.)"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple, Protocol

from kenning.redacted import Redacted

# What ``update_rule`` may change.
RULE_FIELDS = frozenset({"enabled", "n", "text", "memory_kind"})


class RuleRow(NamedTuple):
    id: int
    workspace: str
    project: str  # "" holds for every project
    kind: str  # unused | proven | shipped | undone | sentence
    n: int
    memory_kind: str
    text: Redacted
    enabled: bool
    created_at: datetime


class RuleStore(Protocol):
    def add_rule(self, workspace: str, project: str, kind: str, n: int, memory_kind: str, text: Redacted,
                 at: datetime) -> int: ...  # fmt: skip
    def rules(self, workspace: str, project: str | None = None, *, enabled_only: bool = False) -> list[RuleRow]:
        """The workspace's rules (those that hold for ``project``: its own and the ones for
        every project, when given), newest first."""
        ...

    def sentence_rules(self, workspace: str, project: str) -> list[Redacted]:
        """The enabled sentence rules that hold for ``project`` in the order the brief shows them:
        this project's own first, then the longest-standing first (ties by id)."""
        ...

    def rule(self, workspace: str, rule_id: int) -> RuleRow | None: ...
    def update_rule(self, workspace: str, rule_id: int, at: datetime, **fields: object) -> None:
        """Change the named fields (of :data:`RULE_FIELDS`) of one rule."""
        ...

    def delete_rule(self, workspace: str, rule_id: int) -> None: ...

    # what a rule would leave out, counted without reading the memories
    def count_unproven(self, workspace: str, scopes: Sequence[str], n: int) -> int:
        """Active lessons of ``scopes`` used in fewer than ``n`` distinct sessions (the proven rule)."""
        ...

    def count_decisions_by_outcome(self, workspace: str, scopes: Sequence[str], word: str, *, having: bool) -> int:
        """Active decisions of ``scopes`` with (``having``) or without an Outcome line of their
        decision doc that starts with ``word`` (ASCII, any case): the shipped and undone rules."""
        ...
