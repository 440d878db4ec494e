"""Placements (seed 000, "Deciding where a memory goes"), on every place they apply: the index,
recall, lessons on a tool call (core path; the hooks' own path is in tests/hooks), task cards;
each listed with an undo; a replacing memory keeps them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from kenning import gitinfo
from kenning.clock import FixedClock
from kenning.context import card
from kenning.context import index as index_mod
from kenning.core import lessons, placements, work
from kenning.core.remember import RememberRequest
from kenning.core.scopes import Place, add_group
from kenning.core.service import Core
from kenning.errors import Invalid, NotFound, Refused
from kenning.model import Kind, Origin, Placing, Status, Trigger, TriggerTool


def git_repo(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "deploy.py").write_text("def ship_release():\n    return 1\n")
    env = dict(os.environ, GIT_AUTHOR_NAME="A", GIT_AUTHOR_EMAIL="a@example.com", GIT_COMMITTER_NAME="A",
               GIT_COMMITTER_EMAIL="a@example.com", GIT_CONFIG_NOSYSTEM="1")  # fmt: skip
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return root


@pytest.fixture
def web(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, core: Core) -> tuple[Place, Place, Place]:
    """A group folder `web` holding two projects (shop, admin), and a project outside it (tools)."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    (tmp_path / "gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    gitinfo.clear_cache()
    shop, admin = git_repo(tmp_path / "web" / "shop"), git_repo(tmp_path / "web" / "admin")
    tools = git_repo(tmp_path / "tools")
    add_group(core.store, core.workspace, "web", tmp_path / "web", core.now())
    return core.place(shop), core.place(admin), core.place(tools)


def add(core: Core, place: Place, text: str, **kw: object) -> str:
    kw.setdefault("origin", Origin.PERSON)
    result = core.remember(place, RememberRequest(text=text, **kw))  # type: ignore[arg-type]
    assert result.memory is not None, result
    return result.memory.ref


def recalled(core: Core, place: Place, query: str) -> list[str]:
    return [h.memory.ref for h in core.recall(place, query, record=False).hits]


def card_refs(core: Core, place: Place, title: str) -> str:
    task = work.start_task(core, work.add_task(core, place, title, ""), cwd=str(place.root))
    return card.build(core, place, task)


def lesson_refs(core: Core, place: Place, command: str, session: str) -> list[str]:
    call = lessons.ToolCall("shell", command)
    return [m.ref for m in lessons.for_call(core, place, call, f"claude-code:{session}", str(place.root))]


def test_not_here_keeps_a_memory_from_every_path_of_that_project_only(core: Core, web: tuple[Place, Place, Place]) -> None:
    shop, admin, tools = web
    decision = add(core, shop, "We ship releases from the deploy script because it tags the build.",
                   kind=Kind.DECISION, source_ref="src/deploy.py", global_=True, index=True)  # fmt: skip
    lesson = add(core, shop, "Run the smoke tests before shipping a release.", kind=Kind.LESSON, global_=True,
                 when=Trigger(TriggerTool.SHELL, r"ship"))  # fmt: skip
    for place in (shop, admin, tools):  # a global memory reaches every project
        assert decision in recalled(core, place, "ship releases deploy script")
        assert decision in [m.ref for m in index_mod.choose(core, place)]
    core.place_memory(decision, Placing.NOT_HERE, shop.project)
    core.place_memory(lesson, Placing.NOT_HERE, shop.project)
    assert decision not in recalled(core, shop, "ship releases deploy script")
    assert decision not in [m.ref for m in index_mod.choose(core, shop)]
    assert decision not in card_refs(core, shop, "Fix ship_release in src/deploy.py")
    assert lesson_refs(core, shop, "make ship", "s1") == []
    # The other projects still get it, on every path.
    assert decision in recalled(core, admin, "ship releases deploy script")
    assert decision in [m.ref for m in index_mod.choose(core, admin)]
    assert decision in card_refs(core, admin, "Fix ship_release in src/deploy.py")
    assert lesson_refs(core, admin, "make ship", "s2") == [lesson]


