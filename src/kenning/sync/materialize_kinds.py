"""The server's query side for the record kinds beside memories: every captured session (head
and parts), graph fact, diary entry and value a push stores is written, in the same
transaction, into the workspace's PostgreSQL capture, graph and notes stores
(``WorkspaceTx.stores()``), where the REST routes read them with the same code as a machine.

The writing is the machine's own (:class:`kenning.sync.local.LocalRecords`: chunks rebuilt
with capture's chunker, text redacted again). The copy is everyone's view of the workspace,
so values and diary entries are labelled by their author as a machine labels a teammate's
(``alice/deploy.target``, agent ``alice/claude``). A fact of a hidden or held memory (a
private record) is not in it, for anyone, as the memory is not. A forgotten session, or a fact
deleted with its memory or session, leaves it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from kenning.store.protocol import FactRow, Stores
from kenning.store.syncstate import SyncedRow
from kenning.sync import kinds, wire
from kenning.sync.local import NEW_KINDS, LocalRecords

MATERIALIZED = NEW_KINDS
NOBODY = ""  # the server's copy is no account's own: every record is labelled by its author


def same_fact(stores: Stores, workspace: str, row: FactRow) -> FactRow | None:
    """The copy's fact for a fact record, if it is there."""
    graph = stores.graph
    for fact_id in graph.find_facts(workspace, row.subject, row.predicate, row.object, row.area, row.valid_from):
        fact = graph.get(workspace, fact_id)
        if fact is not None and (fact.project, fact.origin, fact.session, fact.memory_ref, fact.created_at) == (
            row.project, row.origin, row.session, row.memory_ref, row.created_at
        ):
            return fact
    return None


def put(stores: Stores, workspace: str, kind: str, key: str, author: str, body: Mapping[str, Any], *,
        private: bool, now: datetime) -> None:  # fmt: skip
    """Write a stored record into the copy (take a private fact out of it)."""
    writer = LocalRecords(stores, NOBODY, lambda: now)
    change = {"kind": kind, "key": key, "owner": author, "body": dict(body), "digest": wire.digest(body)}
    known = None
    with stores.transaction():
        if kind == wire.FACT:
            fact = same_fact(stores, workspace, kinds.fact_of(body, workspace).row)
            if private:
                if fact is not None:
                    _drop_fact(stores, workspace, fact)
                return
            known = SyncedRow(kind, key, author, "", 0, False, str(fact.id) if fact else "")
        writer.apply(workspace, change, author, known)


def _drop_fact(stores: Stores, workspace: str, fact: FactRow) -> None:
    if fact.memory_ref:
        stores.graph.delete_facts(workspace, memory_ref=fact.memory_ref)
    elif fact.session:
        stores.graph.delete_facts(workspace, session=fact.session)


def drop(stores: Stores, workspace: str, kind: str, key: str, held: Mapping[str, Any] | None = None) -> None:
    """A record deleted (forgotten) by its author: out of the copy. ``held``: the body the
    server held before."""
    if kind == wire.SESSION and stores.capture.session(workspace, key) is not None:
        stores.capture.delete_session(workspace, key)
    elif kind == wire.FACT and held is not None:
        fact = same_fact(stores, workspace, kinds.fact_of(held, workspace).row)
        if fact is not None:
            _drop_fact(stores, workspace, fact)
