"""The reads behind the web app: the filtered, counted listing and its search, one memory's
card, what was retired lately, the memory map, a session's record, sessions per tool, and
rules counted where they hold."""

from __future__ import annotations

import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from kenning.clock import FixedClock
from kenning.context import given
from kenning.core import browse, citations, filemap, report, rules, work
from kenning.core.remember import RememberRequest
from kenning.core.scopes import Place
from kenning.core.service import Core
from kenning.domain.write_rules import parse_trigger
from kenning.errors import Invalid
from kenning.model import Citation, DecisionDoc, Kind, Origin, Status
from kenning.redacted import EMPTY, redacted


def add(core: Core, place: Place, text: str, **kw: object) -> str:
    request = RememberRequest(text=text, **{"origin": Origin.PERSON, "source": "cli", **kw})  # type: ignore[arg-type]
    result = core.remember(place, request)
    assert result.memory is not None, result
    return result.memory.ref


def test_listing_filters_counts_each_facet_and_pages(core: Core, place: Place) -> None:
    refs = [add(core, place, f"Service {i} deploys from its own pipeline number {chr(97 + i)}") for i in range(5)]
    lesson = add(core, place, "Run the migrations before the app starts", kind=Kind.LESSON,
                 when=parse_trigger("shell:^alembic"))  # fmt: skip
    agent = add(core, place, "The staging cluster sleeps at night", origin=Origin.AGENT, source="codex")
    core.retire(refs[0])
    page = browse.browse(core, browse.MemoryQuery(project=place.project, limit=3))
    assert page.total == 6 and len(page.memories) == 3 and page.has_more
    assert page.memories[0].ref == agent  # newest first
    assert page.facets.statuses == {"active": 6, "retired": 1}
    assert page.facets.kinds == {"fact": 5, "lesson": 1}
    assert page.facets.origins == {"person": 5, "agent": 1}
    assert page.facets.writers == {"cli": 5, "codex": 1}
    nxt = browse.browse(core, browse.MemoryQuery(project=place.project, limit=3, offset=3))
    assert not nxt.has_more and len(nxt.memories) == 3
    only = browse.browse(core, browse.MemoryQuery(project=place.project, kind="lesson"))
    assert [m.ref for m in only.memories] == [lesson]
    assert only.facets.kinds == {"fact": 5, "lesson": 1}  # a facet ignores its own filter
    by_writer = browse.browse(core, browse.MemoryQuery(project=place.project, writer="codex"))
    assert [m.ref for m in by_writer.memories] == [agent]
    retired = browse.browse(core, browse.MemoryQuery(project=place.project, status="retired"))
    assert [m.ref for m in retired.memories] == [refs[0]]
    assert browse.browse(core, browse.MemoryQuery(status="all")).total == 7  # every project


@pytest.mark.parametrize("bad", [{"kind": "opinion"}, {"status": "gone"}, {"origin": "robot"}, {"limit": 0},
                                 {"offset": -1}, {"limit": 500}])  # fmt: skip
def test_a_bad_listing_query_says_what_to_fix(core: Core, bad: dict[str, object]) -> None:
    with pytest.raises(Invalid) as raised:
        browse.browse(core, browse.MemoryQuery(**bad))  # type: ignore[arg-type]
    assert raised.value.fix


def test_search_is_recall_over_the_project_or_every_project(core: Core, place: Place) -> None:
    ref = add(core, place, "We chose Redis streams for the job queue", kind=Kind.DECISION, reason="polling was slow")
    other = core.place(project="github.com/acme/other")
    elsewhere = add(core, other, "The other service queues jobs in Redis streams too")
    hits = browse.browse(core, browse.MemoryQuery(project=place.project, text="redis streams job queue"))
    assert hits.searched and [m.ref for m in hits.memories] == [ref] and hits.hits[ref].score > 0
    assert hits.total == 1
    everywhere = browse.browse(core, browse.MemoryQuery(text="redis streams job queue"))
    assert {m.ref for m in everywhere.memories} == {ref, elsewhere}
    narrowed = browse.browse(core, browse.MemoryQuery(text="redis streams job queue", kind="fact"))
    assert [m.ref for m in narrowed.memories] == [elsewhere]
    assert browse.browse(core, browse.MemoryQuery(text="kubernetes helm rollback")).memories == []


