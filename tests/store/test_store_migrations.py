"""Migrations, tested from every earlier schema.

For every migration set in ``schema.all_sets()`` and every prefix of its steps, a store is
left at that earlier schema, filled with rows of every table that exists then, and opened
again: it must end with exactly the schema of a fresh install, the full ledger, and every
row it held. Rows are made generically from each table's declared columns, CHECK lists and
foreign keys, so sets added by other subsystems are covered without touching this file.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kenning.model import Kind, Memory, Origin
from kenning.store.protocol import MemoryFilter
from kenning.store.sqlite import schema
from kenning.store.sqlite.db import MigrationSet, connect, migrate
from kenning.store.sqlite.memories import SqliteMemoryStore
from kenning.store.sqlite.schema import all_sets, open_database

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Prefix:
    set_name: str
    stop_before: str  # the first step NOT applied

    def __str__(self) -> str:
        return f"{self.set_name}<{self.stop_before}"


def prefixes() -> list[Prefix]:
    return [Prefix(s.name, name) for s in all_sets() for name, _ in s.steps]


def stop_at(prefix: Prefix) -> dict[str, str]:
    """Where ``migrate`` stops for a store that was at ``prefix``: sets applied before it are
    complete, later sets not begun (they may build on this set's tables). This walks every
    point of the order in which migrations are applied."""
    sets = all_sets()
    names = [s.name for s in sets]
    later = sets[names.index(prefix.set_name) + 1 :]
    return {prefix.set_name: prefix.stop_before, **{s.name: s.steps[0][0] for s in later if s.steps}}


def schema_of(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    return [
        (r[0], r[1], r[2] or "")
        for r in conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name"
        )
    ]


def ledger(conn: sqlite3.Connection) -> set[tuple[str, str]]:
    return {(r[0], r[1]) for r in conn.execute("SELECT migration_set, name FROM _migrations")}


def every_step() -> set[tuple[str, str]]:
    return {(s.name, name) for s in all_sets() for name, _ in s.steps}


@pytest.fixture(scope="module")
def fresh_schema(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str, str]]:
    db = open_database(tmp_path_factory.mktemp("fresh") / "fresh.db")
    try:
        return schema_of(db.conn)
    finally:
        db.close()


# -- generic representative rows --------------------------------------------------------------
def plain_tables(conn: sqlite3.Connection) -> list[str]:
    """Ordinary tables (not virtual, not FTS shadow, not the ledger), parents before children."""
    names = [
        r[1] for r in conn.execute("PRAGMA table_list") if r[2] == "table" and r[0] == "main"
        and not r[1].startswith("sqlite_") and r[1] != "_migrations"
    ]  # fmt: skip
    ordered: list[str] = []

    def visit(name: str, trail: tuple[str, ...]) -> None:
        if name in ordered or name in trail:
            return
        for fk in conn.execute(f'PRAGMA foreign_key_list("{name}")'):
            if fk[2] in names:
                visit(fk[2], (*trail, name))
        ordered.append(name)

    for name in sorted(names):
        visit(name, ())
    return ordered


def _choices(create_sql: str, column: str) -> list[str]:
    m = re.search(rf"\b{re.escape(column)}\b\s+IN\s*\(([^)]*)\)", create_sql, re.IGNORECASE)
    return re.findall(r"'([^']*)'", m.group(1)) if m else []


def _value(column: str, decl: str, create_sql: str, n: int) -> object:
    choices = _choices(create_sql, column)
    if choices:
        return choices[n % len(choices)]
    decl = decl.upper()
    if "INT" in decl:
        return n + 1
    if any(t in decl for t in ("REAL", "FLOA", "DOUB", "NUM")):
        return 0.5 + n
    if column.endswith("_at") or column in ("at", "created", "updated"):
        return f"2026-03-0{1 + n % 9}T09:00:00.000000Z"
    if column in ("payload", "outcome") or decl == "JSON":
        return "{}" if column == "payload" else "[]"
    return f'{column} «ü» "{n}" m:{n:08x}'


def fill_row(conn: sqlite3.Connection, table: str, n: int) -> dict[str, object] | None:
    """Insert one row into ``table``; return what was written (None when it cannot be made)."""
    create_sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    fks = {fk[3]: (fk[2], fk[4]) for fk in conn.execute(f'PRAGMA foreign_key_list("{table}")')}
    row: dict[str, object] = {}
    for _cid, name, decl, _notnull, _default, _pk in conn.execute(f'PRAGMA table_info("{table}")'):
        if name in fks:
            parent, parent_col = fks[name]
            found = conn.execute(
                f'SELECT "{parent_col or "rowid"}" FROM "{parent}" LIMIT 1 OFFSET ?', (n,)
            ).fetchone()
            if found is None:
                return None
            row[name] = found[0]
        else:
            row[name] = _value(name, decl or "", create_sql, n)
    cols = ", ".join(f'"{c}"' for c in row)
    try:
        conn.execute(
            f'INSERT INTO "{table}" ({cols}) VALUES ({", ".join("?" for _ in row)})', list(row.values())
        )
    except sqlite3.IntegrityError:
        return None
    return row


def fill_everything(conn: sqlite3.Connection) -> dict[str, list[dict[str, object]]]:
    written: dict[str, list[dict[str, object]]] = {}
    conn.execute("BEGIN")
    for table in plain_tables(conn):
        for n in range(2):
            row = fill_row(conn, table, n)
            if row is not None:
                written.setdefault(table, []).append(row)
    conn.execute("COMMIT")
    return written


# Tables a migration may rebuild from the memories (m004 re-indexes every memory).
DERIVED = {"memory_terms", "memory_term_stats", "memory_index_totals"}


def still_there(conn: sqlite3.Connection, table: str, row: dict[str, object]) -> bool:
    columns = {r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')}
    kept = {k: v for k, v in row.items() if k in columns}
    where = " AND ".join(f'"{k}" IS ?' for k in kept)
    return (
        conn.execute(f'SELECT count(*) FROM "{table}" WHERE {where}', list(kept.values())).fetchone()[0] == 1
    )


# -- the tests ------------------------------------------------------------------------------
@pytest.mark.parametrize("prefix", prefixes(), ids=str)
def test_migrates_from_every_earlier_schema(
    prefix: Prefix, tmp_path: Path, fresh_schema: list[tuple[str, str, str]]
) -> None:
    path = tmp_path / "old.db"
    conn = connect(path)
    migrate(conn, all_sets(), stop_before=stop_at(prefix))
    missing = every_step() - ledger(conn)
    assert (prefix.set_name, prefix.stop_before) in missing
    written = fill_everything(conn)
    unfilled = set(plain_tables(conn)) - set(written)
    assert not unfilled, f"no representative row could be made for {unfilled}: teach _value their columns"
    conn.close()

    db = open_database(path)
    try:
        assert ledger(db.conn) == every_step()
        assert schema_of(db.conn) == fresh_schema
        for table, rows in written.items():
            for row in rows:
                if table in DERIVED:
                    continue
                assert still_there(db.conn, table, row), (table, row)
        # The search index is derived from the memories: a migration may rebuild it, and then
        # every memory has its row, and every term its statistics.
        terms = db.conn.execute("SELECT count(*) FROM memory_terms").fetchone()[0]
        memories = db.conn.execute("SELECT count(*) FROM memories").fetchone()[0]
        assert terms == memories
        assert db.conn.execute(
            "SELECT count(*) FROM memory_terms t JOIN memories m ON m.id = t.id"
        ).fetchone()[0] == memories
        assert db.conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert db.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        db.close()


def test_memory_rows_written_at_each_schema_stay_readable_and_searchable(tmp_path: Path) -> None:
    """Real memories (through the store) survive re-opening after every other set's prefix."""
    for prefix in [p for p in prefixes() if p.set_name != "memory"] or [None]:
        path = tmp_path / f"{prefix or 'full'}.db".replace("/", "_").replace("<", "_")
        conn = connect(path)
        migrate(conn, all_sets(), stop_before=stop_at(prefix) if prefix else None)
        from kenning.store.sqlite.db import Database

        store = SqliteMemoryStore(Database(conn))
        memory = Memory(ref="m:0000abcd", workspace="w", scope="p", text="ledger rows survive migrations",
                        kind=Kind.FACT, confidence=0.8, origin=Origin.PERSON, created_at=T0, confirmed_at=T0)  # fmt: skip
        store.insert(memory)
        conn.close()
        db = open_database(path)
        try:
            again = SqliteMemoryStore(db)
            assert again.get(memory.workspace, memory.ref) == memory
            assert [h.memory.ref for h in again.search(MemoryFilter("w", ["p"]), ["ledger"], limit=3)] == [
                memory.ref
            ]
        finally:
            db.close()


def test_reopening_applies_nothing(tmp_path: Path) -> None:
    open_database(tmp_path / "k.db").close()
    conn = connect(tmp_path / "k.db")
    assert migrate(conn, all_sets()) == []
    conn.close()


@pytest.mark.parametrize("set_name", [s.name for s in all_sets()])
def test_a_failing_migration_leaves_nothing_half_applied(
    set_name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def half_then_fail(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x INTEGER)")
        conn.execute("INSERT INTO half_done VALUES (1)")
        conn.execute("INSERT INTO _migrations (migration_set, name) VALUES ('ghost', 'm001')")
        raise sqlite3.OperationalError("injected failure")

    def good(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x INTEGER)")

    def sets_with(step: object) -> list[MigrationSet]:
        out = []
        for s in all_sets():
            copy = MigrationSet(s.name, list(s.steps))
            if s.name == set_name:
                copy.add("m999_injected", step)  # type: ignore[arg-type]
            out.append(copy)
        return out

    path = tmp_path / "k.db"
    monkeypatch.setattr(schema, "all_sets", lambda: sets_with(half_then_fail))
    with pytest.raises(sqlite3.OperationalError, match="injected failure"):
        open_database(path)
    conn = connect(path)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "half_done" not in tables
    assert (set_name, "m999_injected") not in ledger(conn)
    assert ("ghost", "m001") not in ledger(conn)
    # Everything before the failing step was applied and recorded; the failing one stays pending.
    target = next(s for s in all_sets() if s.name == set_name)
    assert {(set_name, n) for n, _ in target.steps} <= ledger(conn)
    conn.close()

    monkeypatch.setattr(schema, "all_sets", lambda: sets_with(good))
    db = open_database(path)
    try:
        assert (set_name, "m999_injected") in ledger(db.conn)
        assert db.conn.execute("SELECT count(*) FROM half_done").fetchone()[0] == 0
    finally:
        db.close()


def test_a_migration_name_cannot_be_defined_twice() -> None:
    mset = MigrationSet("x")
    mset.add("m001_a", "CREATE TABLE a (x)")
    with pytest.raises(ValueError, match="defined twice"):
        mset.add("m001_a", "CREATE TABLE b (x)")


def test_set_and_step_names_are_unique_and_numbered() -> None:
    names = [s.name for s in all_sets()]
    assert len(names) == len(set(names))
    for s in all_sets():
        numbers = [int(re.match(r"m(\d{3})_", n).group(1)) for n, _ in s.steps]  # type: ignore[union-attr]
        assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers), s.name


# -- pragmas ----------------------------------------------------------------------------------
@pytest.fixture
def opened(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    db = open_database(tmp_path / "k.db")
    yield db.conn
    db.close()


def test_pragmas_are_set_on_open(opened: sqlite3.Connection) -> None:
    assert opened.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert opened.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    assert opened.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_foreign_keys_are_enforced(opened: sqlite3.Connection) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        opened.execute("INSERT INTO memory_events (ref, at, event) VALUES ('m:ffffffff', '2026', 'created')")


def test_pragmas_are_set_in_one_place() -> None:
    src = Path(__file__).resolve().parents[2] / "src" / "kenning"
    pattern = re.compile(r"PRAGMA\s+(journal_mode|busy_timeout|foreign_keys|synchronous)\s*=", re.IGNORECASE)
    setters = sorted(
        str(p.relative_to(src)) for p in src.rglob("*.py") if pattern.search(p.read_text(encoding="utf-8"))
    )
    assert setters == ["store/sqlite/pragmas.py"]
