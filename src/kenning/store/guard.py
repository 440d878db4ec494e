"""The run-time side of the redaction door, shared by every backend's write methods."""

from __future__ import annotations

from kenning.model import Memory
from kenning.redacted import ensure


def guarded(m: Memory) -> Memory:
    """A text field that came around the types (``evolve`` takes anything) is redacted here,
    and so are the short fields a writer names freely (its session, its tool, a citation,
    tags; a redaction of such a string costs ~3 µs)."""
    return m.evolve(
        text=ensure(m.text), reason=ensure(m.reason), rejected=ensure(m.rejected), status_note=ensure(m.status_note),
        subject=ensure(m.subject), origin_tool=ensure(m.origin_tool), session=ensure(m.session),
        branch=ensure(m.branch), source_ref=ensure(m.source_ref), tags=tuple(ensure(t) for t in m.tags),
    )  # fmt: skip


def guarded_payload(payload: dict[str, object]) -> dict[str, object]:
    """A review's payload carries proposed text (sentences, reasons): every string in it is
    redacted on the way in, whatever the caller did."""

    def walk(value: object) -> object:
        if isinstance(value, str):
            return ensure(value)
        if isinstance(value, list | tuple):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    return {k: walk(v) for k, v in payload.items()}