def test_not_here_for_a_group_holds_in_each_of_its_projects(core: Core, web: tuple[Place, Place, Place]) -> None:
    shop, admin, tools = web
    assert shop.group == admin.group == "group:web" and not tools.group
    ref = add(core, tools, "Staging refreshes from production every Monday night.", kind=Kind.FACT, global_=True)
    core.place_memory(ref, Placing.NOT_HERE, "group:web")
    assert recalled(core, shop, "staging refresh production") == []
    assert recalled(core, admin, "staging refresh production") == []
    assert recalled(core, tools, "staging refresh production") == [ref]


def test_always_comes_first_in_the_index_but_never_brings_back_what_is_withheld(
    core: Core, web: tuple[Place, Place, Place], clock: FixedClock
) -> None:
    shop, admin, _ = web
    core.set_policy(shop, "workspace", "preset", "everything")  # the default keeps no widget writes
    old_fact = add(core, shop, "The payment provider retries webhooks for three days.", kind=Kind.FACT)
    held = add(core, shop, "Widgets write into the admin panel only.", kind=Kind.FACT, origin=Origin.WIDGET)
    state = add(core, shop, "The release branch waits on the legal review.", kind=Kind.STATE,
                subject="release.branch.state")  # fmt: skip
    clock.advance(days=40)  # the fact rests; the state is past its shelf life
    newer = [add(core, shop, f"We chose tool number {w} because the team knows it.", kind=Kind.DECISION)
             for w in ("one", "two", "three")]  # fmt: skip
    assert old_fact not in [m.ref for m in index_mod.choose(core, shop)]  # resting
    for ref in (old_fact, held, state):
        core.place_memory(ref, Placing.ALWAYS, shop.project)
    built = index_mod.build(core, shop)
    # A person's "always give this here" keeps it from resting here; held and stale stay out.
    assert [x.memory.ref for x in built.lines] == [old_fact, *reversed(newer)]
    assert built.lines[0].why == "always here"
    assert old_fact not in [m.ref for m in index_mod.choose(core, admin)]  # only where it was placed
    # A group's placement holds in its projects, after the project's own.
    group_first = add(core, admin, "Admin pages need the staff role.", kind=Kind.FACT)
    clock.advance(days=40)
    core.place_memory(group_first, Placing.ALWAYS, "group:web")
    assert [m.ref for m in index_mod.choose(core, admin)][:1] == [group_first]


def test_never_for_agent_runs_keeps_it_off_cards_only(core: Core, web: tuple[Place, Place, Place]) -> None:
    shop, _, _ = web
    ref = add(core, shop, "Releases are cut on Tuesdays because support is fully staffed.", kind=Kind.DECISION,
              source_ref="src/deploy.py", index=True)  # fmt: skip
    assert ref in card_refs(core, shop, "Tidy ship_release in src/deploy.py")
    core.place_memory(ref, Placing.NO_AGENT_RUNS)
    assert ref not in card_refs(core, shop, "Tidy ship_release in src/deploy.py")
    assert ref in [m.ref for m in index_mod.choose(core, shop)]
    assert ref in recalled(core, shop, "releases cut on tuesdays")
    core.unplace_memory(ref, Placing.NO_AGENT_RUNS)
    assert ref in card_refs(core, shop, "Tidy ship_release again in src/deploy.py")


