"""The graph and notes stores' rows, once for both engines: the statement that reads facts with
their entities' names (the same SQL on SQLite and PostgreSQL), and how facts, entities, diary
entries and values read back. Times stay ISO text on both engines, so nothing needs decoding."""

from __future__ import annotations

from kenning.redacted import stored
from kenning.store.memory_rows import Row
from kenning.store.protocol.graph import EntityRow, FactRow
from kenning.store.protocol.notes import DiaryEntry, NoteValue

FACTS_SELECT = (
    "SELECT f.*, coalesce(se.name, f.subject) AS subject_name,"
    " CASE WHEN f.object_kind = 'entity' THEN coalesce(oe.name, f.object) ELSE f.object END AS object_name"
    " FROM graph_facts f"
    " LEFT JOIN graph_entities se ON se.workspace = f.workspace AND se.id = f.subject"
    " LEFT JOIN graph_entities oe ON oe.workspace = f.workspace AND oe.id = f.object AND f.object_kind = 'entity'"
)


def fact_of(row: Row) -> FactRow:
    """A row of :data:`FACTS_SELECT` as a :class:`FactRow`."""
    return FactRow(
        int(row["id"]), row["workspace"], row["project"], row["subject"], row["predicate"], row["object"],
        row["object_kind"], row["area"], row["valid_from"], row["valid_to"], float(row["confidence"]),
        row["origin"], row["session"], row["memory_ref"], row["person"], stored(row["evidence"]),
        row["created_at"], row["ended_by"], row["subject_name"], row["object_name"],
    )  # fmt: skip


def entity_of(row: Row) -> EntityRow:
    """A ``graph_entities`` row as an :class:`EntityRow`."""
    return EntityRow(row["workspace"], row["id"], stored(row["name"]), row["type"], row["created_at"])


def escape_like(text: str) -> str:
    """``text`` matched literally by ``LIKE ... ESCAPE '\\'``."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def diary_entry_of(row: Row) -> DiaryEntry:
    """A ``notes_diary`` row as a :class:`DiaryEntry`."""
    return DiaryEntry(int(row["id"]), row["workspace"], row["project"], stored(row["agent"]), row["at"],
                      stored(row["text"]))  # fmt: skip


def value_of(row: Row) -> NoteValue:
    """A ``notes_values`` row as a :class:`NoteValue`."""
    return NoteValue(row["workspace"], row["project"], row["key"], stored(row["value"]), row["updated_at"])
