"""Export and import: a workspace's memory as JSON Lines, one record a line.

``kenning export`` writes, in this order: a header, the scopes (projects and groups), every
memory with its history (events) and uses, the decision docs, the knowledge graph (entities
and facts), diary entries and named values, and the tombstones of what was forgotten.
``kenning import`` reads such a file into the current workspace in one transaction: a memory
whose ref is already there, or was forgotten here, is skipped with its history; a decision doc,
fact, diary entry or value already there is not written twice; a bad line changes nothing.

Round trip equal: an export imported into an empty store exports the same lines again
(tests/core/test_portable.py). Internal row ids are not exported; a fact that ended another
names it by its place among the exported facts. Not exported: captured transcripts (sync
captures them again from the agent tools' files), hook state, branch goals and tasks, policies.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from datetime import datetime
from enum import Enum
from typing import Any

from kenning import __version__
from kenning.clock import from_iso, to_iso
from kenning.errors import Invalid
from kenning.model import (
    Citation,
    DecisionDoc,
    Kind,
    Memory,
    MemoryEvent,
    Origin,
    Placement,
    Placing,
    Status,
    Trigger,
)
from kenning.redacted import redacted
from kenning.store.protocol import FactRow, ScopeRow, Stores, UseRow

FORMAT = "kenning-export"
VERSION = 1
Record = dict[str, Any]


def text_digest(text: str) -> str:
    """What a tombstone keeps of a forgotten memory: a hash of its normalised text, never the text."""
    return hashlib.sha256(" ".join(text.casefold().split()).encode()).hexdigest()


# -- memories as records --------------------------------------------------------------------
def _plain(value: object) -> object:
    if isinstance(value, datetime):
        return to_iso(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Trigger):
        return value.to_text()
    if isinstance(value, tuple):
        return list(value)
    return value


def memory_record(memory: Memory) -> Record:
    out = {f.name: _plain(getattr(memory, f.name)) for f in fields(Memory) if f.name != "workspace"}
    return {"type": "memory", **out}


def memory_from_record(rec: Record, workspace: str) -> Memory:
    times = ("created_at", "confirmed_at", "status_at", "last_used_at")
    texts = ("text", "reason", "rejected", "status_note")
    known = {f.name for f in fields(Memory)} - {"workspace"}
    unknown = set(rec) - known - {"type"}
    if unknown:
        raise Invalid(f"memory {rec.get('ref')!r} has unknown fields {sorted(unknown)}",
                      fix="export it again with this version of kenning")  # fmt: skip
    values: dict[str, Any] = {k: v for k, v in rec.items() if k in known}
    for name in times:
        if values.get(name):
            values[name] = from_iso(values[name])
    for name in texts:
        values[name] = redacted(str(values.get(name) or ""))
    values["kind"] = Kind(values["kind"])
    values["origin"] = Origin(values["origin"])
    values["status"] = Status(values.get("status", "active"))
    values["citation"] = Citation(values.get("citation", "unchecked"))
    values["trigger"] = Trigger.from_text(values["trigger"]) if values.get("trigger") else None
    values["tags"] = tuple(values.get("tags") or ())
    return Memory(workspace=workspace, **values)


# -- export ---------------------------------------------------------------------------------
def export_records(stores: Stores, workspace: str, now: datetime) -> Iterator[Record]:
    """Every record of ``workspace``, header first, in a stable order."""
    store, graph = stores.memories, stores.graph
    yield {"type": "header", "format": FORMAT, "version": VERSION, "kenning": __version__,
           "workspace": workspace, "exported_at": to_iso(now)}  # fmt: skip
    scopes = store.list_scopes(workspace)
    for s in scopes:
        yield {"type": "scope", "key": s.key, "kind": s.kind, "name": s.name, "root": s.root, "parent": s.parent,
               "created_at": to_iso(s.created_at), "removed_at": to_iso(s.removed_at) if s.removed_at else None}  # fmt: skip
    for memory in sorted(store.iter_all(workspace), key=lambda m: (m.created_at, m.ref)):
        yield memory_record(memory)
        for e in store.events(workspace, memory.ref):
            yield {"type": "event", "ref": e.ref, "at": to_iso(e.at), "event": e.event, "detail": e.detail,
                   "other_ref": e.other_ref}  # fmt: skip
        for u in store.uses(workspace, memory.ref):
            yield {"type": "use", "ref": u.ref, "session": u.session, "tool": u.tool, "branch": u.branch,
                   "at": to_iso(u.at)}  # fmt: skip
        for p in store.placements(workspace, [memory.ref]):
            yield {"type": "placement", "ref": p.ref, "decision": p.decision.value, "place": p.place,
                   "at": to_iso(p.created_at), "by": p.by}  # fmt: skip
    docs = store.decision_docs(workspace, [s.key for s in scopes] + ["personal", "global"])
    for d in sorted(docs, key=lambda d: (d.created_at, d.scope, d.title, d.author)):
        yield {"type": "decision_doc", "scope": d.scope, "title": d.title, "decision": d.decision, "reason": d.reason,
               "rejected": d.rejected, "confidence": d.confidence, "source_ref": d.source_ref,
               "outcome": list(d.outcome), "memory_ref": d.memory_ref, "author": d.author, "area": d.area,
               "created_at": to_iso(d.created_at), "updated_at": to_iso(d.updated_at)}  # fmt: skip
    for entity in graph.entities(workspace):
        yield {"type": "entity", "id": entity.id, "name": entity.name, "entity_type": entity.type,
               "created_at": entity.created_at}  # fmt: skip
    facts = graph.all_facts(workspace)
    place = {f.id: n for n, f in enumerate(facts)}
    for f in facts:
        yield {"type": "fact", "project": f.project, "subject": f.subject, "predicate": f.predicate, "object": f.object,
               "object_kind": f.object_kind, "area": f.area, "valid_from": f.valid_from, "valid_to": f.valid_to,
               "confidence": f.confidence, "origin": f.origin, "session": f.session, "memory_ref": f.memory_ref,
               "person": f.person, "evidence": f.evidence, "created_at": f.created_at,
               "ended_by": place.get(f.ended_by) if f.ended_by is not None else None}  # fmt: skip
    for entry in stores.notes.all_diary(workspace):
        yield {"type": "diary", "project": entry.project, "agent": entry.agent, "at": entry.at, "text": entry.text}
    for v in stores.notes.all_values(workspace):
        yield {"type": "value", "project": v.project, "key": v.key, "value": v.value, "updated_at": v.updated_at}
    for t in store.tombstones(workspace):
        yield {"type": "tombstone", "kind": t.kind, "key": t.key, "digest": t.digest, "at": to_iso(t.at)}


# -- import ---------------------------------------------------------------------------------
@dataclass
class ImportReport:
    added: dict[str, int] = field(default_factory=dict)  # record type -> how many written
    already_there: dict[str, int] = field(default_factory=dict)
    forgotten: list[str] = field(default_factory=list)  # refs skipped: forgotten in this store

    def as_dict(self) -> dict[str, object]:
        return {"added": self.added, "already_there": self.already_there, "forgotten": self.forgotten}


def parse_lines(lines: Iterable[str]) -> list[Record]:
    """The records of an export, checked: JSON objects, a kenning header first."""
    records: list[Record] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise Invalid(f"line {number} is not JSON ({exc.msg})", fix="give a file written by kenning export") from exc
        if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
            raise Invalid(f"line {number} is not a kenning record", fix="give a file written by kenning export")
        records.append(rec)
    if not records or records[0]["type"] != "header" or records[0].get("format") != FORMAT:
        raise Invalid("this is not a kenning export (no kenning-export header on its first line)",
                      fix="give a file written by kenning export")  # fmt: skip
    if records[0].get("version") != VERSION:
        raise Invalid(f"export format version {records[0].get('version')!r} is not {VERSION}",
                      fix="import it with the release that wrote it, or export again")  # fmt: skip
    return records


class _Importer:
    def __init__(self, stores: Stores, workspace: str) -> None:
        self.store, self.graph, self.notes, self.workspace = stores.memories, stores.graph, stores.notes, workspace
        store = self.store
        self.report = ImportReport()
        self.gone = {t.key for t in store.tombstones(workspace) if t.kind == "memory"}
        self.gone_digests = {t.digest for t in store.tombstones(workspace) if t.kind == "memory" and t.digest}
        self.skipped: set[str] = set()  # refs not imported: their events and uses stay out too
        self.fact_ids: list[int | None] = []
        self.ends: list[tuple[int, int]] = []  # (new fact id, place of the fact that ended it)
        self.diary_seen: dict[tuple[str, str, str, str], int] = {}
        self.facts_seen: dict[tuple[str, str, str, str, str], int] = {}

    def count(self, kind: str, added: bool) -> None:
        bucket = self.report.added if added else self.report.already_there
        bucket[kind] = bucket.get(kind, 0) + 1

    def scope(self, r: Record) -> None:
        there = self.store.get_scope(self.workspace, r["key"]) is not None
        if not there:
            self.store.upsert_scope(ScopeRow(self.workspace, r["key"], r["kind"], r["name"], r.get("root", ""),
                                             r.get("parent", ""), from_iso(r["created_at"]),
                                             from_iso(r["removed_at"]) if r.get("removed_at") else None))  # fmt: skip
        self.count("scope", not there)

    def memory(self, r: Record) -> None:
        memory = memory_from_record(r, self.workspace)
        if memory.ref in self.gone or text_digest(memory.text) in self.gone_digests:
            self.skipped.add(memory.ref)
            self.report.forgotten.append(memory.ref)
            return
        if self.store.get(self.workspace, memory.ref) is not None:
            self.skipped.add(memory.ref)
            self.count("memory", False)
            return
        self.store.insert(memory)
        self.count("memory", True)

    def event(self, r: Record) -> None:
        if r["ref"] in self.skipped:
            return
        self.store.add_event(self.workspace, MemoryEvent(r["ref"], from_iso(r["at"]), r["event"], redacted(r.get("detail", "")),
                                         r.get("other_ref", "")))  # fmt: skip
        self.count("event", True)

    def use(self, r: Record) -> None:
        if r["ref"] in self.skipped:
            return
        self.store.add_use(self.workspace, UseRow(r["ref"], r.get("session", ""), r.get("tool", ""), r.get("branch", ""),
                                  from_iso(r["at"])))  # fmt: skip
        self.count("use", True)

    def placement(self, r: Record) -> None:
        if r["ref"] in self.skipped:
            return
        added = self.store.add_placement(Placement(r["ref"], self.workspace, Placing(r["decision"]), r.get("place", ""),
                                                   from_iso(r["at"]), r.get("by", "")))  # fmt: skip
        self.count("placement", added)

    def decision_doc(self, r: Record) -> None:
        if r.get("memory_ref") in self.skipped or self.store.decision_doc(
                self.workspace, r["scope"], r["title"], r["author"]) is not None:  # fmt: skip
            self.count("decision_doc", False)
            return
        self.store.save_decision_doc(DecisionDoc(
            0, self.workspace, r["scope"], redacted(r["title"]), redacted(r["decision"]), redacted(r["reason"]),
            redacted(r["rejected"]), float(r["confidence"]), r["source_ref"],
            tuple(redacted(line) for line in r["outcome"]), r["memory_ref"], r["author"],
            from_iso(r["created_at"]), from_iso(r["updated_at"]), r.get("area", ""),
        ))  # fmt: skip
        self.count("decision_doc", True)

    def entity(self, r: Record) -> None:
        there = self.graph.entity(self.workspace, r["id"]) is not None
        if not there:
            self.graph.ensure_entity(self.workspace, r["id"], redacted(r["name"]), r["entity_type"], r["created_at"])
        self.count("entity", not there)

    def fact(self, r: Record) -> None:
        # The same fact can stand twice (stated again after it ended, at the same moment): the
        # n-th record of it in the file is the n-th one in the store, as diary entries are.
        key = (r["subject"], r["predicate"], r["object"], r["area"], r["valid_from"])
        self.facts_seen[key] = self.facts_seen.get(key, 0) + 1
        there = self.graph.find_facts(self.workspace, *key)
        same = there[self.facts_seen[key] - 1] if len(there) >= self.facts_seen[key] else None
        if same is not None or r.get("memory_ref") in self.skipped:
            self.fact_ids.append(same)
            self.count("fact", False)
            return
        new_id = self.graph.insert(FactRow(
            0, self.workspace, r["project"], r["subject"], r["predicate"], r["object"], r["object_kind"], r["area"],
            r["valid_from"], r["valid_to"], float(r["confidence"]), r["origin"], r["session"], r["memory_ref"],
            r["person"], redacted(r["evidence"]), r["created_at"], None,
        ))  # fmt: skip
        self.fact_ids.append(new_id)
        if r.get("ended_by") is not None:
            self.ends.append((new_id, int(r["ended_by"])))
        self.count("fact", True)

    def diary(self, r: Record) -> None:
        # The same entry twice in the file is two entries; one already in the store is not written again.
        key = (r["project"], r["agent"], r["at"], r["text"])
        self.diary_seen[key] = self.diary_seen.get(key, 0) + 1
        there = self.notes.diary_count(self.workspace, *key) >= self.diary_seen[key]
        if not there:
            self.notes.diary_add(self.workspace, r["project"], redacted(r["agent"]), r["at"], redacted(r["text"]))
        self.count("diary", not there)

    def value(self, r: Record) -> None:
        current = self.notes.value(self.workspace, r["project"], r["key"])
        newer = current is None or current.updated_at < r["updated_at"]
        if newer:
            self.notes.set_value(self.workspace, r["project"], r["key"], redacted(r["value"]), r["updated_at"])
        self.count("value", newer)

    def tombstone(self, r: Record) -> None:
        added = self.store.add_tombstone(self.workspace, r["kind"], r["key"], r.get("digest", ""), from_iso(r["at"]))
        self.count("tombstone", added)

    def finish(self) -> None:
        for new_id, place in self.ends:
            ended_by = self.fact_ids[place] if 0 <= place < len(self.fact_ids) else None
            if ended_by is not None:
                self.graph.set_ended_by(self.workspace, new_id, ended_by)


def import_records(stores: Stores, workspace: str, records: list[Record]) -> ImportReport:
    """Write ``records`` (checked by :func:`parse_lines`) into ``workspace``, all or nothing."""
    importer = _Importer(stores, workspace)
    handlers = {"scope": importer.scope, "memory": importer.memory, "event": importer.event, "use": importer.use,
                "placement": importer.placement,
                "decision_doc": importer.decision_doc, "entity": importer.entity, "fact": importer.fact,
                "diary": importer.diary, "value": importer.value, "tombstone": importer.tombstone}  # fmt: skip
    with stores.transaction():
        for number, rec in enumerate(records[1:], 2):
            handler = handlers.get(rec["type"])
            if handler is None:
                raise Invalid(f"record {number} has an unknown type {rec['type']!r}",
                              fix="export it again with this version of kenning")  # fmt: skip
            try:
                handler(rec)
            except (KeyError, TypeError, ValueError) as exc:
                raise Invalid(f"record {number} ({rec['type']}) is incomplete or malformed: {exc}",
                              fix="give a file written by kenning export, unedited") from exc  # fmt: skip
        importer.finish()
    return importer.report
