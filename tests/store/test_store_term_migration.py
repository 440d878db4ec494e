"""Migration m007: a store indexed under the terms kenning made before it (an acronym's plural
split into a one-letter part and "rs", "APIs" adding "ap", the redaction mask "[secret]" a word)
comes out of its next open indexed as kenning.text indexes now: the old terms are gone from
the full-text index and the statistics, and the memory is found by the new ones."""

from __future__ import annotations

from pathlib import Path

from kenning.store.protocol import MemoryFilter
from kenning.store.sqlite import memory_search
from kenning.store.sqlite.db import connect, migrate
from kenning.store.sqlite.memories import SqliteMemoryStore
from kenning.store.sqlite.schema import all_sets, open_database
from kenning.text import memory_index_text

T = "2026-03-01T09:00:00.000000Z"
TEXT = "Open PRs need the APIs token [secret] before review"
# What kenning.text.memory_index_text gave TEXT before m007 (the main branch's text.py at
# 160f7ed), as an older version left it in memory_terms.
OLD_TERMS = "open prs need api token secret review rs ap"


def old_store(path: Path) -> None:
    conn = connect(path)
    migrate(conn, all_sets(), stop_before={"memory": "m007_term_pieces"})
    conn.execute("BEGIN")
    cur = conn.execute(
        "INSERT INTO memories (ref, workspace, scope, text, kind, confidence, origin, created_at, confirmed_at)"
        " VALUES ('m:0000bbbb', 'local', 'p', ?, 'preference', 0.7, 'agent', ?, ?)",
        (TEXT, T, T),
    )
    fields = [OLD_TERMS, "", "", ""]
    conn.execute("INSERT INTO memory_terms (id, text, reason, tags, citation) VALUES (?, ?, ?, ?, ?)",
                 [cur.lastrowid, *fields])  # fmt: skip
    memory_search.stats_add(conn, fields)
    conn.execute("COMMIT")
    conn.close()


def test_old_terms_are_indexed_again(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old_store(path)
    db = open_database(path)
    try:
        store = SqliteMemoryStore(db)
        flt = MemoryFilter("local", ("p",))
        before = set(OLD_TERMS.split())
        now = memory_index_text(TEXT)
        assert {"rs", "ap", "secret"} <= before and not {"rs", "ap", "secret"} & set(now.split())
        assert db.conn.execute("SELECT text FROM memory_terms").fetchone()[0] == now
        df = store.index_stats("local", ["rs", "ap", "secret", "pr", "open"]).df
        assert (df.get("rs", 0), df.get("ap", 0), df.get("secret", 0)) == (0, 0, 0)
        assert df.get("pr") == 1 and df.get("open") == 1
        assert store.search(flt, ["rs"], limit=5) == []
        assert store.search(flt, ["secret"], limit=5) == []
        assert [h.memory.ref for h in store.search(flt, ["pr"], limit=5)] == ["m:0000bbbb"]
    finally:
        db.close()
