"""The technology vocabularies (``vocab/*.json``): names, aliases, type and ambiguity.

Kept as data so a missing tool is one line in a JSON file, not a code change.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

FILES = ("languages", "frameworks", "databases", "services", "tools")


@dataclass(frozen=True)
class Term:
    id: str  # canonical entity id
    name: str  # display name
    type: str  # language | framework | database | service | tool
    ambiguous: bool  # an everyday word too (go, rust, swift, express): needs a tech context


def entity_id(name: str) -> str:
    """Normalise a name to an entity id without losing what tells names apart.

    Lower case, Unicode NFKC, whitespace folded to one space, surrounding quotes and
    sentence punctuation dropped; symbols inside or at the end (``c++``, ``c#``, ``next.js``)
    are kept, so ``c++`` and ``c#`` stay two entities.
    """
    text = unicodedata.normalize("NFKC", name).strip().lower()
    text = re.sub(r"\s+", " ", text)
    text = text.strip("\"'`“”‘’()[]{}<>,;:!?")
    text = text.rstrip(".") if not text.endswith("..") else text
    return text


@dataclass(frozen=True)
class Vocabulary:
    terms: dict[str, Term]  # every spelling (lower case) -> term

    def lookup(self, word: str) -> Term | None:
        return self.terms.get(entity_id(word))

    def canonical(self, name: str) -> str:
        """The entity id of a name, with known aliases folded (postgresql -> postgres)."""
        key = entity_id(name)
        term = self.terms.get(key)
        return term.id if term else key


@lru_cache(maxsize=1)
def load() -> Vocabulary:
    terms: dict[str, Term] = {}
    base = resources.files("kenning.graph") / "vocab"
    for stem in FILES:
        data = json.loads((base / f"{stem}.json").read_text(encoding="utf-8"))
        for entry in data["entries"]:
            term = Term(entity_id(entry["name"]), entry["name"], data["type"], bool(entry.get("ambiguous")))
            for spelling in [entry["name"], *entry.get("aliases", [])]:
                terms.setdefault(entity_id(spelling), term)
    return Vocabulary(terms)
