"""Memory refs: ``m:`` plus 8 hex digits."""

from __future__ import annotations

import re

from kenning.errors import Invalid

REF_RE = re.compile(r"^m:[0-9a-f]{8}$")
REF_IN_TEXT_RE = re.compile(r"\bm:[0-9a-f]{8}\b")


def new_ref() -> str:
    # Imported here: `secrets` pulls in hashlib and hmac, which read-only hooks never need.
    import secrets

    return "m:" + secrets.token_hex(4)


def normalize_ref(value: str) -> str:
    """Accept ``m:7f3a2b1c``, ``M:7F3A2B1C`` or the bare hex; refuse anything else."""
    text = value.strip().lower()
    if not text.startswith("m:"):
        text = "m:" + text
    if not REF_RE.match(text):
        raise Invalid(f"{value!r} is not a memory ref", fix="refs look like m:7f3a2b1c (m: and 8 hex digits)")
    return text
