"""ISO-8601 times as the store writes them, without ``datetime``.

The hooks that run on every session start and prompt compare and write times as text (the
store keeps ``YYYY-MM-DDTHH:MM:SS.ffffffZ``, which sorts as time), and must not pay for
``datetime``, ``calendar`` or ``_strptime`` on every run. ``iso`` writes exactly what
:func:`kenning.clock.to_iso` writes; ``parse`` reads what :func:`kenning.clock.from_iso` reads
(a date-time with ``Z``, an offset, or none meaning UTC).
"""

from __future__ import annotations

import time


def _days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def parse(text: str) -> float:
    """Seconds since the epoch; ValueError when ``text`` is not an ISO date or date-time."""
    s = text.strip()
    try:
        y, m, d = int(s[0:4]), int(s[5:7]), int(s[8:10])
        if s[4] != "-" or s[7] != "-" or not (1 <= m <= 12 and 1 <= d <= 31):
            raise ValueError
        rest = s[10:]
        seconds = 0.0
        offset = 0
        if rest:
            if rest[0] not in "T ":
                raise ValueError
            rest = rest[1:]
            zone = ""
            for mark in ("Z", "z", "+", "-"):
                at = rest.find(mark)
                if at > 0:
                    rest, zone = rest[:at], rest[at:]
                    break
            parts = rest.split(":")
            hh, mm = int(parts[0]), int(parts[1])
            ss = float(parts[2]) if len(parts) > 2 else 0.0
            if len(parts) > 3 or not (0 <= hh < 24 and 0 <= mm < 60 and 0 <= ss < 61):
                raise ValueError
            seconds = hh * 3600 + mm * 60 + ss
            if zone and zone not in ("Z", "z"):
                sign = 1 if zone[0] == "+" else -1
                oh, _, om = zone[1:].partition(":")
                offset = sign * (int(oh) * 3600 + int(om or 0) * 60)
    except (IndexError, ValueError):
        raise ValueError(f"not an ISO date-time: {text!r}") from None
    return _days_from_civil(y, m, d) * 86400 + seconds - offset


def iso(epoch: float) -> str:
    """``YYYY-MM-DDTHH:MM:SS.ffffffZ`` in UTC, as the store keeps times."""
    micros = round(epoch * 1_000_000)
    whole, frac = divmod(micros, 1_000_000)
    t = time.gmtime(whole)
    return (f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}T{t.tm_hour:02d}:{t.tm_min:02d}:"
            f"{t.tm_sec:02d}.{frac:06d}Z")  # fmt: skip
