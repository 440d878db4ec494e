"""The memory index: up to 12 lines, pinned first, then used in the last 30 days, then
lessons, preferences and decisions newest first; lessons with a trigger stay out."""

from __future__ import annotations

import pytest

from kenning.clock import FixedClock
from kenning.context import index
from kenning.core.remember import RememberRequest
from kenning.core.scopes import Place
from kenning.core.service import Core
from kenning.model import Kind, Origin, Trigger, TriggerTool


def test_index_order_and_limits(core: Core, place: Place, clock: FixedClock) -> None:
    def add(text: str, **kw: object) -> str:
        result = core.remember(place, RememberRequest(text=text, origin=Origin.PERSON, **kw))  # type: ignore[arg-type]
        assert result.memory is not None
        clock.advance(minutes=1)
        return result.memory.ref

    topics = ["postgres storage", "redis caching", "kafka queues", "stripe payments", "sentry errors",
              "grafana dashboards", "terraform infra", "vite bundling", "playwright browsers", "celery jobs",
              "nginx proxy", "vault secrets", "pnpm installs", "ruff linting"]
    decisions = [add(f"We chose {t} because the team knows it well.", kind=Kind.DECISION) for t in topics]
    triggered = add("Run the dry run first before a publish.", when=Trigger(TriggerTool.SHELL, "^npm publish"))
    fact = add("The staging database is refreshed from production weekly.", kind=Kind.FACT)
    pinned = add("The shop serves customers in Europe only.", kind=Kind.FACT, index=True)
    used = add("The payment provider retries webhooks for three days.", kind=Kind.FACT)
    core.use([used])
    lines = index.lines(core, place)
    assert len(lines) == 12
    assert all(len(line) <= index.LINE_CHARS for line in lines)
    assert lines[0].startswith(pinned) and lines[1].startswith(used)
    assert triggered not in "".join(lines) and fact not in "".join(lines)
    assert lines[2].startswith(decisions[-1])  # newest first


def test_never_withheld_stale_resting_changed_or_triggered(core: Core, place: Place, clock: FixedClock) -> None:
    from kenning.model import Citation

    def add(text: str, **kw: object) -> str:
        kw.setdefault("origin", Origin.PERSON)
        result = core.remember(place, RememberRequest(text=text, **kw))  # type: ignore[arg-type]
        assert result.memory is not None
        return result.memory.ref

    core.set_policy(place, "workspace", "preset", "everything")  # the default keeps no widget writes
    resting = add("We chose Celery for background jobs because it was there.", kind=Kind.DECISION)
    clock.advance(days=31)
    kept = add("Prefer small pull requests that one person can review in an hour.", kind=Kind.PREFERENCE)
    hidden = add("We chose Stripe for payments because of its EU coverage.", kind=Kind.DECISION, index=True)
    held = add("Widgets may only write to the dashboard.", kind=Kind.LESSON, origin=Origin.WIDGET, index=True)
    stale = add("The release waits on the legal review.", kind=Kind.STATE, subject="release.state", index=True)
    changed = add("We chose Vite because the dev server starts fast.", kind=Kind.DECISION)
    gone = add("We chose pnpm because workspaces hoist predictably.", kind=Kind.DECISION)
    triggered = add("Dry-run before every publish.", kind=Kind.LESSON, when=Trigger(TriggerTool.SHELL, "publish"),
                    index=True)  # fmt: skip
    core.hide(hidden)
    for ref, state in ((changed, Citation.CHANGED), (gone, Citation.GONE)):
        core.store.update(core.get(ref).evolve(citation=state))
    clock.advance(days=15)  # the state passes its shelf life; pinned memories never rest
    refs = [m.ref for m in index.choose(core, place)]
    assert refs == [kept]
    for out in (resting, hidden, held, stale, changed, gone, triggered):
        assert out not in refs
    # Releasing the held one and giving the hidden one back returns them, pinned first.
    core.release(held)
    core.give(hidden)
    assert [m.ref for m in index.choose(core, place)] == [held, hidden, kept]


def test_at_most_25_pins_count_and_each_line_says_why(core: Core, place: Place, clock: FixedClock) -> None:
    def add(text: str, **kw: object) -> str:
        result = core.remember(place, RememberRequest(text=text, origin=Origin.PERSON, **kw))  # type: ignore[arg-type]
        assert result.memory is not None
        clock.advance(minutes=1)
        return result.memory.ref

    pinned = [add(f"Fact {w} holds for the {w} service in every region.", kind=Kind.FACT, index=True)
              for w in ("alpha", "bravo", "charlie")]  # fmt: skip
    used = add("Fact the export job runs at midnight in every region.", kind=Kind.FACT)
    core.use([used])
    lesson = add("Read the runbook before paging anyone at night.", kind=Kind.LESSON)
    built = index.build(core, place)
    assert [(x.memory.ref, x.why) for x in built.lines] == [
        (pinned[2], "pinned"), (pinned[1], "pinned"), (pinned[0], "pinned"), (used, "used"), (lesson, "newest")]
    assert all(x.text.startswith(x.memory.ref) for x in built.lines)
    text = index.render(built)
    assert text.splitlines()[0].startswith("Memory for shop") and text.count("\n- m:") == 5


def test_for_automation_adds_what_sessions_leave_to_search(core: Core, place: Place, clock: FixedClock) -> None:
    from kenning.errors import Invalid

    facts = []
    for w in ("queues", "caches", "mailers", "workers"):
        r = core.remember(place, RememberRequest(text=f"The {w} run in the eu-west region only.", kind=Kind.FACT,
                                                 origin=Origin.PERSON))  # fmt: skip
        assert r.memory is not None
        facts.append(r.memory.ref)
        clock.advance(minutes=1)
    decision = core.remember(place, RememberRequest(text="We chose Postgres because of its JSON support.",
                                                    kind=Kind.DECISION, origin=Origin.PERSON))  # fmt: skip
    assert decision.memory is not None
    agent = index.build(core, place)
    assert [x.memory.ref for x in agent.lines] == [decision.memory.ref] and agent.also == []
    auto = index.build(core, place, for_="automation", also=3)
    assert [x.memory.ref for x in auto.lines] == [decision.memory.ref]
    assert [x.memory.ref for x in auto.also] == list(reversed(facts))[:3]  # newest first, not in the index
    assert "Also in memory" in index.render(auto) and index.render(auto).startswith("@memory for shop")
    with pytest.raises(Invalid):
        index.build(core, place, for_="everyone")
    assert "nothing to give yet" in index.render(index.build(core, core.place(project="github.com/acme/empty")))
