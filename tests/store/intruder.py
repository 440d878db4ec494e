"""The contract suites as a PostgreSQL role bound to one workspace, beside another workspace's
look-alike rows: the proof that row-level security keeps a workspace's reads to its own rows.

The template ``kenning_template_intruder`` holds a second workspace, ``intruder``, filled
through the store as its owner with what the contract suites write: memories under the very
refs the suites hand out (m:00000001 on), texts of the same words, the same scope keys,
slots, sessions, tags, citations, decision titles, policies, meta keys and tombstones, with
their history and uses. A suite run as ``kenning_bound`` (a login role bound to the suite's
workspace in ``kenning_role_workspaces``) would see any of it leak: an extra hit, a document
frequency off by one, a decision doc or a ref of the other workspace.

A test that names another workspace (it writes two workspaces to check they stay apart) is
skipped on this backend: a role bound to one workspace cannot write another, by design.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import postgres_server

WORKSPACE = "ws"  # the contract suites' workspace
INTRUDER = "intruder"
ROLE = "kenning_bound"
TEMPLATE = "kenning_template_intruder"
REFS = 800

_PHRASES = [
    "the api deploys from main", "alpha", "bravo", "charlie", "kafka topics are compacted", "kafka kafka kafka",
    "pooling database connections keeps latency low", "we keep one writer", "redis cache entry",
    "cache cache cache invalidation", "cache warming", "retry the webhook", "rounding happens once",
    "one writer only", "postgres advisory", "zanzibar", "the quartermaster service deploys from main",
    "dark theme", "light theme", "deploy waits", "one", "two", "three", "four", "five", "six", "idle",
    "used lately", "in the index", "filler sentence number one", "cli fact", "agent lesson",
]  # fmt: skip
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _seed(database: str) -> None:
    from kenning.model import DecisionDoc, Kind, Memory, MemoryEvent, Origin, ReviewItem, Status
    from kenning.store.postgres import rls
    from kenning.store.postgres.memories import PostgresMemoryStore
    from kenning.store.postgres.schema import open_database
    from kenning.store.protocol import ScopeRow, UseRow

    db = open_database(postgres_server.dsn(database, postgres_server.OWNER), max_size=1)
    store = PostgresMemoryStore(db)
    try:
        for key in ("proj", "other", "acme", "github.com/acme/shop", "global", "personal", "x"):
            store.upsert_scope(ScopeRow(INTRUDER, key, "project", key, f"/src/{key}", "", T0))
        kinds = list(Kind)
        with store.transaction():
            for i in range(1, REFS + 1):
                ref = f"m:{i:08x}"
                store.insert(Memory(
                    ref=ref, workspace=INTRUDER, scope=("proj", "other", "global")[i % 3],
                    text=_PHRASES[i % len(_PHRASES)], kind=kinds[i % len(kinds)], confidence=0.9,
                    origin=(Origin.AGENT, Origin.PERSON)[i % 2], origin_tool=("codex", "cli", "claude-code")[i % 3],
                    created_at=T0 + timedelta(minutes=i), confirmed_at=T0, session=("s1", "s2", "s3")[i % 3],
                    subject=("ui.theme", "ui.color", "", "deploy.staging.state")[i % 4], tags=("stripe", "cache"),
                    reason="the database locks on concurrent writes", source_ref="src/db/pool.py:12",
                    status=(Status.ACTIVE, Status.RETIRED)[i % 5 == 0], status_at=T0 if i % 5 == 0 else None,
                ))  # fmt: skip
                store.add_event(INTRUDER, MemoryEvent(ref, T0, "created", "codex"))
                store.add_use(INTRUDER, UseRow(ref, "s1", "codex", "main", T0))
        store.save_decision_doc(DecisionDoc(
            id=0, workspace=INTRUDER, scope="proj", title="Use Postgres", decision="We use Postgres because of jsonb",
            reason="jsonb", rejected="MySQL", confidence=0.95, source_ref="db/schema.sql", outcome=("To be determined.",),
            memory_ref="m:00000003", author="claude-code", created_at=T0, updated_at=T0, area="storage",
        ))  # fmt: skip
        store.add_review(ReviewItem(0, INTRUDER, "proj", "contradiction", {"text": "x"}, "codex", T0,
                                    refs=("m:00000001",)))  # fmt: skip
        for scope, setting, value in (("", "preset", '"every-kind"'), ("proj", "capture", "true"),
                                      ("proj", "banned_words", '["intruder"]')):  # fmt: skip
            store.set_policy(INTRUDER, scope, setting, value, T0)
        store.add_tombstone(INTRUDER, "memory", "m:0badf00d", "abc", T0)
        store.add_tombstone(INTRUDER, "session", "claude:s1", "", T0)
        _seed_rules(db)
        _seed_work(db)
        _seed_hooks(db)
    finally:
        db.close()
    # Meta of the intruder, and of the owner's own (unbound) view, under keys the suite uses.
    with postgres_server._connect(database, user=postgres_server.OWNER, autocommit=True) as conn:
        for ws in (INTRUDER, ""):
            conn.execute("INSERT INTO meta (workspace, key, value) VALUES (%s, 'k', 'intruder'), (%s, '', 'x')", (ws, ws))
        rls.bind_role(conn, ROLE, WORKSPACE)
    _seed_capture(database)
    _seed_graph_and_notes(database)


def _seed_capture(database: str) -> None:
    """Captured sessions of the intruder under the ids, ledger keys, words, memory files and
    meta keys the capture suite uses: a leak would show as an extra hit, a session, a turn
    count, a document frequency (a score) off."""
    from kenning.redacted import redacted
    from kenning.store.postgres.capture_store import PostgresCaptureStore
    from kenning.store.postgres.schema import open_database
    from kenning.store.protocol import CapturedSession, ChunkRow, LedgerEntry, TurnRow

    words = ["why does the login test fail", "the staging database settings live in config", "first version",
             "database database database migrations ran", "we are rotating the signing keys weekly", "answer",
             "pin the timezone in conftest", "quartermaster deploys", "we decided on postgres", "tool output",
             "kept session", "database tuning notes", "yes, do that"]  # fmt: skip
    db = open_database(postgres_server.dsn(database, postgres_server.OWNER), max_size=1)
    store = PostgresCaptureStore(db)
    try:
        for n, sid in enumerate(("claude:s1", "claude:s2", "codex:s2", "claude:9f1c2a7e-aaaa", "codex:9f1c-bbbb",
                                 "claude:zz")):  # fmt: skip
            tool = "codex" if sid.startswith("codex") else "claude-code"
            session = CapturedSession(sid, tool, "github.com/acme/shop", "shop", "/src/intruder", "main",
                                      "2026-03-01T09:00:00Z", f"2026-03-0{n + 1}T23:00:00Z")  # fmt: skip
            turns = [TurnRow(sid, f"u{i}", role, redacted(text), f"2026-03-01T10:0{i % 10}:00Z", [], ["src/a.py"], "",
                             "github.com/acme/shop", tool,
                             [ChunkRow(0, role, redacted(text), redacted("should we pin the timezone"), "decision", 5,
                                       0.9, 0)])
                     for i, text in enumerate(words) for role in (("user", "assistant", "tool")[i % 3],)]  # fmt: skip
            key = ("/t/s1.jsonl", "/t/2", "/t/c.jsonl", "/t/c", "/t/z", "/t/other.jsonl")[n]
            store.commit_file(INTRUDER, LedgerEntry(key, tool, 99, 99, 1, "99:zzz", "", {"n": 9}), [session], turns,
                              replace=False, now="2026-03-02T09:00:00.000000Z")  # fmt: skip
        for path in ("/h/CLAUDE.md", "/h/AGENTS.md"):
            store.set_memory_file(INTRUDER, path, "m:00000009", "intruder", "2026-03-02T09:00:00Z")
        store.set_meta(INTRUDER, "rules_version", "99")
    finally:
        db.close()


def _seed_graph_and_notes(database: str) -> None:
    """The intruder's graph and notes: entities under the ids the graph suite uses (and one more
    "shop"), current and ended facts of the same subjects, predicates, objects, sessions and
    memory refs in the same project, extraction progress of the same sessions, diary entries
    and values of the same projects and keys."""
    from kenning.redacted import redacted
    from kenning.store.postgres.schema import open_database
    from kenning.store.postgres.stores import PostgresStores
    from kenning.store.protocol import FactRow

    db = open_database(postgres_server.dsn(database, postgres_server.OWNER), max_size=1)
    stores = PostgresStores(db)
    graph, notes, now = stores.graph, stores.notes, "2026-03-02T09:00:00.000000Z"
    try:
        with stores.transaction():
            for entity_id, name, type_ in (
                ("github.com/acme/shop", "shop", "project"), ("github.com/intruder/shop", "shop", "project"),
                ("shop", "Shop", "project"), ("postgres", "PostgreSQL", "unknown"), ("celery", "celery", "tool"),
                ("redis", "redis", "tool"), ("billing", "billing", "project"), ("mysql", "MySQL", "database"),
            ):  # fmt: skip
                graph.ensure_entity(INTRUDER, entity_id, redacted(name), type_, now)
            for n, (subject, predicate, obj) in enumerate([
                ("shop", "uses", "postgres"), ("shop", "uses", "mysql"), ("billing", "uses", "postgres"),
                ("shop", "status", "alpha"), ("shop", "status", "beta"), ("shop", "uses", "celery"),
                ("shop", "uses", "redis"), ("postgres", "uses", "shop"),
            ]):  # fmt: skip
                later = ("2026-03-03T09:00:00Z", None) if n % 2 else (now, None)  # one current copy
                for valid_from, valid_to in (("2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"),
                                             (now, "2026-03-03T09:00:00Z"), later):  # fmt: skip
                    graph.insert(FactRow(
                        0, INTRUDER, "github.com/acme/shop", subject, predicate, obj, "entity", "", valid_from,
                        valid_to, 0.9, "extracted", ("claude:gone", "claude:kept", "claude:s1")[n % 3],
                        "m:00000001" if n % 2 else "", "", redacted("the intruder's evidence"), now,
                    ))  # fmt: skip
            for area in ("jobs", ""):
                graph.insert(FactRow(0, INTRUDER, "github.com/acme/shop", "shop", "decided", "Use Redis", "text", area,
                                     "2026-02-10T00:00:00Z", None, 0.9, "recorded", "", "m:00000001", "",
                                     redacted("x"), now))  # fmt: skip
            for session, kind, turn in (("claude:s1", "extract", 99), ("claude:s1", "escalate", 7),
                                        ("claude:s2", "extract", 42), ("claude:s3", "extract", 1)):  # fmt: skip
                graph.set_progress(INTRUDER, session, kind, turn, now)
            for project, agent, at, text in (
                ("p", "codex", "2026-03-01T10:00:00Z", "started the export"),
                ("p", "claude-code", "2026-03-02T10:00:00Z", "fixed «it»"),
                ("p", "codex", "2026-03-02T11:00:00Z", "the intruder's entry"),
                ("other-project", "codex", "2026-03-03T10:00:00Z", "elsewhere"),
            ):  # fmt: skip
                notes.diary_add(INTRUDER, project, redacted(agent), at, redacted(text))
            for project, key, value in (("p", "deploy.target", "intruder.example"), ("p", "a.first", "x"),
                                        ("p", "b.intruder", "y"), ("q", "z", "y")):  # fmt: skip
                notes.set_value(INTRUDER, project, key, redacted(value), now)
    finally:
        db.close()


def _seed_rules(db: Any) -> None:
    """The intruder's rules: the suites' projects, kinds and sentences, on and off, so a leak
    would show as an extra rule, sentence or count."""
    from kenning.redacted import redacted
    from kenning.store.postgres.rules_store import PostgresRuleStore

    rules = PostgresRuleStore(db)
    for project in ("", "github.com/acme/shop", "github.com/acme/blog", "github.com/acme/docs"):
        for kind, n, memory_kind, text in (("unused", 30, "note", ""), ("proven", 3, "lesson", ""),
                                           ("sentence", 0, "", "all: oldest"), ("sentence", 0, "", "mine: older"),
                                           ("sentence", 0, "", "no memories about the old API")):  # fmt: skip
            rules.add_rule(INTRUDER, project, kind, n, memory_kind, redacted(text), T0 - timedelta(days=1))
    off = rules.add_rule(INTRUDER, "github.com/acme/shop", "sentence", 0, "", redacted("mine: off"), T0)
    rules.update_rule(INTRUDER, off, T0, enabled=False)


def _seed_work(db: Any) -> None:
    """The intruder's work under the suites' projects, branches and folders: goals, open and
    done items, progress, handoffs and tasks started in /src/shop that no session has claimed,
    so a leak would show as a goal, a branch, an item, a note or a task the suite did not write."""
    from kenning.redacted import redacted
    from kenning.store.postgres.work_store import PostgresWorkStore
    from kenning.store.protocol import HandoffRow

    work = PostgresWorkStore(db)
    for project in ("github.com/acme/shop", "github.com/acme/blog"):
        for branch in ("main", "feat/pay", "feat/a", "feat/b", "Main", "feat/gone"):
            work.set_goal(INTRUDER, project, branch, redacted("ship card payments"), "person", T0)
            work.add_item(INTRUDER, project, branch, redacted("fix the build"), "person", T0)
            done = work.add_item(INTRUDER, project, branch, redacted("write the docs"), "claude", T0)
            work.close_item(INTRUDER, project, done, T0)
            for n in range(3):
                work.add_progress(INTRUDER, project, branch, redacted(f"step {n}"), [redacted(f"chose {n}")], "claude",
                                  "claude:s1", T0 + timedelta(minutes=n))  # fmt: skip
        for at in (T0 - timedelta(days=1), T0, T0 + timedelta(hours=1)):
            work.add_handoff(INTRUDER, HandoffRow(0, project, "claude:s1", "claude", "", redacted("tests pass again"),
                                                  "agent", at))  # fmt: skip
        for folder in ("/src/shop", "/src/shop/web", "/src/blog", "/src"):
            tid = work.add_task(INTRUDER, project, "main", folder, redacted("card form"), redacted("ship it"), T0)
            work.update_task(INTRUDER, tid, status="started", started_at=T0 + timedelta(days=1))
        work.add_task(INTRUDER, project, "main", "/src/shop", redacted("docs"), redacted(""), T0)


def _seed_hooks(db: Any) -> None:
    """The intruder's hook state under the suites' session keys, projects and refs: live
    sessions, shown-once marks, asks and deliveries, so a leak would show as a session, a mark,
    a count, an ask or a delivery the suite did not write."""
    from kenning.redacted import EMPTY, redacted
    from kenning.store.postgres.hooks_store import PostgresHookStateStore
    from kenning.store.protocol import SessionRow

    hooks = PostgresHookStateStore(db)
    keys = ("claude:s1", "codex:s2", "claude:s3", "gemini:s4", "claude:s5", "claude:s6", "claude:old", "claude:xs1",
            "claude:abc", "claude:S1", "claude:s9", "codex:s1")  # fmt: skip
    for n, key in enumerate(keys):
        for project in ("github.com/acme/shop", "github.com/acme/blog"):
            if project != "github.com/acme/shop" and n % 2:
                continue
            at = T0 - timedelta(days=1) + timedelta(minutes=n)
            hooks.add_session(SessionRow(key, key.split(":")[0], INTRUDER, project, "main", "/src/shop", at,
                                         T0 + timedelta(days=1), None, False, None, None, redacted("fix the login"),
                                         EMPTY, False, False, False, 1))  # fmt: skip
        hooks.mark_shown(INTRUDER, key, "lesson", ["m:1", "m:2", "m:3", "m:00000001"], T0)
        hooks.mark_shown(INTRUDER, key, "agent", ["codex:s2", "claude:s0"], T0)
        for channel in ("lesson", "recall", "index", "card"):
            hooks.add_deliveries(INTRUDER, key, channel, ["m:1", "m:2", "m:3", "m:9", "m:00000001", "m:00000002"],
                                 "github.com/acme/shop", key.split(":")[0], T0 + timedelta(minutes=n))  # fmt: skip
    hooks.add_deliveries(INTRUDER, "", "index", ["m:3"], "github.com/acme/shop", "cli", T0)
    for project in ("github.com/acme/shop", "github.com/acme/blog"):
        for what in ("tidy", "review"):
            hooks.set_ask(INTRUDER, project, what, T0 + timedelta(days=30), "claude:s1")


def template() -> str:
    postgres_server.require()
    postgres_server.login_role(ROLE)
    return postgres_server.ensure_template(TEMPLATE, _seed, source=postgres_server.TEMPLATE)


class OneWorkspace:
    """The store as the bound role sees it; a call that names another workspace skips the
    test (that role cannot act there)."""

    def __init__(self, store: Any) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._store, name)
        if not callable(attr) or name == "transaction":
            return attr
        signature = inspect.signature(attr)

        def call(*args: Any, **kwargs: Any) -> Any:
            for param, value in signature.bind(*args, **kwargs).arguments.items():
                named = value if param == "workspace" else getattr(value, "workspace", None)
                if isinstance(named, str) and named != WORKSPACE:
                    pytest.skip(f"names workspace {named!r}: a role bound to {WORKSPACE!r} cannot act there")
            return attr(*args, **kwargs)

        return call


def open_bound() -> tuple[Any, Callable[[], None]]:
    from kenning.store.postgres.schema import open_database
    from kenning.store.postgres.stores import PostgresStores

    name = postgres_server.fresh_database(template=template())
    # Unbound on purpose: row-level security alone must keep the intruder's rows out of every
    # call, those that name the workspace and the index statistics that name none.
    db = open_database(postgres_server.dsn(name, ROLE), run_migrations=False, max_size=4)

    def close() -> None:
        db.close()
        postgres_server.drop_database(name)

    return BoundStores(PostgresStores(db)), close


class GraphInOneWorkspace(OneWorkspace):
    """The graph store as the bound role sees it: a call that adds rows to another workspace
    skips the test (row-level security refuses the insert); reads, updates and deletes naming
    another workspace still run, so the suites see them find and change nothing there."""

    ADDS_ROWS = frozenset({"ensure_entity", "insert", "set_progress"})

    def __getattr__(self, name: str) -> Any:
        return super().__getattr__(name) if name in self.ADDS_ROWS else getattr(self._store, name)


class BoundStores:
    """The bundle as the bound role sees it: its memory store wrapped in :class:`OneWorkspace`."""

    def __init__(self, stores: Any) -> None:
        self._stores = stores
        self.memories = OneWorkspace(stores.memories)
        self.rules = OneWorkspace(stores.rules)
        self.work = OneWorkspace(stores.work)
        self.hooks = OneWorkspace(stores.hooks)
        self.graph = GraphInOneWorkspace(stores.graph)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stores, name)

