"""The server's query side for captured sessions: every session head and part a push stores
is written, in the same transaction, into the workspace's PostgreSQL capture store
(``WorkspaceTx.stores().capture``), where ``POST /api/v1/sessions/search`` searches them with
the same code and ranking as a machine; a forgotten session goes out of it.

The writing is the machine's own (:class:`kenning.sync.local.LocalRecords`: chunks rebuilt
with capture's chunker, text redacted again). Graph facts, diary entries and values join
:data:`MATERIALIZED` when the graph and notes stores have a PostgreSQL backend on main.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from kenning.store.protocol import Stores
from kenning.sync import wire
from kenning.sync.local import LocalRecords

MATERIALIZED = (wire.SESSION, wire.SESSION_PART)
NOBODY = ""  # the server's copy is no account's own


def put(stores: Stores, workspace: str, kind: str, key: str, owner: str, body: Mapping[str, Any], *,
        now: datetime) -> None:  # fmt: skip
    """Write a stored session head or part into the copy."""
    writer = LocalRecords(stores, NOBODY, lambda: now)
    change = {"kind": kind, "key": key, "owner": owner, "body": dict(body), "digest": wire.digest(body)}
    with stores.transaction():
        writer.apply(workspace, change, owner, None)


def drop(stores: Stores, workspace: str, kind: str, key: str) -> None:
    """A session forgotten by its author: out of the copy (a part goes with its session)."""
    if kind == wire.SESSION and stores.capture.session(workspace, key) is not None:
        stores.capture.delete_session(workspace, key)
