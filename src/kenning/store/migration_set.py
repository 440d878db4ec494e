"""Numbered migrations of one subsystem, the part both engines share.

Each subsystem owns a named set; a step is an SQL script or a function of the engine's
connection. How a script runs is the engine's own (SQLite splits it into statements, PostgreSQL
sends it whole), so each backend's ``db`` module subclasses this with :meth:`run_script`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

C = TypeVar("C")


@dataclass
class MigrationSet(ABC, Generic[C]):
    name: str
    steps: list[tuple[str, Callable[[C], None]]] = field(default_factory=list)

    def add(self, name: str, sql_or_fn: str | Callable[[C], None]) -> None:
        """Add step ``name`` (unique in the set) after the others."""
        if any(existing == name for existing, _ in self.steps):
            raise ValueError(f"migration {self.name}/{name} is defined twice")
        if isinstance(sql_or_fn, str):
            script = sql_or_fn

            def run(conn: C) -> None:
                self.run_script(conn, script)

            self.steps.append((name, run))
        else:
            self.steps.append((name, sql_or_fn))

    @abstractmethod
    def run_script(self, conn: C, script: str) -> None:
        """Run an SQL script of several statements on ``conn`` (the engine's own way)."""


def wanted(sets: Sequence[MigrationSet[C]], stop_before: dict[str, str] | None) -> list[tuple[str, str]]:
    """(set, step) of every step to apply, in order; ``stop_before`` ends a set before a step
    (tests build older schemas with it)."""
    out: list[tuple[str, str]] = []
    for mset in sets:
        for name, _step in mset.steps:
            if stop_before and stop_before.get(mset.name) == name:
                break
            out.append((mset.name, name))
    return out
