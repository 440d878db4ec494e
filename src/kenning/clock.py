"""One source of time. Shelf life, resting, ``as_of`` and weekly asks are all time rules,
so tests set a :class:`FixedClock` instead of sleeping."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class FixedClock:
    """A clock that only moves when told to."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def now(self) -> datetime:
        return self._now

    def set(self, when: datetime) -> None:
        self._now = when

    def advance(self, **delta: float) -> datetime:
        self._now = self._now + timedelta(**delta)
        return self._now


def to_iso(when: datetime) -> str:
    """Store times as ISO-8601 UTC with microseconds, which sort as text."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def from_iso(text: str) -> datetime:
    parsed = datetime.fromisoformat(text)  # Python 3.11 reads a trailing Z as UTC
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    # Stored times are already UTC: skip the conversion (a listing parses thousands of them).
    return parsed if parsed.tzinfo is UTC else parsed.astimezone(UTC)


def parse_as_of(text: str) -> datetime:
    """``as_of`` takes a date (meaning the end of that day, UTC) or a date-time (UTC when
    no zone is given)."""
    text = text.strip()
    try:
        if len(text) == 10:
            day = datetime.fromisoformat(text).replace(tzinfo=UTC)
            return day + timedelta(days=1) - timedelta(microseconds=1)
        return from_iso(text)
    except ValueError as exc:
        from kenning.errors import Invalid

        raise Invalid(
            f"as_of {text!r} is not a date", fix="give a date like 2026-03-01 or a time like 2026-03-01T14:00"
        ) from exc
