"""Redacting what earlier versions wrote raw: the helper each migration set's ``redact`` step uses.

Before the one door (:mod:`kenning.redacted`), the hooks stored a session's first prompt and
last reply as typed, notes and goals passed unredacted through some paths, and text was cut
before it was redacted. Each set's migration walks its tables' word-holding columns in rowid
batches and writes back only the values redaction changes, so running it on a store that is
already clean changes nothing (redacting a redacted text gives the same text).

Old bytes must not survive either: the connection runs with ``secure_delete`` (freed space is
zeroed, see :func:`kenning.store.sqlite.db.connect`), a full-text index whose rows changed is
merged (``optimize``) so its old segments are freed, and the opener truncates the WAL once the
migrations are done.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence

from kenning.redacted import ELLIPSIS, redacted

BATCH = 500
# Called with (connection, rowid, new values) when an update breaks a UNIQUE constraint (two
# values redacted to the same mask); it must leave the row consistent some other way.
OnConflict = Callable[[sqlite3.Connection, int, dict[str, object]], None]


def clean_json(raw: str) -> str:
    """A JSON document with every string in it (keys kept) redacted."""
    try:
        value = json.loads(raw)
    except ValueError:
        return redacted(raw)

    def walk(v: object) -> object:
        if isinstance(v, str):
            return redacted(v)
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        return v

    cleaned = walk(value)
    return raw if cleaned == value else json.dumps(cleaned, ensure_ascii=False)


def redact_table(
    conn: sqlite3.Connection,
    table: str,
    columns: Sequence[str],
    *,
    json_columns: Sequence[str] = (),
    on_conflict: OnConflict | None = None,
    changed: Callable[[int, dict[str, str], dict[str, str]], None] | None = None,
    cut_columns: Sequence[str] = (),
) -> int:
    """Redact ``columns`` (text) and ``json_columns`` (JSON) of every row of ``table``.

    ``cut_columns`` (a subset of ``columns``) are values older versions cut at their end
    without a mark (``prompt[:300]``): they are redacted as if a cut mark followed, so a token
    cut in half is masked too. ``changed(rowid, old, new)`` is told of each row rewritten
    (indexes kept beside the table follow it there). Returns how many rows changed.
    """
    every = [*columns, *json_columns]
    select = ", ".join(f'"{c}"' for c in every)
    sets = ", ".join(f'"{c}" = ?' for c in every)
    count, after = 0, -(2**63)
    while True:
        rows = conn.execute(
            f'SELECT rowid, {select} FROM "{table}" WHERE rowid > ? ORDER BY rowid LIMIT ?', (after, BATCH)
        ).fetchall()
        if not rows:
            return count
        for row in rows:
            rowid, values = int(row[0]), list(row[1:])
            old = {c: v for c, v in zip(every, values, strict=True) if isinstance(v, str)}
            new = {c: (clean_json(v) if c in json_columns else _cut(v) if c in cut_columns else redacted(v))
                   for c, v in old.items()}
            if new == old:
                continue
            full = {c: new.get(c, v) for c, v in zip(every, values, strict=True)}
            try:
                conn.execute(f'UPDATE "{table}" SET {sets} WHERE rowid = ?', [*full.values(), rowid])
            except sqlite3.IntegrityError:
                if on_conflict is None:
                    raise
                on_conflict(conn, rowid, full)
            if changed is not None:
                changed(rowid, old, new)
            count += 1
        after = int(rows[-1][0])


def _cut(value: str) -> str:
    if not value:
        return value
    masked = redacted(value + ELLIPSIS)
    return masked[: -len(ELLIPSIS)] if masked.endswith(ELLIPSIS) else masked


def optimize_fts(conn: sqlite3.Connection, table: str) -> None:
    """Merge a full-text index into one segment: the segments that held old terms are freed
    (and zeroed, with ``secure_delete``)."""
    conn.execute(f'INSERT INTO "{table}" ("{table}") VALUES (\'optimize\')')
