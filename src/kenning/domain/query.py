"""What a recall query asks about: its concepts (one per word or identifier as written), the
words of asking that say nothing of the topic, and which concepts are written like names.

Pure text work, no store: :mod:`kenning.core.recall` looks the concepts up in the index.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from kenning.text import STOP_WORDS, memory_terms, stem, words

# Words an agent uses to ask for work, whatever the work is ("add a sensor", "please fix
# the flaky test", "we need to implement ..."). They name no topic, and the project's own
# memories use them too ("adds", "new"), so a match on them is noise. Compared after
# stemming, so "updating" and "updates" go with "update". A query made only of them keeps them.
TASK_WORDS = frozenset(
    {
        "add", "implement", "make", "please", "need", "want", "fix", "change", "write", "create",
        "update", "use", "using", "let", "like", "new", "help", "try", "able", "going", "thing",
        "things", "something", "way", "ok", "okay", "hey", "thanks",
    }
)  # fmt: skip
_TASK_STEMS = frozenset(stem(w) for w in TASK_WORDS)
WHY_RE = re.compile(
    r"^\s*why\b|\bwhy (do|did|does|is|are|was|were|not|we|don'?t|can'?t|must|should)\b|\breason\b",
    re.IGNORECASE,
)
# A word or a joined identifier as written: es.use-ilm, configuration.yaml, PARALLEL_UPDATES.
_CHUNK_RE = re.compile(r"[^\W_]+(?:[._\-/:]*[^\W_]+)*", re.UNICODE)
_SENTENCE_END_RE = re.compile(r"[.!?;:\n]\s*$")


@dataclass(frozen=True)
class Concept:
    """One word or identifier of the query and the stemmed terms it stands for."""

    written: str
    terms: tuple[str, ...]
    # Written like a name: a capital inside a sentence (Kubernetes, OAuth, JVM) or letters
    # with digits (k8s). A store that has never seen a name cannot be about it.
    name: bool
    asking: bool  # only words of asking (TASK_WORDS)
    # The terms of the word(s) as written ("oauth" of OAuth, "configur" and "yaml" of
    # configuration.yaml); the others are what splitting a name adds (its parts, its whole).
    plain: tuple[str, ...] = ()
    # Names written next to each other are one name (Raspberry Pi, Jetpack Compose): the
    # index of the first concept of the run, -1 for a concept that is no name.
    run: int = -1
    # Written right after the concept before it, with only spaces or a hyphen between: a
    # phrase ("pull request"), not words a stop word or a comma apart.
    follows: bool = False

    @property
    def parts(self) -> tuple[str, ...]:
        return tuple(t for t in self.terms if t not in self.plain)


@dataclass(frozen=True)
class Query:
    text: str
    concepts: tuple[Concept, ...]
    why: bool

    @property
    def topic(self) -> tuple[Concept, ...]:
        """The concepts that say what the query is about: all but the words of asking,
        unless there is nothing else."""
        topic = tuple(c for c in self.concepts if not c.asking)
        return topic or self.concepts

    def terms(self) -> list[str]:
        """The topic's stemmed terms, each once, in query order."""
        seen: dict[str, None] = {}
        for concept in self.topic:
            seen.update(dict.fromkeys(concept.terms))
        return list(seen)


def parse(text: str) -> Query:
    """Split a query into concepts; stop words make none."""
    folded = unicodedata.normalize("NFKC", text)
    concepts: list[Concept] = []
    last_end = -1
    for match in _CHUNK_RE.finditer(folded):
        written = match.group(0)
        terms = tuple(dict.fromkeys(memory_terms(written)))
        if not terms:
            continue
        starts_sentence = not folded[: match.start()].strip() or bool(
            _SENTENCE_END_RE.search(folded[: match.start()])
        )
        letters = [c for c in written if c.isalpha()]
        name = bool(letters) and (
            (not starts_sentence and any(c.isupper() or c.isdigit() for c in written))
            or any(c.isupper() for c in written[1:])
        )
        asking = all(t in _TASK_STEMS for t in terms)
        plain = tuple(dict.fromkeys(stem(w) for w in words(written) if w not in STOP_WORDS))
        follows = bool(concepts) and not folded[last_end : match.start()].strip(" -")
        run = -1
        if name:
            joined = concepts and concepts[-1].name and not folded[last_end : match.start()].strip()
            run = concepts[-1].run if joined else len(concepts)
        concepts.append(Concept(written, terms, name, asking, plain, run, follows))
        last_end = match.end()
    return Query(text, tuple(concepts), bool(WHY_RE.search(text)))
