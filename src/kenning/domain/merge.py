"""Where a new memory goes among the memories it meets: the rules ``remember`` applies on one
machine, and the team server applies to what machines push (docs/server.md), so that a
conflict between two machines is settled by the memory model, never by the last writer.

- a near-duplicate (same polarity, term overlap at least ``NEAR_DUPLICATE``) strengthens the
  memory it repeats;
- a claim that contradicts a firmer memory (opposite polarity, overlap at least
  ``CONTRADICTION_OVERLAP``) waits in Needs review;
- anything else is stored (and a preference or state then supersedes its slot).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from kenning.domain import write_rules as rules
from kenning.model import Kind, Memory, Origin
from kenning.text import jaccard, term_set

# "Near" is Jaccard similarity of the stemmed, stop-word-free term sets of two sentences.
# At 0.8 two sentences differ by at most a word or two ("Use pnpm, not npm" vs "Use pnpm
# and not npm here"); we strengthen the existing memory instead of adding a copy.
NEAR_DUPLICATE = 0.8
# Sentences this close share a topic: a negation flipped between them reads as a contradiction.
CONTRADICTION_OVERLAP = 0.5

Action = Literal["store", "strengthen", "review"]


@dataclass(frozen=True)
class Placement:
    action: Action
    other: Memory | None = None  # the memory strengthened, or the firmer one contradicted


def deciding_terms(terms: Collection[str], df: Mapping[str, int]) -> list[str]:
    """The words of a claim's ``terms`` that every memory able to change its placement holds
    at least one of: its rarest ``n - ceil(CONTRADICTION_OVERLAP * n) + 1`` (fewest memories
    hold them, by ``df``; ties by the word).

    Why that is enough: a memory with overlap (Jaccard) at least CONTRADICTION_OVERLAP, the
    lower of the two thresholds, shares at least ``CONTRADICTION_OVERLAP * n`` of the n words;
    one holding none of these could share at most ``ceil(CONTRADICTION_OVERLAP * n) - 1`` of
    them. A search over these words finds every candidate that matters and leaves out the
    common words, whose long lists of memories are most of a search's cost on a large store."""
    ordered = sorted(terms, key=lambda t: (df.get(t, 0), t))
    n = len(ordered)
    keep = n - math.ceil(CONTRADICTION_OVERLAP * n) + 1
    return ordered[: max(1, min(n, keep))]


def firmer(existing: Memory, confidence: float, origin: Origin) -> bool:
    """Whether ``existing`` holds more firmly than a new claim of ``confidence`` by ``origin``."""
    return existing.confidence > confidence or (existing.origin is Origin.PERSON and origin is not Origin.PERSON)


def place(
    text: str, kind: Kind, subject: str, confidence: float, origin: Origin, candidates: Sequence[Memory], *,
    accepted: bool = False, may_strengthen: Callable[[Memory], bool] = lambda m: True,
) -> Placement:  # fmt: skip
    """Where a new claim goes among ``candidates`` (memories of its scope that share terms).

    ``accepted``: a person accepted it from Needs review, so it is never held again.
    ``may_strengthen``: which candidates a repeat may strengthen (the server lets only the
    author's own: a teammate restating a claim does not confirm it).
    """
    own = term_set(text)
    close = sorted(
        ((jaccard(own, term_set(m.text)), m) for m in candidates if m.kind is kind or (subject and m.subject == subject)),
        key=lambda pair: -pair[0],
    )
    negated = rules.polarity(text)
    for similarity, existing in close:
        if similarity >= NEAR_DUPLICATE and rules.polarity(existing.text) == negated and may_strengthen(existing):
            return Placement("strengthen", existing)
    if not accepted:
        for similarity, existing in close:
            if (
                similarity >= CONTRADICTION_OVERLAP
                and firmer(existing, confidence, origin)
                and rules.polarity(existing.text) != negated
            ):
                return Placement("review", existing)
    return Placement("store")


def strengthened(existing: Memory, *, source: str, origin: Origin, reason: str, source_ref: str, now: datetime) -> Memory:
    """``existing`` restated: another tool (or a person) restating it is a confirmation; the
    writer repeating itself is an echo that restarts shelf life but earns no evidence."""
    echo = source == existing.origin_tool and origin is existing.origin
    bumped = min(0.99, existing.confidence + (1 - existing.confidence) * 0.2)
    return existing.evolve(
        confidence=bumped if not echo else existing.confidence,
        confirmed_at=now,
        confirmations=existing.confirmations + (0 if echo else 1),
        reason=existing.reason or reason,
        source_ref=existing.source_ref or source_ref,
    )


def is_echo(existing: Memory, *, source: str, origin: Origin) -> bool:
    return source == existing.origin_tool and origin is existing.origin
