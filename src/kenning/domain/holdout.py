"""The holdout group: one session in four is not pointed at memory, so a report can compare.

Decided from the session id alone: stable across every hook run of the session, and cheap
enough for the tool-call fast path, which must not open the database to learn it (crc32, not
sha256: hashlib costs milliseconds to import and the split needs no cryptography)."""

from __future__ import annotations

import zlib

ONE_IN = 4


def by_hash(session_id: str) -> bool:
    return zlib.crc32(session_id.encode("utf-8", "replace")) % ONE_IN == 0
