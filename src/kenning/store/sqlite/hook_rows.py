"""The hooks' fast path to the local store: their reads and writes on a plain ``sqlite3``
connection (:class:`HotRows`, opened through :mod:`kenning.store.hotpath`).

Session start, prompts, the end of a turn and a tool call that matches a lesson run as a new
process each time, inside budgets of a few tens of milliseconds over Python's own start. This
module is what they use instead of the core: the standard library only, rows as
``sqlite3.Row``, times as the ISO text the store keeps (:mod:`kenning.isotime`), and no
migrations on open (a store whose schema is behind raises ``sqlite3.OperationalError``; the
hook then opens it the full way, which migrates, and tries again). Hooks always run on the
machine's own store, so this path is SQLite only.

The SQLite stores (``hooks_store``, ``work_store``, ``rules_store``, ``memories``) read and
write the same tables for the core; the statements both need live here once.
"""

from __future__ import annotations

import os
import sqlite3

from kenning.redacted import Redacted, ensure, stored
from kenning.store.sqlite import pragmas

TYPE_CHECKING = False  # typing is left unimported on purpose (start-up time); mypy reads True
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

# Columns that hold words someone wrote: written only redacted (as HookStore does).
TEXT_FIELDS = frozenset({"opening", "last_message"})
SESSION_FIELDS = frozenset({
    "project", "branch", "cwd", "last_seen", "ended_at", "holdout", "task_id", "first_prompt_at", "opening",
    "last_message", "recalled", "changed_files", "stop_asked", "prompts",
})  # fmt: skip


