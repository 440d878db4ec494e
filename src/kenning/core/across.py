"""Recall across workspaces: each workspace answers with its own recall (its own ranking and
abstention, over its own memories), and the answers are interleaved into one labelled list.

Scores of different workspaces are BM25 over different collections, so they are compared
only to interleave: each workspace's own order is kept, and at every step the stronger of the
workspaces' next hits goes first (a weak hit after every hit that cleared the bar).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from kenning.config import Settings
from kenning.core.recall import DEFAULT_COUNT, RecallHit, RecallResult
from kenning.core.scopes import Place, named
from kenning.core.service import Core
from kenning.errors import Invalid


@dataclass(frozen=True)
class Labelled:
    workspace: str
    hit: RecallHit


def interleave(results: Sequence[tuple[str, RecallResult]], count: int) -> list[Labelled]:
    """At most ``count`` hits of every workspace's result, labelled, strongest first."""
    runs = [[Labelled(ws, h) for h in result.hits] for ws, result in results]
    merged = heapq.merge(*runs, key=lambda x: (x.hit.weak, -x.hit.score))
    return [x for _, x in zip(range(max(0, count)), merged, strict=False)]


@dataclass(frozen=True)
class AcrossResult:
    query: str
    workspaces: tuple[str, ...]
    hits: list[Labelled]
    as_of: datetime | None = None


def in_workspace(core: Core, workspace: str) -> Core:
    """The same stores, clock and settings, acting in ``workspace``."""
    settings = replace(core.settings, workspace=workspace) if core.settings else Settings(Path("."), workspace)
    return Core(core.stores, core.clock, settings)


def recall_across(
    core: Core, place: Place, workspaces: Sequence[str], query: str, *, as_of: str | None = None,
    also: Sequence[str] = (), count: int = DEFAULT_COUNT, record: bool = True,
) -> AcrossResult:  # fmt: skip
    """Recall ``query`` in each of ``workspaces`` (the project of ``place`` in each; its group
    as each workspace files it), interleaved and labelled (:func:`interleave`)."""
    if not workspaces:
        raise Invalid("no workspace given", fix="name one or more workspaces, e.g. acme,beta")
    answers = []
    when = None
    for ws in dict.fromkeys(workspaces):
        there = in_workspace(core, ws)
        here = replace(named(there.store, ws, place.project, there.now()), root=place.root, branch=place.branch)
        result = there.recall(here, query, as_of=as_of, also=also, count=count, record=record)
        when = result.as_of
        answers.append((ws, result))
    return AcrossResult(query, tuple(ws for ws, _ in answers), interleave(answers, count), when)
