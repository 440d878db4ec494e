"""Seed 001's decisions in a shared workspace, through a real server (real HTTP on loopback,
real PostgreSQL): the same title under the same project updates *your* doc (the reasoning is
replaced, the lines under Outcome stay) on each of your machines; a teammate's doc with that
title is left alone and keeps its own reasoning; and a teammate's machine cannot change your
doc (rows belong to their author): its local edit never travels, and your next change wins
there too."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from serverkit import Machine, alice_two_machines_and_bob, running_server

from kenning.core.remember import RememberRequest
from kenning.model import DecisionDoc, Kind, Origin

PROJECT = "github.com/acme/shop"


def _docs(machine: Machine) -> dict[tuple[str, str], DecisionDoc]:
    return {(str(d.title), d.author): d for d in machine.core.store.decision_docs("acme", [PROJECT])}


def _decide(machine: Machine, text: str, reason: str) -> DecisionDoc:
    done = machine.core.record_decision(machine.core.place(project=PROJECT), RememberRequest(
        text, kind=Kind.DECISION, reason=reason, origin=Origin.PERSON, source="cli", title="Queue"))  # fmt: skip
    assert done.doc is not None, done
    return done.doc


def test_the_same_title_updates_your_doc_everywhere_and_leaves_a_teammates_alone(server_dsn: str, tmp_path: Path) -> None:
    with running_server(server_dsn) as srv:
        laptop, desk, bob = alice_two_machines_and_bob(srv, tmp_path)
        machines = (laptop, desk, bob)
        try:
            first = _decide(laptop, "We chose Celery over RQ for the export queue", "retries and beat schedules")
            _decide(bob, "We chose RQ over Celery for the mail queue", "one dependency, no broker tuning")
            laptop.core.add_outcome(first, "Shipped in \"Move the export to Celery\", 2026-11-20")
            for m in (*machines, laptop):
                m.sync()
            assert "Move the export" in _docs(bob)[("Queue", "alice/cli")].outcome[0]

            # alice decides again under the same title, on her other machine: her doc's reasoning is
            # replaced and its outcome stays, on both her machines and in bob's copy.
            _decide(desk, "We chose Celery over Dramatiq for the export queue", "the team already runs Celery")
            for m in (desk, laptop, bob):
                m.sync()
            for m, author in ((laptop, "cli"), (desk, "cli"), (bob, "alice/cli")):
                mine = [d for (title, a), d in _docs(m).items() if title == "Queue" and a == author]
                assert len(mine) == 1, (m.home.name, sorted(_docs(m)))
                assert mine[0].reason == "the team already runs Celery" and "Dramatiq" in mine[0].decision, m.home.name
                assert any("Move the export" in line for line in mine[0].outcome), (m.home.name, mine[0].outcome)
            # bob's doc with that title is left alone, everywhere.
            for m, author in ((bob, "cli"), (laptop, "bob/cli"), (desk, "bob/cli")):
                his = _docs(m)[("Queue", author)]
                assert his.reason == "one dependency, no broker tuning" and "mail queue" in his.decision, m.home.name

            # bob's machine edits its copy of alice's doc: nothing travels, and alice's doc stays hers.
            theirs = _docs(bob)[("Queue", "alice/cli")]
            bob.core.store.save_decision_doc(replace(theirs, reason="because bob says so"))
            assert bob.sync()[0].pushed == 0
            laptop.sync()
            assert _docs(laptop)[("Queue", "cli")].reason == "the team already runs Celery"
            laptop.core.add_outcome(_docs(laptop)[("Queue", "cli")], "Reverted: nothing was undone")
            laptop.sync()
            bob.sync()
            assert _docs(bob)[("Queue", "alice/cli")].reason == "the team already runs Celery"
        finally:
            for m in machines:
                m.close()