def connect(path: str, busy_timeout_ms: int) -> sqlite3.Connection | None:
    """A connection to an existing store, waiting at most ``busy_timeout_ms`` for a lock;
    None when there is no store yet (the full open creates it, in WAL mode)."""
    if not os.path.exists(path):
        return None
    conn = sqlite3.connect(path, timeout=busy_timeout_ms / 1000, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    pragmas.apply(conn, busy_timeout_ms=busy_timeout_ms, set_wal=False)
    return conn


def text(row: sqlite3.Row, column: str) -> Redacted:
    """A text column of a row read here (the store only ever took it redacted)."""
    return stored(str(row[column] or ""))


class transaction:  # noqa: N801 - used like contextlib's lower-case helpers
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` on error) on a connection in autocommit
    mode; contextlib is not imported for this (start-up time)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, kind: object, *_: object) -> None:
        self.conn.execute("ROLLBACK" if kind is not None else "COMMIT")


# ---------------------------------------------------------------------------- sessions


def session(conn: sqlite3.Connection, workspace: str, key: str) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM hook_sessions WHERE workspace = ? AND session = ?", (workspace, key)).fetchone()  # fmt: skip
    return row


def add_session(conn: sqlite3.Connection, key: str, tool: str, workspace: str, project: str, branch: str,
                cwd: str, now: str, holdout: bool, task_id: int | None) -> None:  # fmt: skip
    conn.execute(
        "INSERT INTO hook_sessions (session, tool, workspace, project, branch, cwd, started_at, last_seen,"
        " holdout, task_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session) DO NOTHING",
        (key, tool, workspace, project, branch, cwd, now, now, int(holdout), task_id),
    )


def update_session(conn: sqlite3.Connection, workspace: str, key: str, fields: dict[str, object]) -> None:
    if not fields:
        return
    unknown = set(fields) - SESSION_FIELDS
    if unknown:
        raise ValueError(f"not a session field: {sorted(unknown)}")
    values = [int(v) if isinstance(v, bool) else ensure(v) if k in TEXT_FIELDS and isinstance(v, str) else v
              for k, v in fields.items()]  # fmt: skip
    sets = ", ".join(f"{name} = ?" for name in fields)
    conn.execute(f"UPDATE hook_sessions SET {sets} WHERE workspace = ? AND session = ?", [*values, workspace, key])


def live_sessions(conn: sqlite3.Connection, workspace: str, project: str, since: str) -> list[sqlite3.Row]:
    return conn.execute(
        "SELECT * FROM hook_sessions WHERE workspace = ? AND project = ? AND ended_at IS NULL"
        " AND last_seen >= ? ORDER BY last_seen DESC, session",
        (workspace, project, since),
    ).fetchall()


def unclaimed_task(conn: sqlite3.Connection, workspace: str, cwd: str, since: str) -> sqlite3.Row | None:
    """The latest task started since ``since`` whose folder holds ``cwd`` and that no session
    has claimed yet."""
    rows = conn.execute(
        "SELECT * FROM work_tasks WHERE workspace = ? AND status = 'started' AND session = ''"
        " AND started_at >= ? ORDER BY started_at DESC, id DESC",
        (workspace, since),
    ).fetchall()
    for row in rows:
        folder = str(row["cwd"]).rstrip("/")
        if folder and (cwd == folder or cwd.startswith(folder + "/")):
            found: sqlite3.Row = row
            return found
    return None


# ------------------------------------------------------------------------- shown once


def shown(conn: sqlite3.Connection, key: str, what: str) -> set[str]:
    return {r[0] for r in conn.execute("SELECT key FROM hook_shown WHERE session = ? AND what = ?", (key, what))}


def mark_shown(conn: sqlite3.Connection, key: str, what: str, keys: Iterable[str], at: str) -> None:
    conn.executemany(
        "INSERT INTO hook_shown (session, what, key, at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
        [(key, what, k, at) for k in keys],
    )


# ------------------------------------------------------------------------ deliveries

CHANNELS = ("brief", "card", "index", "lesson", "recall", "note")


def add_deliveries(conn: sqlite3.Connection, workspace: str, key: str, channel: str, refs: Iterable[str],
                   project: str, tool: str, at: str) -> None:  # fmt: skip
    """Record that ``channel`` handed ``refs`` to session ``key`` ("" when not known); a
    session's first delivery of a ref on a channel is the one kept."""
    if channel not in CHANNELS:
        raise ValueError(f"not a delivery channel: {channel!r}")
    conn.executemany(
        "INSERT OR IGNORE INTO memory_deliveries (workspace, session, channel, ref, project, tool, at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(workspace, key, channel, ref, project, tool, at) for ref in dict.fromkeys(refs)],
    )


# ----------------------------------------------------------------------- the brief


def goal(conn: sqlite3.Connection, workspace: str, project: str, branch: str) -> Redacted:
    return goal_by(conn, workspace, project, branch)[0]


def goal_by(conn: sqlite3.Connection, workspace: str, project: str, branch: str) -> tuple[Redacted, str]:
    """The branch's goal and who set it ("person": the kenning command; else an agent's name)."""
    row = conn.execute(
        "SELECT goal, set_by FROM work_goals WHERE workspace = ? AND project = ? AND branch = ? AND retired_at IS NULL",
        (workspace, project, branch),
    ).fetchone()
    return (stored(str(row[0])), str(row[1])) if row else (stored(""), "")


def open_items(conn: sqlite3.Connection, workspace: str, project: str, branch: str) -> list[tuple[int, Redacted, str]]:
    """Open items as (id, text, who wrote it: "person" or an agent's name)."""
    rows = conn.execute(
        "SELECT id, text, by FROM work_items WHERE workspace = ? AND project = ? AND branch = ? AND done_at IS NULL"
        " AND retired_at IS NULL ORDER BY id",
        (workspace, project, branch),
    )
    return [(int(r[0]), stored(str(r[1])), str(r[2])) for r in rows]


def open_tasks(conn: sqlite3.Connection, workspace: str, project: str) -> list[tuple[int, Redacted]]:
    rows = conn.execute(
        "SELECT id, title FROM work_tasks WHERE workspace = ? AND project = ? AND status = 'open' ORDER BY id",
        (workspace, project),
    )
    return [(int(r[0]), stored(str(r[1]))) for r in rows]


# The order in which the user's sentence rules reach the brief (the first 5 are shown): this
# project's own before those for all projects, then the longest-standing first (the rule in
# use the longest; ties by id), so adding a rule never pushes out one the user has relied on.
RULES_ORDER = "ORDER BY project = '' ASC, created_at ASC, id ASC"


def sentence_rules(conn: sqlite3.Connection, workspace: str, project: str) -> list[Redacted]:
    rows = conn.execute(
        "SELECT text FROM memory_rules WHERE workspace = ? AND project IN ('', ?) AND enabled = 1"
        f" AND kind = 'sentence' {RULES_ORDER}",
        (workspace, project),
    )
    return [stored(str(r[0])) for r in rows]


def ready_rules(conn: sqlite3.Connection, workspace: str, project: str) -> int:
    """How many rules that decide what is given out hold here (the sentence rules decide nothing)."""
    row = conn.execute(
        "SELECT count(*) FROM memory_rules WHERE workspace = ? AND project IN ('', ?) AND enabled = 1"
        " AND kind != 'sentence'",
        (workspace, project),
    ).fetchone()
    return int(row[0]) if row else 0


def meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else None


# ------------------------------------------------------------------------ prompts


def handoffs(conn: sqlite3.Connection, workspace: str, project: str, since: str) -> list[sqlite3.Row]:
    return conn.execute(
        "SELECT * FROM work_handoffs WHERE workspace = ? AND project = ? AND created_at >= ? ORDER BY id",
        (workspace, project, since),
    ).fetchall()


def last_ask(conn: sqlite3.Connection, workspace: str, project: str, what: str) -> str | None:
    row = conn.execute(
        "SELECT at FROM hook_asks WHERE workspace = ? AND project = ? AND what = ?", (workspace, project, what)
    ).fetchone()
    return str(row[0]) if row else None


def set_ask(conn: sqlite3.Connection, workspace: str, project: str, what: str, at: str, key: str) -> None:
    conn.execute(
        "INSERT INTO hook_asks (workspace, project, what, at, session) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (workspace, project, what) DO UPDATE SET at = excluded.at, session = excluded.session",
        (workspace, project, what, at, key),
    )


def open_proposals(conn: sqlite3.Connection, workspace: str, project: str) -> int:
    row = conn.execute(
        "SELECT count(*) FROM reviews WHERE workspace = ? AND scope = ? AND resolved_at IS NULL", (workspace, project)
    ).fetchone()
    return int(row[0]) if row else 0


def tidy_counts(conn: sqlite3.Connection, workspace: str, project: str, rest_cutoff: str) -> tuple[int, int, int]:
    """(non-resting memories, preferences + decisions, lessons with a trigger) of a project."""
    row = conn.execute(
        "SELECT sum(kind = 'preference' OR pinned = 1 OR index_pinned = 1 OR created_at >= ?"
        " OR confirmed_at >= ? OR coalesce(last_used_at, '') >= ?),"
        " sum(kind IN ('preference', 'decision')), sum(kind = 'lesson' AND trigger IS NOT NULL)"
        " FROM memories WHERE workspace = ? AND scope = ? AND status = 'active'",
        (rest_cutoff, rest_cutoff, rest_cutoff, workspace, project),
    ).fetchone()
    if row is None:
        return 0, 0, 0
    return int(row[0] or 0), int(row[1] or 0), int(row[2] or 0)


# ------------------------------------------------------------------------ lessons


def deliverable(conn: sqlite3.Connection, workspace: str, refs: Sequence[str],
                places: Sequence[str] = ()) -> dict[str, sqlite3.Row]:  # fmt: skip
    """Of ``refs``, the lessons and decisions a session in ``places`` (its project and group)
    may receive: active, not hidden, not held, their cited file not gone (lessons and decisions
    have no shelf life), and not placed *not relevant here* for one of ``places``."""
    if not refs:
        return {}
    marks = ",".join("?" for _ in refs)
    kept_out = ""
    if places:
        kept_out = (" AND ref NOT IN (SELECT ref FROM memory_placements WHERE workspace = ? AND decision = 'not-here'"
                    f" AND place IN ({','.join('?' for _ in places)}))")  # fmt: skip
    rows = conn.execute(
        "SELECT ref, text, kind, origin, reason, source_ref, scope, created_at FROM memories"
        f" WHERE +workspace = ? AND ref IN ({marks}) AND status = 'active' AND hidden = 0 AND held = 0"
        f" AND citation != 'gone' AND kind IN ('lesson', 'decision'){kept_out}",
        [workspace, *refs, *([workspace, *places] if places else [])],
    )
    return {str(r["ref"]): r for r in rows}


def lesson_stamp(conn: sqlite3.Connection) -> int:
    """The counter SQL triggers bump whenever a lesson, a trigger or a citation changes."""
    row = conn.execute("SELECT n FROM hook_stamp WHERE name = 'lessons'").fetchone()
    return int(row[0]) if row else 0


def scope_group(conn: sqlite3.Connection, workspace: str, project: str, root: str) -> str:
    """The group a project belongs to, as the core files it (kenning.core.scopes.place_for): its
    scope row's parent, else the deepest group whose folder holds ``root``; "" for none."""
    row = conn.execute("SELECT parent FROM scopes WHERE workspace = ? AND key = ?", (workspace, project)).fetchone()
    if row is not None and row[0]:
        return str(row[0])
    if not root:
        return ""
    best, depth = "", -1
    for key, folder in conn.execute(
        "SELECT key, root FROM scopes WHERE workspace = ? AND kind = 'group' AND root != '' AND removed_at IS NULL",
        (workspace,),
    ):
        base = str(folder).rstrip("/") + "/"
        if (root + "/").startswith(base) and len(base) > depth:
            best, depth = str(key), len(base)
    return best


# ------------------------------------------------------------------ the fast path's object


class HotRows:
    """The statements above bound to one connection: what the hooks' fast path and the context
    modules it calls (brief, asks, notes, prepared facts) work with."""

    __slots__ = ("conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def close(self) -> None:
        self.conn.close()

    def transaction(self) -> transaction:
        return transaction(self.conn)

    def session(self, workspace: str, key: str) -> sqlite3.Row | None:
        return session(self.conn, workspace, key)

    def add_session(self, key: str, tool: str, workspace: str, project: str, branch: str, cwd: str, now: str,
                    holdout: bool, task_id: int | None) -> None:  # fmt: skip
        add_session(self.conn, key, tool, workspace, project, branch, cwd, now, holdout, task_id)

    def update_session(self, workspace: str, key: str, fields: dict[str, object]) -> None:
        update_session(self.conn, workspace, key, fields)

    def live_sessions(self, workspace: str, project: str, since: str) -> list[sqlite3.Row]:
        return live_sessions(self.conn, workspace, project, since)

    def others(self, workspace: str, project: str, since: str) -> list[tuple[str, str, str, Redacted, Redacted, str]]:
        """Live sessions as the brief shows them: (key, tool, branch, opening, last reply, last seen)."""
        return [(str(r["session"]), str(r["tool"]), str(r["branch"]), text(r, "opening"), text(r, "last_message"),
                 str(r["last_seen"])) for r in live_sessions(self.conn, workspace, project, since)]  # fmt: skip

    def unclaimed_task(self, workspace: str, cwd: str, since: str) -> sqlite3.Row | None:
        return unclaimed_task(self.conn, workspace, cwd, since)

    def shown(self, key: str, what: str) -> set[str]:
        return shown(self.conn, key, what)

    def mark_shown(self, key: str, what: str, keys: Iterable[str], at: str) -> None:
        mark_shown(self.conn, key, what, keys, at)

    def add_deliveries(self, workspace: str, key: str, channel: str, refs: Iterable[str], project: str, tool: str,
                       at: str) -> None:  # fmt: skip
        add_deliveries(self.conn, workspace, key, channel, refs, project, tool, at)

    def goal_by(self, workspace: str, project: str, branch: str) -> tuple[Redacted, str]:
        return goal_by(self.conn, workspace, project, branch)

    def open_items(self, workspace: str, project: str, branch: str) -> list[tuple[int, Redacted, str]]:
        return open_items(self.conn, workspace, project, branch)

    def open_tasks(self, workspace: str, project: str) -> list[tuple[int, Redacted]]:
        return open_tasks(self.conn, workspace, project)

    def sentence_rules(self, workspace: str, project: str) -> list[Redacted]:
        return sentence_rules(self.conn, workspace, project)

    def ready_rules(self, workspace: str, project: str) -> int:
        return ready_rules(self.conn, workspace, project)

    def meta(self, workspace: str, key: str) -> str | None:
        return meta(self.conn, key)

    def handoffs(self, workspace: str, project: str, since: str) -> list[sqlite3.Row]:
        return handoffs(self.conn, workspace, project, since)

    def last_ask(self, workspace: str, project: str, what: str) -> str | None:
        return last_ask(self.conn, workspace, project, what)

    def set_ask(self, workspace: str, project: str, what: str, at: str, key: str) -> None:
        set_ask(self.conn, workspace, project, what, at, key)

    def open_proposals(self, workspace: str, project: str) -> int:
        return open_proposals(self.conn, workspace, project)

    def tidy_counts(self, workspace: str, project: str, rest_cutoff: str) -> tuple[int, int, int]:
        return tidy_counts(self.conn, workspace, project, rest_cutoff)

    def deliverable(self, workspace: str, refs: Sequence[str], places: Sequence[str] = ()) -> dict[str, sqlite3.Row]:
        return deliverable(self.conn, workspace, refs, places)

    def lesson_stamp(self) -> int:
        return lesson_stamp(self.conn)

    def scope_group(self, workspace: str, project: str, root: str) -> str:
        return scope_group(self.conn, workspace, project, root)