def test_card_holds_history_uses_doc_and_belief_window(core: Core, place: Place, clock: FixedClock) -> None:
    old = add(core, place, "The dashboard uses the light theme", kind=Kind.PREFERENCE, subject="ui.theme")
    clock.advance(hours=1)
    new = add(core, place, "The dashboard uses the dark theme", kind=Kind.PREFERENCE, subject="ui.theme")
    core.use([new], session="codex:s1", tool="codex")
    core.pin(new)
    card = browse.card(core, new)
    assert [m.ref for m in card.history.replaced] == [old]
    whats = [e.what for e in card.timeline]
    assert whats[0] == "created" and {"used", "pinned"} <= set(whats)
    assert [e.at for e in card.timeline] == sorted(e.at for e in card.timeline)
    assert card.sessions_used == 1 and card.tools_used == ["codex"]
    assert card.in_recall and card.believed_until is None
    old_card = browse.card(core, old)
    assert [m.ref for m in old_card.history.replaced_by] == [new]
    assert old_card.believed_until == clock.now() and not old_card.in_recall
    decision = core.record_decision(place, RememberRequest(text="Use pnpm for workspaces", kind=Kind.DECISION,
                                                           reason="hoisting broke", origin=Origin.PERSON))  # fmt: skip
    assert decision.remembered.memory is not None
    assert browse.card(core, decision.remembered.memory.ref).doc is not None


def test_retired_lately_keeps_thirty_days(core: Core, place: Place, clock: FixedClock) -> None:
    a = add(core, place, "The first thing that was retired long ago")
    b = add(core, place, "The second thing retired just now")
    core.retire(a)
    clock.advance(days=31)
    core.retire(b)
    assert [m.ref for m in browse.retired_lately(core, place.project)] == [b]


def _repo(tmp: Path) -> Path:
    repo = tmp / "shop"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "app.py").write_text("A = 1\nB = 2\n")
    (repo / "src" / "db.py").write_text("URL = 'x'\n")
    (repo / "README.md").write_text("# shop\n")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    subprocess.run(["git", "remote", "add", "origin", "git@github.com:acme/shop.git"], cwd=repo, check=True)
    return repo


