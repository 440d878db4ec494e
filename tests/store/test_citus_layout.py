"""docs/store.md's Citus section ("Outgrowing one PostgreSQL: Citus") against the schema, read
from the migration sources (no server needed): every table a PostgreSQL migration creates —
the store's (``kenning/store/postgres/``) and the team server's (``kenning/store/server/``) —
is named there, and every table the section does not make a reference table has the workspace
leading its primary key, which is what distributing it by workspace needs."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*(ROOT / "src/kenning/store/postgres").glob("*.py"), *(ROOT / "src/kenning/store/server").glob("*.py")])
CREATE = re.compile(r"CREATE\s+(?:UNLOGGED\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)\s*\(", re.IGNORECASE)
LEDGER = "_migrations"  # each engine's migration ledger: stays on the coordinator


def _body(text: str, start: int) -> str:
    """The column list of a CREATE TABLE whose opening parenthesis ends at ``start``."""
    depth, i = 1, start
    while depth and i < len(text):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    return text[start : i - 1]


def created_tables() -> dict[str, str]:
    """Every table the PostgreSQL migrations create, with its column list."""
    tables: dict[str, str] = {}
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        for match in CREATE.finditer(text):
            tables.setdefault(match[1], _body(text, match.end()))
    return tables


def citus_section() -> str:
    text = (ROOT / "docs/store.md").read_text(encoding="utf-8")
    start = text.index("## Outgrowing one PostgreSQL: Citus")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def reference_tables(section: str) -> set[str]:
    names: set[str] = set()
    for array in re.findall(r"create_reference_table\(t\)\s+FROM\s+unnest\(ARRAY\[([^\]]*)\]", section):
        names |= set(re.findall(r"'(\w+)'", array))
    return names


def leads_with_workspace(body: str) -> bool:
    table_key = re.search(r"PRIMARY\s+KEY\s*\(\s*(\w+)", body)
    if table_key:
        return table_key[1] == "workspace"
    column_key = re.search(r"^\s*(\w+)\s[^,\n]*\bPRIMARY\s+KEY\b", body, re.MULTILINE)
    return column_key is not None and column_key[1] == "workspace"


def test_the_migrations_are_read() -> None:
    tables = created_tables()
    assert {"memories", "memory_postings", "records", "accounts", LEDGER} <= set(tables)
    assert leads_with_workspace(tables["memories"]) and leads_with_workspace(tables["workspace_seq"])
    assert not leads_with_workspace(tables["accounts"])


def test_every_postgres_table_is_placed_in_the_citus_section() -> None:
    section = citus_section()
    named = set(re.findall(r"`(\w+)`", section)) | set(re.findall(r"'(\w+)'", section))
    missing = sorted(set(created_tables()) - named)
    assert missing == [], (
        "docs/store.md, 'Outgrowing one PostgreSQL: Citus': say how these tables distribute "
        "(by workspace, colocated with memories, or as a reference table in the create_reference_table list)"
    )


def test_every_table_but_the_reference_ones_leads_its_key_with_the_workspace() -> None:
    tables = created_tables()
    reference = reference_tables(citus_section())
    assert reference and reference <= set(tables), sorted(reference - set(tables))
    not_distributable = sorted(
        name for name, body in tables.items() if name != LEDGER and name not in reference and not leads_with_workspace(body)
    )
    assert not_distributable == [], "lead the primary key with workspace, or make the table a reference table in docs/store.md"
