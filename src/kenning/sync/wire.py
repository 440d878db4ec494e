"""The sync protocol's shapes and limits, shared by the server and the client.

A record is ``{kind, key, op, digest, body}``: ``op`` is ``put`` (with a body) or ``delete``
(a tombstone: the body goes everywhere). ``digest`` is the SHA-256 of the body's canonical
JSON, so both sides can tell an unchanged record without comparing bodies.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import orjson

# Bounded batches: a push carries at most this many records and bytes (the server refuses
# more with 413); a pull page at most PULL_LIMIT records.
MAX_BATCH_ITEMS = 200
MAX_BATCH_BYTES = 2 * 1024 * 1024
PULL_LIMIT = 500
MAX_KEY = 512

MEMORY = "memory"
DECISION_DOC = "decision_doc"
REVIEW = "review"
KINDS = (MEMORY, DECISION_DOC, REVIEW)

# What a pushed record can come back as, per item.
STORED, UNCHANGED, STRENGTHENED, REVIEW_HELD, REFUSED = "stored", "unchanged", "strengthened", "held_for_review", "refused"


def canonical(body: Mapping[str, Any]) -> bytes:
    return orjson.dumps(body, option=orjson.OPT_SORT_KEYS)


def digest(body: Mapping[str, Any] | None) -> str:
    """The fingerprint of a record's body (of a tombstone: of nothing)."""
    return hashlib.sha256(canonical(body) if body is not None else b"").hexdigest()


def batch_digest(items: list[Mapping[str, Any]]) -> str:
    """The fingerprint of a whole batch: the same id with other content is another batch."""
    return hashlib.sha256(orjson.dumps([[i["kind"], i["key"], i["op"], i["digest"]] for i in items])).hexdigest()
