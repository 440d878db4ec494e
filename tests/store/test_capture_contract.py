"""The CaptureStore contract: every backend passes this same suite (protocol methods only, no SQL).

Each test gets a fresh, empty bundle on each backend of ``backends.BACKENDS``.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kenning.redacted import redacted
from kenning.store.protocol import (
    CapturedSession,
    CaptureStore,
    ChunkFilter,
    ChunkRow,
    LedgerEntry,
    Stores,
    TurnRow,
)

WS = "ws"
NOW = "2026-03-02T09:00:00.000000Z"


@pytest.fixture
def store(stores: Stores) -> CaptureStore:
    return stores.capture


def session(sid: str = "claude:s1", **changes: str) -> CapturedSession:
    base = {"id": sid, "tool": "claude-code", "project": "github.com/acme/shop", "project_name": "shop",
            "cwd": "/src/shop", "branch": "main", "first_at": "2026-03-01T10:00:00Z", "last_at": "2026-03-01T10:05:00Z"}
    base.update(changes)
    return CapturedSession(**base)


def turn(uid: str, text: str, *, sid: str = "claude:s1", role: str = "user", at: str = "2026-03-01T10:00:00Z",
         context: str = "", type_: str = "general", importance: int = 0, subagent: str = "",
         files: tuple[str, ...] = ()) -> TurnRow:  # fmt: skip
    chunk = ChunkRow(0, role, redacted(text), redacted(context), type_, importance, 0.5, 1)
    return TurnRow(sid, uid, role, redacted(text), at, [{"name": "Bash", "input": redacted("ls -la")}], list(files),
                   subagent, "github.com/acme/shop", _tool(sid), [chunk])


def _tool(sid: str) -> str:
    prefix = sid.split(":", 1)[0]
    return "claude-code" if prefix == "claude" else prefix


def entry(key: str = "/t/s1.jsonl", offset: int = 10, **changes: object) -> LedgerEntry:
    return LedgerEntry(key, "claude-code", offset, offset, 1, "10:abc", "", changes.pop("context", {"n": 1}),  # type: ignore[arg-type]
                       **changes)  # type: ignore[arg-type]


def commit(store: CaptureStore, turns: list[TurnRow], *, key: str = "/t/s1.jsonl", replace: bool = False,
           sessions: list[CapturedSession] | None = None, workspace: str = WS) -> int:  # fmt: skip
    return store.commit_file(workspace, entry(key), sessions or [session()], turns, replace=replace, now=NOW)


# -- writing ----------------------------------------------------------------------------------
def test_commit_stores_turns_once_and_advances_the_ledger(store: CaptureStore) -> None:
    assert store.ledger(WS, "/t/s1.jsonl") is None
    first = [turn("u1", "why does the login test fail"), turn("u2", "the timezone differs", role="assistant",
                                                             at="2026-03-01T10:01:00Z")]  # fmt: skip
    assert commit(store, first) == 2
    assert commit(store, first) == 0  # the same (session, uid) is never stored twice
    ledger = store.ledger(WS, "/t/s1.jsonl")
    assert ledger is not None and (ledger.offset, ledger.size, ledger.head_hash, dict(ledger.context)) == (
        10, 10, "10:abc", {"n": 1})
    assert ledger.turns == 2
    turns = store.turns(WS, "claude:s1")
    assert [(t.uid, t.role, t.text, t.source) for t in turns] == [
        ("u1", "user", "why does the login test fail", "/t/s1.jsonl"),
        ("u2", "assistant", "the timezone differs", "/t/s1.jsonl")]
    assert turns[0].tool_calls == ({"name": "Bash", "input": "ls -la"},)
    assert store.turn_count(WS, "claude:s1") == 2


def test_replace_drops_what_the_file_gave_before(store: CaptureStore) -> None:
    commit(store, [turn("u1", "first version"), turn("u2", "second line")])
    assert commit(store, [turn("u1", "rewritten file")], replace=True) == 1
    assert [t.text for t in store.turns(WS, "claude:s1")] == ["rewritten file"]
    assert store.search(WS, ["version"], ChunkFilter(), 10, (1.0, 0.25)) == []


def test_a_session_row_merges_what_each_batch_saw(store: CaptureStore) -> None:
    commit(store, [turn("u1", "hello there, first ask")],
           sessions=[session(first_at="2026-03-01T10:03:00Z", last_at="2026-03-01T10:04:00Z", branch="")])
    commit(store, [turn("u2", "later")], key="/t/other.jsonl",
           sessions=[session(first_at="2026-03-01T10:00:00Z", last_at="2026-03-01T10:09:00Z", project="",
                             project_name="", cwd="", branch="feat/x")])  # fmt: skip
    got = store.session(WS, "claude:s1")
    assert got is not None
    assert (got.first_at, got.last_at, got.project, got.project_name, got.cwd, got.branch, got.turns) == (
        "2026-03-01T10:00:00Z", "2026-03-01T10:09:00Z", "github.com/acme/shop", "shop", "/src/shop", "feat/x", 2)
    assert got.title == "hello there, first ask" and got.workspace == WS and got.tool == "claude-code"


def test_secrets_in_turns_are_masked_whatever_the_caller_passed(store: CaptureStore) -> None:
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    raw = TurnRow("claude:s1", "u1", "user", secret, NOW, [{"name": "Bash", "input": f"export T={secret}"}], [], "",  # type: ignore[arg-type]
                  "p", "claude-code", [ChunkRow(0, "user", secret, "", "general", 0, 0.0, 1)])  # type: ignore[arg-type]
    commit(store, [raw])
    stored = store.turns(WS, "claude:s1")[0]
    assert secret not in stored.text and secret not in str(stored.tool_calls)
    assert all(secret not in h.chunk.body for h in store.search(WS, ["ghp"], ChunkFilter(), 5, (1.0, 0.25)))


def test_a_nul_character_in_a_turn_is_stored_and_its_words_found(store: CaptureStore) -> None:
    """A transcript may carry NUL (a binary tool output); an engine that cannot hold it keeps a
    replacement character in its place, never fails the file."""
    assert commit(store, [turn("u1", "binary\x00output of hexdump")]) == 1
    hits = store.search(WS, ["hexdump", "binary"], ChunkFilter(), 5, (1.0, 0.25))
    assert len(hits) == 1 and hits[0].chunk.body.startswith("binary") and hits[0].chunk.body.endswith("hexdump")
    assert store.turns(WS, "claude:s1")[0].text.replace("\ufffd", "\x00") == "binary\x00output of hexdump"


# -- search ---------------------------------------------------------------------------------
def test_search_ranks_by_bm25_and_filters(store: CaptureStore) -> None:
    commit(store, [
        turn("u1", "the staging database settings live in config", importance=4, type_="decision"),
        turn("u2", "database database database migrations ran", role="assistant", at="2026-03-02T10:00:00Z"),
        turn("u3", "lunch plans", at="2026-03-03T10:00:00Z"),
    ])  # fmt: skip
    commit(store, [turn("c1", "database tuning notes", sid="codex:s2")], key="/t/c.jsonl",
           sessions=[session("codex:s2", tool="codex", project="github.com/acme/other", project_name="other")])
    hits = store.search(WS, ["database", "staging"], ChunkFilter(), 10, (1.0, 0.25))
    assert {h.chunk.turn for h in hits} and all(h.bm25 > 0 for h in hits)
    assert [h.bm25 for h in hits] == sorted((h.bm25 for h in hits), reverse=True)
    assert hits[0].chunk.body == "the staging database settings live in config"
    assert hits[0].project_name == "shop" and hits[0].title == "the staging database settings live in config"
    assert {h.chunk.session for h in store.search(WS, ["database"], ChunkFilter(tool="codex"), 10, (1, 0.25))} == {
        "codex:s2"}
    assert [h.chunk.type for h in store.search(WS, ["database"], ChunkFilter(type="decision"), 10, (1, 0.25))] == [
        "decision"]
    assert store.search(WS, ["database"], ChunkFilter(since="2026-03-02T00:00:00Z"), 10, (1, 0.25))[0].chunk.at == (
        "2026-03-02T10:00:00Z")
    assert store.search(WS, ["database"], ChunkFilter(until="2026-02-01T00:00:00Z"), 10, (1, 0.25)) == []
    assert store.search(WS, ["database"], ChunkFilter(project="nope"), 10, (1, 0.25)) == []
    assert len(store.search(WS, ["database"], ChunkFilter(), 1, (1, 0.25))) == 1
    assert store.search(WS, [], ChunkFilter(), 10, (1, 0.25)) == []
    assert store.search("other", ["database"], ChunkFilter(), 10, (1, 0.25)) == []


def test_search_stems_the_query_like_the_index(store: CaptureStore) -> None:
    commit(store, [turn("u1", "we are rotating the signing keys weekly")])
    assert len(store.search(WS, ["rotate", "key"], ChunkFilter(), 5, (1, 0.25))) == 1


def test_the_turn_before_counts_at_its_weight(store: CaptureStore) -> None:
    commit(store, [turn("u1", "yes, do that", context="should we pin the timezone"),
                   turn("u2", "pin the timezone in conftest", at="2026-03-01T10:01:00Z")])  # fmt: skip
    hits = store.search(WS, ["timezone"], ChunkFilter(), 5, (1.0, 0.25))
    assert [h.chunk.body for h in hits] == ["pin the timezone in conftest", "yes, do that"]
    assert hits[0].bm25 > hits[1].bm25 > 0


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=6))
def test_any_words_are_searched_as_words(store: CaptureStore, words: list[str]) -> None:
    """Words that look like query syntax (NEAR, AND, quotes, col:) are never read as operators."""
    hits = store.search(WS, [w.replace("\x00", "") or "x" for w in words], ChunkFilter(), 5, (1.0, 0.25))
    assert isinstance(hits, list)


# -- reading ----------------------------------------------------------------------------------
def test_sessions_newest_first_and_found_by_prefix(store: CaptureStore) -> None:
    commit(store, [turn("u1", "a", sid="claude:9f1c2a7e-aaaa")],
           sessions=[session("claude:9f1c2a7e-aaaa", last_at="2026-03-01T10:00:00Z")])
    commit(store, [turn("u1", "b", sid="codex:9f1c-bbbb")], key="/t/c", sessions=[
        session("codex:9f1c-bbbb", tool="codex", last_at="2026-03-02T10:00:00Z", project="github.com/acme/other")])
    commit(store, [turn("u1", "c", sid="claude:zz")], key="/t/z", sessions=[
        session("claude:zz", last_at="2026-03-01T09:00:00Z", branch="feat/x")])
    assert [s.id for s in store.sessions(WS)] == ["codex:9f1c-bbbb", "claude:9f1c2a7e-aaaa", "claude:zz"]
    assert [s.id for s in store.sessions(WS, "github.com/acme/shop", limit=1)] == ["claude:9f1c2a7e-aaaa"]
    assert [s.id for s in store.find_sessions(WS, "9f1c")] == ["codex:9f1c-bbbb", "claude:9f1c2a7e-aaaa"]
    assert [s.id for s in store.find_sessions(WS, "claude:9f")] == ["claude:9f1c2a7e-aaaa"]
    assert store.find_sessions(WS, "9f1c_") == [] and store.find_sessions(WS, "%") == []
    assert store.newest_session(WS).id == "codex:9f1c-bbbb"  # type: ignore[union-attr]
    assert store.newest_session(WS, "github.com/acme/shop").id == "claude:9f1c2a7e-aaaa"  # type: ignore[union-attr]
    assert store.newest_session(WS, "github.com/acme/shop", "feat/x").id == "claude:zz"  # type: ignore[union-attr]
    assert store.newest_session(WS, "github.com/acme/shop", "nope") is None
    assert store.session_folders(WS) == ["/src/shop"]
    assert [(h.session, h.newest_turn > 0) for h in store.session_heads(WS)] == [
        ("claude:zz", True), ("claude:9f1c2a7e-aaaa", True), ("codex:9f1c-bbbb", True)]
    assert store.sessions("other") == [] and store.newest_session("other") is None
    assert store.session("other", "claude:zz") is None and store.find_sessions("other", "9f") == []


def test_turns_talk_only_last_turn_and_chunks(store: CaptureStore) -> None:
    commit(store, [
        turn("u1", "ask", files=("src/a.py",)),
        turn("u2", "tool output", role="tool", at="2026-03-01T10:01:00Z"),
        turn("u3", "helper said", role="assistant", subagent="explore", at="2026-03-01T10:02:00Z"),
        turn("u4", "answer", role="assistant", at="2026-03-01T10:03:00Z", type_="decision", importance=5),
    ])  # fmt: skip
    assert [t.uid for t in store.turns(WS, "claude:s1")] == ["u1", "u2", "u3", "u4"]
    assert [t.uid for t in store.turns(WS, "claude:s1", talk_only=True)] == ["u1", "u4"]
    assert store.turns(WS, "claude:s1")[0].files == ("src/a.py",)
    assert [t.uid for t in store.turns(WS, "claude:s1", limit=2)] == ["u1", "u2"]
    last = store.last_turn(WS, "claude:s1")
    assert last is not None and last.uid == "u4"
    hit = store.search(WS, ["answer"], ChunkFilter(), 1, (1, 0.25))[0].chunk
    assert store.chunk(WS, hit.id) == hit and hit.turn == last.id and hit.importance == 5
    assert store.chunk("other", hit.id) is None and store.turns("other", "claude:s1") == []
    important = store.important_chunks(WS, "github.com/acme/shop", ("decision",), min_importance=4, limit=5)
    assert [c.body for c in important] == ["answer"]
    counts = store.counts(WS)
    assert (counts.sessions, counts.turns, counts.chunks) == (1, 4, 4) and counts.text_bytes > 0
    assert store.counts("other").turns == 0


def test_reclassify_and_set_classes(store: CaptureStore) -> None:
    commit(store, [turn("u1", "we decided on postgres"), turn("u2", "raw output", role="tool")])
    todo = store.chunks_to_reclassify(WS, 2, 0, 10)
    assert [body for _id, body in todo] == ["we decided on postgres"]  # tool output is not classified
    store.set_classes(WS, [(todo[0][0], "decision", 4, 0.9, 2)])
    assert store.chunks_to_reclassify(WS, 2, 0, 10) == []
    assert store.chunk(WS, todo[0][0]).type == "decision"  # type: ignore[union-attr]
    assert store.chunks_to_reclassify("other", 3, 0, 10) == []


def test_memory_files_and_meta(store: CaptureStore) -> None:
    store.set_memory_file(WS, "/h/CLAUDE.md", "m:00000001", "d1", NOW)
    store.set_memory_file(WS, "/h/CLAUDE.md", "m:00000002", "d2", NOW)
    store.set_memory_file(WS, "/h/AGENTS.md", "m:00000003", "d3", NOW)
    assert store.memory_files(WS) == {"/h/CLAUDE.md": ("m:00000002", "d2"), "/h/AGENTS.md": ("m:00000003", "d3")}
    store.forget_memory_file_ref(WS, "m:00000003")
    store.drop_memory_file(WS, "/h/CLAUDE.md")
    assert store.memory_files(WS) == {"/h/AGENTS.md": ("", "d3")}
    assert store.memory_files("other") == {}
    store.set_meta(WS, "rules_version", "3")
    store.set_meta(WS, "rules_version", "4")
    assert store.get_meta(WS, "rules_version") == "4" and store.get_meta(WS, "missing") is None


def test_delete_session_takes_turns_chunks_and_index(store: CaptureStore) -> None:
    commit(store, [turn("u1", "quartermaster deploys")])
    commit(store, [turn("u1", "kept session", sid="claude:s2")], key="/t/2", sessions=[session("claude:s2")])
    store.delete_session("other", "claude:s1")  # another workspace's name: nothing happens
    assert store.turn_count(WS, "claude:s1") == 1
    store.delete_session(WS, "claude:s1")
    assert store.session(WS, "claude:s1") is None and store.turns(WS, "claude:s1") == []
    assert store.search(WS, ["quartermaster"], ChunkFilter(), 5, (1, 0.25)) == []
    assert store.turn_count(WS, "claude:s2") == 1
