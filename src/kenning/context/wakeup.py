"""The wake-up bundle: what stays true across sessions, for the start of a new one.

1. an identity line (``identity.txt`` in the data folder, when it exists);
2. the graph's current decisions for this project, newest first;
3. the top classified chunks (decision, preference, milestone at importance 4-5), at most 2
   per session, newest first, each shown by its evidence sentence;
4. the other current facts, newest first.

No summary step: every line carries its chunk (``c:``) or fact (``f:``) id, so a wrong line can
be traced and fixed. The project is matched by its exact key, never by folder name. When the
bundle would pass the size limit, the lowest section loses its oldest lines first, so old
facts never push out the newest decisions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from kenning.capture.classify import classify
from kenning.config import Settings
from kenning.core.scopes import Place
from kenning.core.service import Core
from kenning.domain.lifecycle import withheld
from kenning.graph.decide import sentences
from kenning.model import Status
from kenning.quoting import as_data, neutral
from kenning.store.protocol import CaptureStore, FactRow, MemoryStore, Stores

LIMIT = 1990  # characters, whole bundle; must stay under 2,000
CHUNK_TYPES = ("decision", "preference", "milestone")
MAX_CHUNKS = 8
PER_SESSION = 2
MAX_DECISIONS = 10
MAX_FACTS = 15
LINE = 160
DECISION_PREDICATES = ("decided", "chose")
# Extracted facts below this confidence stay out; what a person recorded is always in.
MIN_CONFIDENCE = 0.7


@dataclass
class Bundle:
    header: str
    identity: str = ""
    decisions: list[str] = field(default_factory=list)
    chunks: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)

    def sections(self) -> list[tuple[str, list[str]]]:
        return [("Decisions", self.decisions), ("From past sessions", self.chunks), ("Facts", self.facts)]

    def render(self) -> str:
        parts = [self.header]
        if self.identity:
            parts.append(f"Identity: {self.identity}")
        for title, lines in self.sections():
            if lines:
                parts.append(f"{title}:")
                parts += [f"- {x}" for x in lines]
        return "\n".join(parts)

    def fit(self, limit: int = LIMIT) -> Bundle:
        """Drop the oldest lines of the lowest sections until the text fits."""
        for lines in (self.facts, self.chunks, self.decisions):
            while lines and len(self.render()) > limit:
                lines.pop()
        if len(self.render()) > limit:
            self.identity = self.identity[: max(0, len(self.identity) - (len(self.render()) - limit))]
        return self


def _clip(text: str, limit: int = LINE) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def evidence(body: str, kind: str) -> str:
    """The sentence that carries the chunk's class, rather than the chunk's first words."""
    best, score = "", -1
    for s in sentences(body):
        c = classify(s)
        if c.type == kind and c.importance > score:
            best, score = s, c.importance
    return _clip(best or (sentences(body) or [body])[0])


def identity_line(settings: Settings | None) -> str:
    if settings is None:
        return ""
    path: Path = settings.identity_file
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
    first = next((x.strip() for x in text.splitlines() if x.strip()), "")
    return _clip(neutral(first), 200)  # the person's own file: neutral, not quoted


def chunk_lines(store: CaptureStore, place: Place, limit: int = MAX_CHUNKS) -> list[str]:
    chunks = store.important_chunks(place.workspace, place.project, CHUNK_TYPES, min_importance=4, limit=300)
    per_session: dict[str, int] = {}
    seen: set[str] = set()
    out: list[str] = []
    for c in chunks:
        if per_session.get(c.session, 0) >= PER_SESSION:
            continue
        sentence = evidence(c.body, c.type)
        key = re.sub(r"\W+", " ", sentence.lower())[:80]
        if key in seen:
            continue
        seen.add(key)
        per_session[c.session] = per_session.get(c.session, 0) + 1
        # A past session's sentence is data: quoted, never an instruction to this one.
        out.append(f"[c:{c.id}] {c.type}: {as_data(sentence)} · {neutral(c.tool)} {c.at[:10]}")
        if len(out) >= limit:
            break
    return out


def fact_line(f: FactRow) -> str:
    area = f" ({neutral(f.area)})" if f.area else ""
    # Facts come from transcripts and agents: the object is quoted as data, names made neutral.
    obj = as_data(_clip(f.object_name, 130)) if f.object_kind == "text" else neutral(_clip(f.object_name, 130))
    subject = "" if f.subject == f.project else f"{neutral(f.subject_name)} "
    return f"[f:{f.id}] {subject}{neutral(f.predicate)}{area}: {obj} · {f.valid_from[:10]}"


def _given_out(memories: MemoryStore, facts: list[FactRow]) -> list[FactRow]:
    """Facts that repeat a memory follow that memory: a hidden, held or retired memory's words
    never reach a session through the graph either."""
    kept = []
    for f in facts:
        memory = memories.get(f.workspace, f.memory_ref) if f.memory_ref else None
        if memory is not None and (withheld(memory) or memory.status is Status.RETIRED):
            continue
        kept.append(f)
    return kept


def build(stores: Stores, settings: Settings | None, place: Place) -> Bundle:
    store = stores.graph
    title = place.name or place.project
    bundle = Bundle(f"kenning wake-up for {neutral(title)}" + (f" (branch {neutral(place.branch)})" if place.branch else ""),
                    identity_line(settings))
    decided = store.current_facts(place.workspace, place.project, predicates=DECISION_PREDICATES,
                                  limit=MAX_DECISIONS * 3)
    bundle.decisions = [fact_line(f) for f in _given_out(stores.memories, decided)
                        if f.origin != "extracted" or f.confidence >= MIN_CONFIDENCE][:MAX_DECISIONS]
    bundle.chunks = chunk_lines(stores.capture, place)
    others = store.current_facts(place.workspace, place.project, exclude=DECISION_PREDICATES, limit=MAX_FACTS * 3)
    bundle.facts = [fact_line(f) for f in _given_out(stores.memories, others)
                    if f.origin != "extracted" or f.confidence >= MIN_CONFIDENCE][:MAX_FACTS]
    return bundle.fit()


def bundle(core: Core, place: Place) -> str:
    """The bundle as text (what the SessionStart hook and ``kenning wake-up`` print)."""
    return build(core.stores, core.settings, place).render()