def test_a_replacing_memory_keeps_its_predecessors_placements(core: Core, web: tuple[Place, Place, Place]) -> None:
    shop, admin, _ = web
    first = add(core, shop, "Deploys go out from the CI runner.", kind=Kind.FACT)
    core.place_memory(first, Placing.NOT_HERE, admin.project)
    core.place_memory(first, Placing.NO_AGENT_RUNS)
    core.place_memory(first, Placing.ALWAYS, shop.project)
    # replaces=…
    second = add(core, shop, "Deploys go out from the release workflow on GitHub.", kind=Kind.FACT, replaces=(first,))
    assert core.get(first).status is Status.SUPERSEDED
    kept = {(p.decision, p.place) for p in core.placements(second)}
    assert kept == {(Placing.NOT_HERE, admin.project), (Placing.NO_AGENT_RUNS, ""), (Placing.ALWAYS, shop.project)}
    # a later memory on the same slot
    pref = add(core, shop, "Use dark mode in the admin screenshots.", kind=Kind.PREFERENCE, subject="ui.theme")
    core.place_memory(pref, Placing.NOT_HERE, admin.project)
    newer = add(core, shop, "Use light mode in the admin screenshots.", kind=Kind.PREFERENCE, subject="ui.theme")
    assert [(p.decision, p.place) for p in core.placements(newer)] == [(Placing.NOT_HERE, admin.project)]
    # a merge accepted in Needs review
    a = add(core, shop, "The queue retries a job five times.", kind=Kind.FACT)
    b = add(core, shop, "Jobs that fail five times go to the dead letter queue.", kind=Kind.FACT)
    core.place_memory(b, Placing.NO_AGENT_RUNS)
    item = core.propose(shop, "merge", [a, b], text="The queue retries a job five times, then dead-letters it.")
    merged = core.resolve_review(shop, item.id, "accept").payload["effects"]["created"][0]  # type: ignore[index]
    assert [p.decision for p in core.placements(str(merged))] == [Placing.NO_AGENT_RUNS]
    # and the history says where it came from
    assert any(e.event == "placed" and e.other_ref == first for e in core.history(second).events)


def test_listed_with_undo_and_the_opposite_decision_replaces(core: Core, web: tuple[Place, Place, Place]) -> None:
    shop, _, _ = web
    ref = add(core, shop, "Feature flags live in the flags service.", kind=Kind.FACT)
    core.place_memory(ref, Placing.ALWAYS, shop.project, by="cli")
    core.place_memory(ref, Placing.ALWAYS, shop.project, by="cli")  # twice: one placement
    assert [(p.decision, p.by) for p in core.placements(ref)] == [(Placing.ALWAYS, "cli")]
    core.place_memory(ref, Placing.NOT_HERE, shop.project)
    assert [p.decision for p in core.placements(ref)] == [Placing.NOT_HERE]
    undone = core.unplace_memory(ref, Placing.NOT_HERE, shop.project)
    assert undone.decision is Placing.NOT_HERE and core.placements(ref) == []
    events = [(e.event, e.detail) for e in core.history(ref).events if e.event in ("placed", "unplaced")]
    assert events == [("placed", f"always {shop.project}"), ("unplaced", f"always {shop.project}"),
                      ("placed", f"not-here {shop.project}"), ("unplaced", f"not-here {shop.project}")]  # fmt: skip
    with pytest.raises(NotFound, match="no 'not relevant here' placement"):
        core.unplace_memory(ref, Placing.NOT_HERE, shop.project)


def test_bad_placements_are_refused_with_a_fix(core: Core, web: tuple[Place, Place, Place]) -> None:
    shop, admin, tools = web
    ref = add(core, shop, "Feature flags live in the flags service.", kind=Kind.FACT)
    with pytest.raises(NotFound, match="no memory m:0000beef"):
        core.place_memory("m:0000beef", Placing.ALWAYS, shop.project)
    with pytest.raises(NotFound) as missing:
        core.place_memory(ref, Placing.NOT_HERE, "github.com/acme/nowhere")
    assert "kenning projects" in missing.value.fix
    with pytest.raises(Invalid, match="never receive"):
        core.place_memory(ref, Placing.ALWAYS, tools.project)  # shop's memory never reaches tools
    core.place_memory(ref, Placing.ALWAYS, "group:web")  # a project of the group: it reaches the group
    with pytest.raises(Invalid, match="not a placement"):
        placements.parse("sometimes")
    core.retire(ref, "moved to LaunchDarkly")
    with pytest.raises(Refused, match="retired") as retired:
        core.place_memory(ref, Placing.NO_AGENT_RUNS)
    assert "bring-back" in retired.value.fix
    many = [add(core, admin, f"Admin fact number {n} about the {w} screen.", kind=Kind.FACT)
            for n, w in enumerate(["users", "roles", "audit", "billing", "teams"] * 6)][: placements.ALWAYS_CAP + 1]  # fmt: skip
    for r in many[: placements.ALWAYS_CAP]:
        core.place_memory(r, Placing.ALWAYS, admin.project)
    with pytest.raises(Refused, match=f"already gives {placements.ALWAYS_CAP}"):
        core.place_memory(many[-1], Placing.ALWAYS, admin.project)
