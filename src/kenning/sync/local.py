"""The machine's graph facts, diary, values and captured sessions as sync records: which ones
changed here since the server had them (push), and how a pulled one is written into the local
stores, which stay the working copy (pull).

Rows belong to their author. A teammate's fact, diary entry or value is kept here beside your
own, never over it: a teammate's value ``deploy`` reads as ``bob/deploy``, a diary entry of
bob's agent ``claude`` as agent ``bob/claude`` (as a teammate's decision doc does). Pulled
records are remembered with the local row they became (:attr:`SyncedRow.local`), so they are
never pushed back as this machine's own. A captured session travels from the machine that
captured it; a copy pulled onto another machine of the same account is not pushed again from
there, but forgetting it there forgets it everywhere.

What cannot be deleted here is not deleted by a pull either: a diary entry or a value has no
delete in kenning. A fact removed on the server is deleted here with the memory or session it
came from (the only ways a fact is deleted), or ended now when it came from neither.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from kenning.capture.sync import chunk_rows
from kenning.clock import to_iso
from kenning.graph import facts
from kenning.redacted import EMPTY, Redacted, redacted
from kenning.store.protocol import CapturedSession, FactRow, LedgerEntry, Stores, TurnRow
from kenning.store.syncstate import SyncedRow
from kenning.sync import kinds, wire
from kenning.sync.records import SEP

PULLED = "pulled"  # SyncedRow.local of a session or part that came from the server
UNDER = "~"  # SyncedRow.local of a fact record held under another record's row: "~" + that row's id
NEW_KINDS = (wire.FACT, wire.DIARY, wire.VALUE, wire.SESSION, wire.SESSION_PART)
ALL_TURNS = 10**9


@dataclass(frozen=True)
class Applied:
    """What applying one pulled change did: the local row it maps to, the digest to remember
    (of the record as this machine would push it, so a copy is not pushed back), and whether
    it added or removed something here."""

    local: str
    digest: str
    pulled: int = 0
    removed: int = 0


def _put(kind: str, key: str, body: Mapping[str, Any], local: str) -> dict[str, Any]:
    return {"kind": kind, "key": key, "op": "put", "digest": wire.digest(body), "body": dict(body), "local": local}


def _delete(kind: str, key: str) -> dict[str, Any]:
    return {"kind": kind, "key": key, "op": "delete", "digest": wire.digest(None)}


class LocalRecords:
    def __init__(self, stores: Stores, account: str, now: Callable[[], datetime]) -> None:
        self.stores = stores
        self.account = account
        self.now = now
        self._previous: dict[str, Redacted] = {}
        self._private: set[str] = set()  # refs of hidden or held memories (their facts travel private)

    # -- push -----------------------------------------------------------------------------------
    def pending(self, workspace: str, rows: Mapping[tuple[str, str], SyncedRow], *, build: bool = True,
                recheck: Container[tuple[str, str]] | None = None) -> Iterator[dict[str, Any]]:  # fmt: skip
        """Records of the new kinds that changed here since the server last had them: puts,
        then deletes of what is gone here (tombstones). ``build`` and ``recheck``: see
        :meth:`kenning.sync.client.SyncClient.pending_items`."""
        me = self.account
        produced: set[tuple[str, str]] = set()
        by_local = {(r.kind, r.local): r for r in rows.values() if r.local and r.kind in NEW_KINDS}

        def offer(kind: str, local: str, ident: str, body: Callable[[], Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
            mapped = by_local.get((kind, local))
            if mapped is not None and mapped.owner != me:
                return  # a teammate's, kept here
            key = mapped.key if mapped is not None else kinds.owned_key(me, ident)
            n = 1
            while (kind, key) in produced:  # the same content twice (a fact stated again at the same moment)
                key = kinds.owned_key(me, f"{ident}.{n}")
                n += 1
            produced.add((kind, key))
            known = rows.get((kind, key))
            if known is None and not build:
                yield {"kind": kind, "key": key}
            elif known is None:
                yield _put(kind, key, body(), local)
            elif known.owner == me and not known.deleted and (recheck is None or (kind, key) in recheck):
                item = _put(kind, key, body(), local)
                if known.digest != item["digest"]:
                    yield item if build else {"kind": kind, "key": key, "known": True}

        graph, notes = self.stores.graph, self.stores.notes
        self._private = {m.ref for m in self.stores.memories.iter_all(workspace) if m.hidden or m.held}
        for fact in graph.iter_facts(workspace):
            yield from offer(wire.FACT, str(fact.id), kinds.fact_row_identity(fact), partial(self._fact_body, workspace, fact))
        for e in notes.all_diary(workspace):
            yield from offer(wire.DIARY, str(e.id), kinds.identity("diary", e.project, e.agent, e.at, e.text),
                             partial(kinds.diary_body, e.project, e.agent, e.at, e.text))  # fmt: skip
        for v in notes.all_values(workspace):
            yield from offer(wire.VALUE, f"{v.project}{SEP}{v.key}", kinds.identity("value", v.project, v.key),
                             partial(kinds.value_body, v.project, v.key, v.value, v.updated_at))  # fmt: skip
        yield from self._sessions(workspace, rows, produced, build=build)
        forgotten = {t.key for t in self.stores.memories.tombstones(workspace) if t.kind == "session"}
        for (kind, key), row in rows.items():
            if row.owner != me or row.deleted or row.seq < 0 or kind not in NEW_KINDS or (kind, key) in produced:
                continue
            sid = kinds.session_of_part_key(key) if kind == wire.SESSION_PART else key
            if kind in (wire.SESSION, wire.SESSION_PART) and row.local == PULLED and sid not in forgotten:
                continue  # another machine's session, not captured here: it travels from there
            if kind in (wire.DIARY, wire.VALUE):
                continue  # never deleted here; a missing one means this machine lost its copy
            if kind == wire.FACT and not row.local.isdigit():
                continue  # pulled and held under another record's row (or none): it never had one here
            yield _delete(kind, key)

    def _sessions(self, workspace: str, rows: Mapping[tuple[str, str], SyncedRow], produced: set[tuple[str, str]],
                  *, build: bool = True) -> Iterator[dict[str, Any]]:  # fmt: skip
        """A session's changed parts, then its head: the head is recorded as sent only after
        its parts were, so an unchanged head means every part reached the server. Turns are
        read one session at a time. ``build=False``: a changed session counts as its head and
        the parts its turn count suggests (from the last part sent on), reading no turn."""
        me = self.account
        capture = self.stores.capture
        parts_of: dict[str, list[str]] = {}
        for kind, k in rows:
            if kind == wire.SESSION_PART:
                parts_of.setdefault(kinds.session_of_part_key(k), []).append(k)
        not_here = {kinds.session_of_part_key(k) if kind == wire.SESSION_PART else k
                    for (kind, k), r in rows.items() if kind in (wire.SESSION, wire.SESSION_PART)
                    and (r.local == PULLED or r.owner != me)}  # fmt: skip
        for s in capture.all_sessions(workspace):
            head_row = rows.get((wire.SESSION, s.id))
            if s.id in not_here or (head_row is not None and head_row.deleted):
                produced.update((wire.SESSION_PART, k) for k in parts_of.get(s.id, ()))
                produced.add((wire.SESSION, s.id))
                continue
            sent = [k for k in parts_of.get(s.id, ()) if not rows[(wire.SESSION_PART, k)].deleted]
            if head_row is not None and head_row.digest == wire.digest(kinds.session_body(s, len(sent))):
                # Unchanged since it was sent whole: its parts are as they were.
                produced.add((wire.SESSION, s.id))
                produced.update((wire.SESSION_PART, k) for k in parts_of.get(s.id, ()))
                continue
            if not build:
                produced.add((wire.SESSION, s.id))
                produced.update((wire.SESSION_PART, k) for k in parts_of.get(s.id, ()))
                guess = max(1, -(-s.turns // wire.PART_TURNS) - max(0, len(sent) - 1))
                yield from ({"kind": wire.SESSION_PART, "key": s.id} for _ in range(guess))
                yield {"kind": wire.SESSION, "key": s.id}
                continue
            turns = [kinds.turn_record(t) for t in capture.turns(workspace, s.id, limit=ALL_TURNS)]
            parts = kinds.split_turns(turns)
            for index, run in enumerate(parts):
                key = kinds.part_key(s.id, index)
                produced.add((wire.SESSION_PART, key))
                item = _put(wire.SESSION_PART, key, kinds.part_body(s, index, run), "")
                known = rows.get((wire.SESSION_PART, key))
                if known is None or (known.owner == me and not known.deleted and known.digest != item["digest"]):
                    yield item
            head = kinds.session_body(s, len(parts))
            produced.add((wire.SESSION, s.id))
            if head_row is None or head_row.digest != wire.digest(head):
                yield _put(wire.SESSION, s.id, head, "")

    def _fact_body(self, workspace: str, fact: FactRow, *, lookup: bool = False) -> dict[str, Any]:
        graph = self.stores.graph
        obj = graph.entity(workspace, fact.object) if fact.object_kind == "entity" else None
        if lookup and fact.memory_ref:
            memory = self.stores.memories.get(workspace, fact.memory_ref)
            private = memory is not None and (memory.hidden or memory.held)
        else:
            private = bool(fact.memory_ref) and fact.memory_ref in self._private
        return kinds.fact_body(fact, graph.entity(workspace, fact.subject), obj, private=private)

    # -- pull -----------------------------------------------------------------------------------
    def apply(self, workspace: str, change: Mapping[str, Any], owner_name: str, known: SyncedRow | None) -> Applied:
        """Write one pulled change of a new kind into the local stores."""
        kind, key, owner = str(change["kind"]), str(change["key"]), str(change["owner"])
        body = change.get("body")
        digest = str(change.get("digest", ""))
        local = known.local if known else ""
        mine = owner == self.account
        again = kind == wire.FACT and not local.isdigit()  # a fact held under another record: it may land now
        if known is not None and known.digest == digest and body is not None and not known.deleted and not again:
            return Applied(local, digest)  # what this machine pushed, or already applied
        if body is None:
            return self.remove(workspace, kind, key, local, deleted=bool(change.get("deleted")) and mine)
        if kind == wire.FACT:
            return self._apply_fact(workspace, kinds.fact_of(body, workspace), local, digest)
        if kind == wire.DIARY:
            project, agent, at, text = kinds.diary_of(body)
            agent = agent if mine else f"{owner_name}/{agent}"
            if local:
                return Applied(local, digest)
            notes = self.stores.notes
            same = [e for e in notes.diary(workspace, project, agent, since=at, limit=200) if e.at == at and e.text == text]
            entry_id = same[0].id if same else notes.diary_add(workspace, project, redacted(agent), at, redacted(text))
            return Applied(str(entry_id), digest, pulled=0 if same else 1)
        if kind == wire.VALUE:
            project, name, value, updated_at = kinds.value_of(body)
            name = name if mine else f"{owner_name}/{name}"
            self.stores.notes.set_value(workspace, project, name, redacted(value), updated_at)
            return Applied(f"{project}{SEP}{name}", digest, pulled=1)
        if kind == wire.SESSION:
            s = kinds.session_of(body, key)
            captured = CapturedSession(s.id, s.tool, s.project, s.project_name, s.cwd, s.branch, s.first_at, s.last_at)
            self.stores.capture.commit_file(workspace, LedgerEntry(f"sync:{s.id}", s.tool), [captured], [],
                                            replace=False, now=to_iso(self.now()))  # fmt: skip
            return Applied(PULLED, digest, pulled=1)
        if kind == wire.SESSION_PART:
            return self._apply_part(workspace, kinds.part_of(body, key), digest)
        raise AssertionError(kind)

    def _apply_fact(self, workspace: str, synced: kinds.SyncedFact, local: str, digest: str) -> Applied:
        graph = self.stores.graph
        row = synced.row
        current = graph.get(workspace, int(local)) if local.isdigit() else None
        if current is not None:
            if row.valid_to is not None and current.valid_to is None:
                graph.close(workspace, current.id, row.valid_to, None)
            return Applied(local, digest, pulled=1)
        # Two people (a teammate's capture and yours) often state the same fact, and the store
        # keeps one current copy of a fact: the copy already here stays the row of whoever wrote
        # it first (rows belong to their author), and this record is held under it ("~" + its
        # id). When that row ends or leaves, the client asks for such records again
        # (SyncClient.reassert): the fact stays current while any member asserts it.
        same = graph.same_fact(workspace, row.subject, row.predicate, row.object, row.area) if row.valid_to is None else []
        held = [f for f in same if f.current]
        if held:
            return Applied(f"{UNDER}{held[0].id}", digest)
        now = to_iso(self.now())
        graph.ensure_entity(workspace, row.subject, redacted(synced.subject_name or row.subject),
                            synced.subject_type or "unknown", now)  # fmt: skip
        if row.object_kind == "entity":
            graph.ensure_entity(workspace, row.object, redacted(synced.object_name or row.object),
                                synced.object_type or "unknown", now)  # fmt: skip
        # A current fact of a single-valued slot ends the slot's current other object here as
        # kg_add does (facts.add): whoever stated it, the newer object holds. One that started
        # later (an older statement pulled late) is not ended; this one lands ended when it began.
        others = [f for f in graph.current_in_slot(workspace, row.subject, row.predicate, row.area)
                  if f.object != row.object] if row.valid_to is None and facts.closes_slot(row.predicate, row.area) else []  # fmt: skip
        later = sorted(f.valid_from for f in others if f.valid_from > row.valid_from)
        fact_id = graph.insert(FactRow(
            0, workspace, row.project, row.subject, row.predicate, row.object, row.object_kind, row.area, row.valid_from,
            later[0] if later else row.valid_to, row.confidence, row.origin, row.session, row.memory_ref, row.person,
            redacted(row.evidence), row.created_at))  # fmt: skip
        for other in others:
            if other.valid_from <= row.valid_from:
                graph.close(workspace, other.id, row.valid_from, fact_id)
        return Applied(str(fact_id), digest, pulled=1)

    def _apply_part(self, workspace: str, part: kinds.SyncedPart, digest: str) -> Applied:
        capture = self.stores.capture
        sid = part.session
        if sid not in self._previous:
            talk = capture.turns(workspace, sid, talk_only=True, limit=ALL_TURNS)
            self._previous[sid] = talk[-1].text if talk else EMPTY
        rows = []
        for t in part.turns:
            text = redacted(t.text)
            calls: list[dict[str, Redacted | str]] = [
                {k: redacted(v) if k == "input" else v for k, v in c.items()} for c in t.tool_calls]
            rows.append(TurnRow(sid, t.uid, t.role, text, t.at, calls, list(t.files), t.subagent, part.project, part.tool,
                                chunk_rows(t.role, text, self._previous[sid])))  # fmt: skip
            if t.role != "tool" and text.strip():
                self._previous[sid] = text
        times = sorted(t.at for t in part.turns if t.at)
        captured = CapturedSession(sid, part.tool, part.project, part.project_name, "", "",
                                   times[0] if times else "", times[-1] if times else "")  # fmt: skip
        capture.commit_file(workspace, LedgerEntry(f"sync:{sid}", part.tool), [captured], rows, replace=False,
                            now=to_iso(self.now()))  # fmt: skip
        return Applied(PULLED, digest, pulled=1)

    def remove(self, workspace: str, kind: str, key: str, local: str, *, deleted: bool) -> Applied:
        """A record forgotten by its owner, or another's record this reader may no longer see."""
        gone = wire.digest(None)
        if kind == wire.SESSION:
            if self.stores.capture.session(workspace, key) is None:
                return Applied(local, gone)
            self.stores.capture.delete_session(workspace, key)
            self.stores.graph.forget_progress(workspace, key)
            if deleted and not any(t.kind == "session" and t.key == key for t in self.stores.memories.tombstones(workspace)):
                self.stores.memories.add_tombstone(workspace, "session", key, "", self.now())
            return Applied(local, gone, removed=1)
        if kind == wire.FACT and local.startswith(UNDER):
            return Applied("", gone)  # it had no row here: another record's row holds the fact
        if kind == wire.FACT and local.isdigit():
            graph = self.stores.graph
            fact = graph.get(workspace, int(local))
            if fact is None:
                return Applied(local, gone)
            if fact.memory_ref:
                graph.delete_facts(workspace, memory_ref=fact.memory_ref)
            elif fact.session:
                graph.delete_facts(workspace, session=fact.session)
            elif fact.valid_to is None:
                graph.close(workspace, fact.id, to_iso(self.now()), None)
            return Applied(local, gone, removed=1)
        return Applied(local, gone)  # a part (its session goes as a whole), a diary entry or a value

    def held_under_gone(self, workspace: str, rows: Mapping[tuple[str, str], SyncedRow]) -> list[SyncedRow]:
        """Fact records held under another record's row that is no longer current here (it
        ended, or left with its memory or session): each may bring its fact back."""
        graph = self.stores.graph
        out = []
        for row in rows.values():
            if row.kind == wire.FACT and row.local.startswith(UNDER) and not row.deleted:
                fact = graph.get(workspace, int(row.local[len(UNDER):])) if row.local[len(UNDER):].isdigit() else None
                if fact is None or not fact.current:
                    out.append(row)
        return out

    def local_digest(self, workspace: str, kind: str, local: str) -> str | None:
        """The digest of a pulled record as this machine would push it now (None: not here)."""
        if kind == wire.FACT and local.isdigit():
            fact = self.stores.graph.get(workspace, int(local))
            return wire.digest(self._fact_body(workspace, fact, lookup=True)) if fact else None
        if kind == wire.VALUE and SEP in local:
            project, name = local.split(SEP, 1)
            value = self.stores.notes.value(workspace, project, name)
            return wire.digest(kinds.value_body(project, name, value.value, value.updated_at)) if value else None
        if kind == wire.DIARY and local.isdigit():
            for entry in self.stores.notes.all_diary(workspace):
                if entry.id == int(local):
                    return wire.digest(kinds.diary_body(entry.project, entry.agent, entry.at, entry.text))
        return None

