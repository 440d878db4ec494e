"""The notes store: diary entries agents write per project, and small named values per project.
Every method names its workspace."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from kenning.redacted import Redacted


@dataclass(frozen=True)
class DiaryEntry:
    id: int
    workspace: str
    project: str
    agent: Redacted
    at: str  # ISO time
    text: Redacted


@dataclass(frozen=True)
class NoteValue:
    workspace: str
    project: str
    key: str
    value: Redacted
    updated_at: str  # ISO time


class NotesStore(Protocol):
    def diary_add(self, workspace: str, project: str, agent: Redacted, at: str, text: Redacted) -> int:
        """Add an entry; returns its id."""
        ...

    def diary(self, workspace: str, project: str, agent: str = "", since: str = "", limit: int = 20
              ) -> list[DiaryEntry]:  # fmt: skip
        """Entries of one project (of one agent, from ``since`` on, when given), newest first."""
        ...

    def all_diary(self, workspace: str) -> list[DiaryEntry]:
        """Every entry, oldest first (ties by id)."""
        ...

    def diary_count(self, workspace: str, project: str, agent: str, at: str, text: str) -> int:
        """How many entries say exactly this (an import adds an entry only once)."""
        ...

    def set_value(self, workspace: str, project: str, key: str, value: Redacted, now: str) -> None: ...
    def value(self, workspace: str, project: str, key: str) -> NoteValue | None: ...
    def values(self, workspace: str, project: str) -> list[NoteValue]:
        """One project's values, by key."""
        ...

    def all_values(self, workspace: str) -> list[NoteValue]:
        """Every value, by project then key."""
        ...
