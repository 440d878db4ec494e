"""Recall across workspaces: each workspace answers with its own recall (its own ranking and
abstention, over its own memories), and the answers are interleaved into one labelled list.

Scores of different workspaces are BM25 over different collections, so they are compared
only to interleave: each workspace's own order is kept, and at every step the stronger of the
workspaces' next hits goes first (a weak hit after every hit that cleared the bar).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

from kenning.core.recall import RecallHit, RecallResult


@dataclass(frozen=True)
class Labelled:
    workspace: str
    hit: RecallHit


def interleave(results: Sequence[tuple[str, RecallResult]], count: int) -> list[Labelled]:
    """At most ``count`` hits of every workspace's result, labelled, strongest first."""
    runs = [[Labelled(ws, h) for h in result.hits] for ws, result in results]
    merged = heapq.merge(*runs, key=lambda x: (x.hit.weak, -x.hit.score))
    return [x for _, x in zip(range(max(0, count)), merged, strict=False)]
