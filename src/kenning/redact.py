"""Secret redaction (the public entry point): see ``kenning.redaction`` for the rules.

``redact(text)`` masks every secret with ``[secret]``; ``redact_count`` also counts them;
``find_secrets`` returns their spans. Kept as its own module so callers import one stable name.
"""

from __future__ import annotations

from kenning.redaction import MASK, find_secrets, redact, redact_count

__all__ = ["MASK", "find_secrets", "redact", "redact_count"]
