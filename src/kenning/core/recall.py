"""``recall``: the one search over memories. Lexical and deterministic, no model.

1. The query becomes concepts (:mod:`kenning.domain.query`); words of asking ("add", "fix")
   drop out. A concept the store has never seen is looked up by prefix ("config" ->
   configuration) and as an acronym of the words around it ("pull request" -> PR).
2. The store returns its exact BM25 top candidates; here they are scored again with BM25
   over weighted terms (:mod:`kenning.core.ranking`), then the words that characterise the
   best of them are added (pseudo-relevance feedback) and the store is asked once more.
3. Recall answers only when the best candidate's evidence (the specificity of the query
   words it holds) clears EVIDENCE_BAR, raised for what of the query no candidate holds:
   TECH_PENALTY for a technology kenning knows by name ("Kubernetes" in a project that
   never mentions it), NAME_PENALTY for any other name, WORD_PENALTY for any other word.
   A why-question whose strongest candidate is a decision counts such a name as a word: it
   names its case ("the Hue bridge") of the rule the decision states.
   bench/recall_eval.py --cv chooses these on two projects and measures on the third.
4. Score = BM25 x confidence x a small recency lift; on a near tie on one slot the newer
   memory first; decisions first for a "why" question.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from kenning.core import citations, ranking
from kenning.core.scopes import Place
from kenning.domain.lifecycle import believed_at, in_recall_pool, is_resting
from kenning.domain.query import Concept, Query, parse
from kenning.errors import Invalid
from kenning.graph import vocabulary
from kenning.model import Citation, Kind, Memory, Status
from kenning.store.protocol import Hit, MemoryFilter, MemoryStore

DEFAULT_COUNT = 8
MAX_COUNT = 25
MAX_ALSO = 3
# The evidence recall needs to answer, in units of specificity (a word held by one memory
# in a hundred is about 0.8; see ranking.specificity), and what each concept no candidate
# holds adds to it: a known technology, another name, another word (see _unseen).
EVIDENCE_BAR = 0.25
NAME_PENALTY = 1.0
TECH_PENALTY = 2.0
WORD_PENALTY = 0.1
RECENCY_LIFT = 0.15
RECENCY_HALF_LIFE_DAYS = 30.0
NEAR_TIE = 0.05
# A concept the store has never seen is expanded to at most this many indexed terms that
# extend it (or that it extends, for at least PREFIX_SHARE of its length), each weighted
# EXPANSION_WEIGHT / sqrt(how many); more would be a guess.
PREFIX_CANDIDATES = 4
PREFIX_SHARE = 0.6
MIN_PREFIX = 4
EXPANSION_WEIGHT = 0.6
# The postings the store ranks candidates over, at most (see _searched).
POSTINGS_BUDGET = 20_000
# Candidates asked of the store per phrasing (at least 4 per result wanted): feedback
# reorders these. 32 and 60 gave the same recall-eval figures; 32 costs less at 100k.
WINDOW = 32
# The words of asking ("add", "fix", "make"; kenning.domain.query) still count this much in the
# score: "make nocover" is about a make target. They never count as evidence.
ASKING_WEIGHT = 0.2
# Acronyms looked for among the initials of this many consecutive concepts.
ACRONYM_SPANS = (2, 3, 4)

Gate = Callable[[list[Memory]], list[Memory]]


@dataclass(frozen=True)
class RecallHit:
    memory: Memory
    score: float
    coverage: float  # share of the query's concepts the memory holds
    weak: bool  # its own evidence is under the bar (returned because a better hit cleared it)
    resting: bool
    until: datetime | None = None
    evidence: float = 0.0


@dataclass(frozen=True)
class RecallResult:
    query: str
    hits: list[RecallHit]
    as_of: datetime | None = None


@dataclass(frozen=True)
class _Scored:
    hit: Hit
    score: float
    coverage: float
    evidence: float


def _expansions(store: MemoryStore, workspace: str, query: Query, df: dict[str, int]) -> tuple[dict[str, float], set[str]]:
    """Indexed terms standing in for concepts the store has never seen, with their weights,
    and the concepts (as written) they stand in for."""
    out: dict[str, float] = {}
    explained: set[str] = set()
    for concept in query.topic:
        if any(df.get(t, 0) for t in concept.terms):
            continue
        if concept.written.isupper():
            continue  # an acronym is not a word cut short: REST is not restart
        for term in concept.terms:
            found = _by_prefix(store, workspace, concept.written.casefold(), term)
            for other in found:
                out[other] = max(out.get(other, 0.0), EXPANSION_WEIGHT / math.sqrt(len(found)))
            if found:
                explained.add(concept.written)
    # Acronyms of phrases as written: words next to each other, no name among them.
    every = query.concepts
    acronyms: dict[str, list[Concept]] = {}
    for span in ACRONYM_SPANS:
        for i in range(len(every) - span + 1):
            phrase = list(every[i : i + span])
            if not all(c.written.isalpha() and not c.name for c in phrase):
                continue
            if not all(c.follows for c in phrase[1:]):
                continue
            initials = "".join(c.written[0].casefold() for c in phrase)
            acronyms.setdefault(initials, phrase)
    if acronyms:
        known = store.index_stats(workspace, sorted(acronyms)).df
        for initials, phrase in acronyms.items():
            if known.get(initials):
                out.setdefault(initials, EXPANSION_WEIGHT)
                explained.update(c.written for c in phrase)
    return out, explained


def _by_prefix(store: MemoryStore, workspace: str, word: str, term: str) -> list[str]:
    found: set[str] = set()
    for head in {word, term}:
        if len(head) >= 2 and head.isalnum():
            found.update(store.terms_with_prefix(workspace, head, PREFIX_CANDIDATES + 1))
    if not found and len(term) > MIN_PREFIX:
        # The other way round: the longest indexed term this one extends ("lazili" -> "lazi").
        shortest = max(MIN_PREFIX, math.ceil(PREFIX_SHARE * len(term)))
        heads = [term[:n] for n in range(len(term) - 1, shortest - 1, -1)]
        df = store.index_stats(workspace, heads).df
        found.update(next(([h] for h in heads if df.get(h)), []))
    found.discard(term)
    return sorted(found) if len(found) <= PREFIX_CANDIDATES else []


def _unseen(query: Query, held: set[str], explained: set[str]) -> tuple[int, int, int]:
    """What of the query no candidate holds, counted as (known technologies, other names,
    other words). ``held`` is every term of the candidates, which come from the memories this
    place can reach, so a word only other projects use counts as unseen here. Names written
    next to each other are one name (Raspberry Pi); a name a prefix or an acronym stood in for
    is no longer unknown."""
    tech: set[int] = set()
    names: set[int] = set()
    words = 0
    for i, concept in enumerate(query.topic):
        if _known(concept, held):
            continue
        run = concept.run if concept.run >= 0 else -1 - i
        if _technology(concept):
            tech.add(run)
        elif not concept.name:
            words += 1
        elif concept.written not in explained:
            names.add(run)
    return len(tech), len(names - tech), words


def _technology(concept: Concept) -> bool:
    """A technology kenning knows by name (kenning.graph's vocabulary: Kubernetes, Redis,
    webpack), written as one when the word is also an everyday one (Helm, not helm)."""
    term = vocabulary.load().lookup(concept.written)
    return term is not None and (concept.name or not term.ambiguous)


def _known(concept: Concept, held: set[str]) -> bool:
    """Whether ``held`` has the concept: one of its words as written, or one of its parts
    when a name splits into two or more (CatalogClient: catalog). A name with one part beside
    one-letter ones is not known by it: OAuth is not auth, mDNS not DNS."""
    if not concept.name:
        return any(t in held for t in concept.terms)
    if any(t in held for t in concept.plain):
        return True
    parts = concept.parts
    return len(parts) >= 2 and any(t in held for t in parts)


def _held(concept: Concept, hit: Hit) -> bool:
    return any(hit.freqs.get(t) for t in concept.terms)


@dataclass(frozen=True)
class Phrasing:
    """One phrasing looked up: its scored candidates, the best candidate's evidence, and
    what raises the bar that evidence must clear (names and other concepts no memory holds)."""

    scored: dict[str, _Scored]
    evidence: float
    unknown_tech: int
    unknown_names: int
    unknown_words: int

    @property
    def bar(self) -> float:
        return (
            EVIDENCE_BAR
            + TECH_PENALTY * self.unknown_tech
            + NAME_PENALTY * self.unknown_names
            + WORD_PENALTY * self.unknown_words
        )

    @property
    def answers(self) -> bool:
        return bool(self.scored) and self.evidence >= self.bar


def look_up(
    store: MemoryStore, flt: MemoryFilter, phrase: str, now: datetime, as_of: datetime | None, window: int
) -> Phrasing:
    """Score the candidates of one phrasing (all of them, whether or not it answers)."""
    query = parse(phrase)
    own = query.terms()
    if not own:
        return Phrasing({}, 0.0, 0, 0, 0)
    asking = [t for c in query.concepts if c.asking and c not in query.topic for t in c.terms if t not in own]
    index = store.index_stats(flt.workspace, [*own, *asking])
    df = dict(index.df)
    expansions, explained = _expansions(store, flt.workspace, query, df)
    expansions = {**dict.fromkeys(asking, ASKING_WEIGHT), **expansions}
    extra = {t: w for t, w in expansions.items() if t not in own}
    if extra:
        df.update(store.index_stats(flt.workspace, sorted(extra)).df)
        extra = {t: w for t, w in extra.items() if df.get(t, 0)}
    weights = {**{t: 1.0 for t in own if df.get(t, 0)}, **extra}
    # Evidence is about the topic: the words of asking only help order the candidates.
    topical = {t: w for t, w in weights.items() if t not in asking}
    if not weights:
        return Phrasing({}, 0.0, *_unseen(query, set(), explained))
    stats = ranking.Stats(index.docs, index.avgdl, df)
    hits = _eligible(store.search(flt, _searched(weights, df), limit=window), now, as_of)
    reachable: set[str] = set()
    for hit in hits:
        reachable.update(hit.freqs)
    tech, names, words = _unseen(query, reachable, explained)
    if not hits:
        return Phrasing({}, 0.0, tech, names, words)
    first = [(h, ranking.bm25(weights, h, stats)) for h in hits]
    top_terms = {t for h, _ in sorted(first, key=lambda s: (-s[1], s[0].memory.ref))[: ranking.FEEDBACK_DOCS]
                 for t in h.freqs}  # fmt: skip
    df.update(store.index_stats(flt.workspace, sorted(top_terms - df.keys())).df)
    feedback = ranking.feedback_terms(first, stats, weights)
    # Feedback reorders the candidates; it brings in none of its own. (Asking the store for
    # the feedback words too changed no top 10 on the recall-eval set and doubled the cost.)
    pool = {h.memory.ref: h for h in hits}
    everything = {**feedback, **weights}
    reference = as_of or now
    out: dict[str, _Scored] = {}
    for ref, hit in pool.items():
        memory = hit.memory
        age_days = max(0.0, (reference - max(memory.created_at, memory.confirmed_at)) / timedelta(days=1))
        recency = 1.0 + RECENCY_LIFT * math.exp(-age_days * math.log(2) / RECENCY_HALF_LIFE_DAYS)
        score = ranking.bm25(everything, hit, stats) * memory.confidence * recency
        held = sum(1 for c in query.topic if _held(c, hit))
        out[ref] = _Scored(hit, score, held / len(query.topic), ranking.evidence(topical, hit, stats))
    strongest = max(out.values(), key=lambda s: (s.evidence, s.score, s.hit.memory.ref))
    if query.why and strongest.hit.memory.kind is Kind.DECISION:
        # A why-question answered by a decision names its case ("the Hue bridge") of the rule
        # the decision states over many; a name no memory holds is then one more word.
        names, words = 0, words + names
    return Phrasing(out, strongest.evidence, tech, names, words)


def _searched(weights: dict[str, float], df: dict[str, int]) -> list[str]:
    """The terms the store is asked for: all of them, unless their postings together pass
    POSTINGS_BUDGET; then the commonest go first (they add least to any score) and still count
    in the score of every candidate. Only a large store gets here: in one of a few thousand
    memories no query reaches the budget."""
    rarest = sorted(weights, key=lambda t: (df.get(t, 0), t))
    kept: list[str] = []
    total = 0
    for term in rarest:
        total += df.get(term, 0)
        if kept and total > POSTINGS_BUDGET:
            break
        kept.append(term)
    return sorted(kept)


def _eligible(hits: list[Hit], now: datetime, as_of: datetime | None) -> list[Hit]:
    if as_of is not None:
        return [h for h in hits if believed_at(h.memory, as_of)]
    return [h for h in hits if in_recall_pool(h.memory, now)]


def recall(
    store: MemoryStore,
    place: Place,
    query: str,
    now: datetime,
    *,
    as_of: datetime | None = None,
    also: Sequence[str] = (),
    count: int = DEFAULT_COUNT,
    gate: Gate | None = None,
    record: bool = True,
) -> RecallResult:
    """Look memory up for ``query``. With ``record`` off nothing is written (no recall count,
    no citation state): for measuring recall without changing what it measures."""
    if not query.strip():
        raise Invalid(
            "query is empty", fix="describe the task in your own words, e.g. 'deploy the api to staging'"
        )
    if not 1 <= count <= MAX_COUNT:
        raise Invalid(f"count {count} is out of range", fix=f"ask for 1 to {MAX_COUNT} results")
    if len(also) > MAX_ALSO:
        raise Invalid(f"{len(also)} extra phrasings given", fix=f"give at most {MAX_ALSO} in also")
    statuses = tuple(Status) if as_of is not None else (Status.ACTIVE,)
    flt = MemoryFilter(place.workspace, place.reach, statuses=statuses)
    window = max(count * 4, WINDOW)
    merged: dict[str, _Scored] = {}
    bars = []
    for phrase in [query, *also]:
        found = look_up(store, flt, phrase, now, as_of, window)
        if not found.answers:
            continue
        bars.append(found.bar)
        for ref, s in found.scored.items():
            if ref not in merged or s.score > merged[ref].score:
                merged[ref] = s
    bar = min(bars, default=EVIDENCE_BAR)
    if gate is not None:
        allowed = {m.ref for m in gate([s.hit.memory for s in merged.values()])}
        merged = {ref: s for ref, s in merged.items() if ref in allowed}
    ranked = _order(list(merged.values()), why=parse(query).why, count=count)
    ranked = _cited_now(store, ranked, count, now, persist=record)
    hits = [
        RecallHit(
            memory=s.hit.memory,
            score=round(s.score, 6),
            coverage=round(s.coverage, 3),
            weak=s.evidence < bar,
            resting=is_resting(s.hit.memory, now),
            until=s.hit.memory.status_at
            if as_of is not None and s.hit.memory.status is not Status.ACTIVE
            else None,
            evidence=round(s.evidence, 3),
        )
        for s in ranked[:count]
    ]
    if as_of is None and record:
        store.mark_recalled(place.workspace, [h.memory.ref for h in hits])
    return RecallResult(query, hits, as_of)


def _cited_now(
    store: MemoryStore, ranked: list[_Scored], count: int, now: datetime, *, persist: bool
) -> list[_Scored]:
    """The first ``count`` results with their citations read now: a cited file that changed
    says so in this very answer, and one that is gone leaves it (the next result moves up)."""
    out: list[_Scored] = []
    start = 0
    while len(out) < count and start < len(ranked):
        batch = ranked[start : start + count - len(out)]
        start += len(batch)
        for s, memory in zip(
            batch, citations.read_now(store, [s.hit.memory for s in batch], now, persist=persist), strict=True
        ):
            if memory.citation is not Citation.GONE:
                out.append(replace(s, hit=replace(s.hit, memory=memory)))
    return out


def _order(scored: list[_Scored], *, why: bool, count: int) -> list[_Scored]:
    ranked = sorted(scored, key=lambda s: (-s.score, s.hit.memory.ref))
    # Near-tie on the same subject: the newer belief comes first.
    for i in range(len(ranked) - 1):
        a, b = ranked[i], ranked[i + 1]
        same_slot = a.hit.memory.subject and a.hit.memory.subject == b.hit.memory.subject
        if (
            same_slot
            and b.score >= a.score * (1 - NEAR_TIE)
            and b.hit.memory.created_at > a.hit.memory.created_at
        ):
            ranked[i], ranked[i + 1] = b, a
    if why:
        # Among the results given, decisions first; a stable sort keeps the score order
        # within each group. (Over every candidate it would bring up decisions that only
        # share a feedback word.)
        ranked[:count] = sorted(ranked[:count], key=lambda s: s.hit.memory.kind is not Kind.DECISION)
    return ranked
