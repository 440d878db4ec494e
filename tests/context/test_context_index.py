"""The memory index: up to 12 lines, pinned first, then used in the last 30 days, then
lessons, preferences and decisions newest first; lessons with a trigger stay out."""

from __future__ import annotations

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
