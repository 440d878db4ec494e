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

# A captured session travels as a head (``session``, key = its id) and numbered parts of its
# turns (``session_part``, key = id + SEP + index), each at most PART_TURNS turns and about
# PART_BYTES of JSON, so one session of any length fits bounded batches and a change re-sends
# only the parts it touched. A turn's text longer than TURN_CHARS is cut, saying so.
PART_TURNS = 100
PART_BYTES = 256 * 1024
TURN_CHARS = 100_000
MAX_PART_BYTES = 512 * 1024  # what the server accepts for one part (a client of another make included)
PULL_BYTES = 4 * 1024 * 1024  # a pull page stops once its bodies pass this (at least one change)

MEMORY = "memory"
DECISION_DOC = "decision_doc"
REVIEW = "review"
FACT = "fact"
DIARY = "diary"
VALUE = "value"
SESSION = "session"
SESSION_PART = "session_part"
KINDS = (MEMORY, DECISION_DOC, REVIEW, FACT, DIARY, VALUE, SESSION, SESSION_PART)
# Kinds whose key starts with the owning account's id (their identity is content a teammate
# may share: the same fact, diary line or value name); the server checks the prefix.
OWNED_KEYS = (FACT, DIARY, VALUE)

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