def test_file_map_marks_each_citation_state_and_lists_a_files_lessons(core: Core, tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    place = core.place(repo)
    same = add(core, place, "The app keeps its constants at the top", source_ref="src/app.py:1-2")
    changed = add(core, place, "The database URL is a constant", source_ref="src/db.py:1")
    gone = add(core, place, "The legacy module still exists", source_ref="src/legacy.py")
    lesson = add(core, place, "Reload the app after editing its constants", kind=Kind.LESSON,
                 when=parse_trigger("edit:src/app.py"))  # fmt: skip
    (repo / "src" / "db.py").write_text("URL = 'y'\n")
    citations.check_all(core, place.project)
    fmap = filemap.file_map(core, place.project)
    assert fmap.root == repo and fmap.cited_files == 3 and fmap.files == 4
    src = next(c for c in fmap.tree.children if c.name == "src")
    assert src.cited == 3 and src.worst == "gone"
    files = {c.name: c for c in src.children}
    assert files["legacy.py"].states == {"gone": 1} and [m.ref for m in files["legacy.py"].memories] == [gone]
    assert files["db.py"].states == {"changed": 1} and files["db.py"].worst == "changed"
    assert files["app.py"].worst == "same" and [m.ref for m in files["app.py"].memories] == [same]
    readme = next(c for c in fmap.tree.children if c.name == "README.md")
    assert readme.cited == 0 and readme.worst == ""
    assert fmap.uncited_paths == ["src/legacy.py"]
    one = filemap.file_memories(core, place.project, "src/app.py")
    assert [m.ref for m in one.citing] == [same] and [m.ref for m in one.lessons] == [lesson]
    assert core.get(changed).citation is Citation.CHANGED


def test_file_map_without_the_folder_shows_cited_files(core: Core, place: Place) -> None:
    add(core, place, "Routes are declared in one file", source_ref="web/routes.py:10")
    fmap = filemap.file_map(core, place.project)
    assert fmap.root is None and fmap.files == 1
    assert fmap.tree.children[0].name == "web" and fmap.tree.children[0].children[0].name == "routes.py"


def test_session_record_joins_every_spelling_of_the_id(core: Core, place: Place) -> None:
    assert given.session_ids("claude:abc") == ["claude:abc", "abc", "claude-code:abc"]
    assert given.session_ids("claude-code:abc") == ["claude-code:abc", "abc", "claude:abc"]
    lesson = add(core, place, "Check the lockfile after adding a package", kind=Kind.LESSON,
                 when=parse_trigger("shell:^npm install"))  # fmt: skip
    fact = add(core, place, "The lockfile is committed")
    wrote = add(core, place, "CI caches node_modules by lockfile hash", origin=Origin.AGENT, session="abc")
    work.ensure_session(core, place, "claude-code", "abc", "", forced=True)
    core.stores.hooks.mark_shown(core.workspace, "claude-code:abc", "lesson", [lesson], core.now())
    core.use([fact], session="claude-code:abc", tool="claude-code")
    record = given.record(core, "claude:abc")
    assert record.group == "holdout" and record.hooks is not None
    assert [(s.what, s.key) for s in record.shown] == [("lesson", lesson)] and record.shown[0].memory is not None
    assert [u.ref for u, m in record.used] == [fact] and [m.ref for m in record.wrote] == [wrote]
    assert given.as_dict(record)["group"] == "holdout"
    unseen = given.record(core, "codex:zzz")
    assert unseen.hooks is None and unseen.group == "unknown" and not unseen.used


def test_sessions_by_tool_counts_groups_in_the_window(core: Core, place: Place, clock: FixedClock) -> None:
    work.ensure_session(core, place, "codex", "old", "", forced=False)
    clock.advance(days=40)
    for sid, holdout in (("a", False), ("b", True), ("c", False)):
        work.ensure_session(core, place, "codex", sid, "", forced=holdout)
    work.ensure_session(core, place, "gemini", "g", "", forced=False)
    core.stores.hooks.update_session(core.workspace, "codex:a", recalled=True)
    rows = report.sessions_by_tool(core, clock.now() - timedelta(days=30))
    assert [(r.tool, r.pointed, r.holdout, r.recalled) for r in rows] == [("codex", 2, 1, 1), ("gemini", 1, 0, 0)]
    assert report.sessions_by_tool(core, None, "github.com/other/x") == []
    assert sum(r.total for r in report.sessions_by_tool(core)) == 5


def test_rules_everywhere_count_where_each_holds(core: Core, place: Place, clock: FixedClock) -> None:
    add(core, place, "An old fact nobody used in months")
    other = core.place(project="github.com/acme/other")
    add(core, other, "Another old fact in another project")
    clock.advance(days=90)
    mine = rules.add_ready(core, "unused", n=60, project=place.project)
    everywhere = rules.add_ready(core, "unused", n=60)
    rules.add_sentence(core, "Keep secrets out of memory.")
    counts = {v.rule.id: v.leaves_out for v in rules.listing_everywhere(core)}
    assert counts[mine] == 1 and counts[everywhere] == 2
    assert all(m.status is Status.ACTIVE for m in core.list_memories(place))


def test_rule_counts_read_from_the_store_match_the_rule_itself(core: Core, place: Place, clock: FixedClock) -> None:
    """count_left_out (what the Rules page shows) judges exactly as left_out (what is given out)."""
    for i in range(12):
        ref = add(core, place, f"Fact number {chr(97 + i)} about the billing service and its {chr(98 + i)} queue",
                  kind=(Kind.FACT, Kind.LESSON, Kind.DECISION)[i % 3], reason="it was agreed in review")  # fmt: skip
        if i % 4 == 0:
            core.use([ref], session=f"s{i}", tool="codex")
        if i % 5 == 0:
            core.pin(ref)
        clock.advance(days=9)
    # Outcome lines on some decisions' docs, as outcomes.check writes them (and by hand, any case).
    lines = [("Shipped in #12 (2026-11-02).",), ("Reverted by abc1234 (2026-11-09).",), ("shipped, then REVERTED",),
             ("To be determined.",), ("Not shipped: closed without merging.", "reverted later")]  # fmt: skip
    decisions = [m for m in core.list_memories(place, limit=1000) if m.kind is Kind.DECISION]
    for memory, outcome in zip(decisions, lines, strict=False):
        core.store.save_decision_doc(DecisionDoc(0, core.workspace, place.project, redacted(f"Doc {memory.ref}"),
                                                 memory.text, memory.reason, EMPTY, 0.9, "",
                                                 tuple(redacted(line) for line in outcome), memory.ref, "cli",
                                                 clock.now(), clock.now()))  # fmt: skip
    memories = core.list_memories(place, limit=1000)
    seen = []
    for kind, n, memory_kind in (("unused", 30, ""), ("unused", 60, "lesson"), ("proven", 1, ""), ("proven", 2, ""),
                                 ("shipped", 0, ""), ("undone", 0, "")):  # fmt: skip
        rule_id = rules.add_ready(core, kind, n=n or None, project=place.project, memory_kind=memory_kind)
        rule = core.stores.rules.rule(core.workspace, rule_id)
        assert rule is not None
        expected = len(rules.left_out(core, rule, memories))
        assert rules.count_left_out(core, rule, [place.project]) == expected, kind
        seen.append(expected)
    # None of the counts is trivially zero or everything: each rule leaves out some and keeps some.
    assert all(0 < count < len(memories) for count in seen), seen


def test_search_as_of_answers_from_what_was_believed_then(core: Core, place: Place, clock: FixedClock) -> None:
    old = add(core, place, "The dashboard uses the light theme", kind=Kind.PREFERENCE, subject="ui.theme")
    clock.advance(days=3)
    new = add(core, place, "The dashboard uses the dark theme", kind=Kind.PREFERENCE, subject="ui.theme")
    then = (clock.now() - timedelta(days=2)).date().isoformat()
    past = browse.browse(core, browse.MemoryQuery(project=place.project, text="dashboard theme", as_of=then))
    assert [m.ref for m in past.memories] == [old] and past.hits[old].until is not None
    now = browse.browse(core, browse.MemoryQuery(project=place.project, text="dashboard theme"))
    assert [m.ref for m in now.memories] == [new]
