"""Facts a session names, found by fixed patterns and the vocabularies (no model).

* ``<project> uses <tech>``: a known tool or technology named in a tech context ("using X",
  "X database", a backticked X, ...) or in two different turns. Words that are also everyday
  words (go, rust, swift, express, react) count only in a tech context and written as a name.
  Mentions after "instead of", "rather than", "not", "away from" or in a question do not count.
* ``<project> chose <tech>`` / ``rejected <tech>``: only what the user said ("let's use X",
  "we decided on X instead of Y"), or an assistant proposal the user then confirmed.
* ``<new> replaces <old>`` and the end of ``<project> uses <old>`` when the user moves from one
  to the other ("migrate from MySQL to Postgres").
* ``<person> works_on <project>``: people the user names (@handle, "pairing with Dana").

:func:`extract_session` runs it over one captured session; it is idempotent (the graph never
inserts a current fact twice, and the session's progress is remembered).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from kenning.clock import Clock, to_iso
from kenning.graph import facts
from kenning.graph.vocabulary import Term, Vocabulary, load
from kenning.store.sqlite.db import Database
from kenning.store.sqlite.graph_store import GraphStore

PROGRESS_KIND = "extract"


@dataclass(frozen=True)
class Candidate:
    predicate: str
    object: str  # display name (entity) or text
    object_type: str = ""
    confidence: float = 0.7
    evidence: str = ""
    at: str = ""
    turn: int = 0
    subject: str = ""  # "" = the session's project
    end: bool = False  # end the current fact instead of adding one


_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_BEFORE_CONTEXT = re.compile(
    r"(?:\busing|\buse|\buses|\bused|\bwith|\bin|\bon|\bvia|\bour|\binto|\bto|\binstall(?:ed)?|\bupgrade(?:d)?"
    r"|\bbuilt (?:with|on)|\bbacked by|\bwritten in|\bmigrat(?:e|ed|ing) to|\bswitch(?:ed|ing)? to|\bmov(?:e|ed) to"
    r"|\bdeploy(?:ed|s)? (?:to|on)|\brun(?:s|ning)?(?: on)?|\bran|\bchose|\bpicked|\bgo(?:ing)? with|\bwent with"
    r"|\bkeep|\bstick with|\badopt(?:ed)?|\bsuggest|\brecommend)\s+(?:(?:the|a|an|our|its|their|this)\s+)?$",
    re.IGNORECASE,
)
_AFTER_CONTEXT = re.compile(
    r"^\s*(?:\d[\w.]*|database|db|server|cluster|client|driver|app|project|code(?:base)?|module|config(?:uration)?"
    r"|version|instance|container|image|schema|migration|migrations|queue|cache|backend|frontend|service"
    r"|component|components|crate|package|library|lib|plugin|binary|runtime|workspace|tests?|stack|api|sdk"
    r"|query|queries|table|tables|index|bucket|function|handler|hook|hooks|router|pipeline|job|jobs|workflow)\b",
    re.IGNORECASE,
)
_NEGATIVE_BEFORE = re.compile(
    r"(?:instead of|rather than|not|no|never|without|away from|from|replace|replaced|replacing|drop|dropped|"
    r"remove|removed|deprecate|deprecated|ditch|ditched|avoid|against|want)\s+(?:the\s+|using\s+|to use\s+)?$",
    re.IGNORECASE,
)
_NAME = r"[\w.+#-]+(?: (?!(?:instead|rather|over|not|for|in|as|to|and|with|on|from|because|so)\b)[\w.+#-]+)?"
_MOVE = re.compile(
    r"\b(?:migrat(?:e|ed|ing)|switch(?:ed|ing)?|mov(?:e|ed|ing)|port(?:ed|ing)?)\s+(?:\w+\s+){0,3}?from\s+"
    rf"(?P<old>{_NAME})\s+to\s+(?P<new>{_NAME})"
    rf"|\breplac(?:e|ed|ing)\s+(?P<old2>{_NAME})\s+with\s+(?P<new2>{_NAME})",
    re.IGNORECASE,
)
_CHOICE = re.compile(
    r"\b(?:let'?s (?:use|go with|switch to|pick|stick with|keep)|(?:we|i)(?:'ve| have)? (?:decided (?:to use|on)|"
    r"chose|picked|settled on|went with|agreed on)|we(?:'ll| will) (?:use|go with|stick with|keep)|"
    rf"(?:we're|we are|i'm|i am) going (?:with|to use)|go with|use)\s+(?:the\s+)?`?(?P<obj>{_NAME})`?"
    rf"(?:,?\s+(?:instead of|rather than|over|not)\s+(?:the\s+)?`?(?P<alt>{_NAME})`?)?",
    re.IGNORECASE,
)
_PROPOSAL = re.compile(
    r"\b(?:i (?:suggest|recommend|propose)|i'?d (?:suggest|recommend|go with|use|pick)|i would (?:go with|use|pick)"
    r"|(?:shall|should) (?:i|we) (?:use|switch to|go with|add|move to)|how about|my recommendation is"
    r"|(?:i'll|i will|we'll|we will|i'm going to) (?:use|go with|switch to|pick|adopt))\b",
    re.IGNORECASE,
)
CONFIRM = re.compile(
    r"^\s*(?:yes|yep|yeah|yup|sure|ok(?:ay)?|sounds good|go ahead|do it|agreed|lgtm|perfect|great|please do|"
    r"let'?s do (?:it|that)|that works|approved|ship it|go for it|makes sense)\b",
    re.IGNORECASE,
)
_DOUBT = re.compile(r"\b(?:but|no|not|don'?t|instead|rather|wait|hold on)\b", re.IGNORECASE)
_LIST_GAP = re.compile(r"^\s*(?:,|and|or|, and|, or)\s*$")
# A sentence that decides something: its rejected names ("not Pulumi") become "rejected".
_DECIDING = re.compile(r"\b(?:decided|let'?s|we'll|we will|go with|use|switch|migrat\w*|move|keep|stick with)\b",
                       re.IGNORECASE)
_PERSON = re.compile(
    r"(?:(?<![\w@.])@(?P<handle>[A-Za-z][\w-]{1,38})\b"
    r"|\b(?i:pair(?:ing|ed)? with|work(?:ing|ed)? with|sync(?:ed)? with|review(?:ed)? by|approved by|"
    r"ask(?:ed)?|cc|ping(?:ed)?|talk(?:ed)? to|check(?:ed)? with|my name is|according to)\s+"
    r"(?P<name>[A-Z][a-z]{2,}(?: [A-Z][a-z]{2,})?)\b)"
)
_NOT_PEOPLE_WORDS = """
the this that these those claude codex gemini copilot cursor ci it them him her you me us we they
monday tuesday wednesday thursday friday saturday sunday today tomorrow everyone team someone github
main master readme docs api todo fixme yes no okay ok sorry thanks please here there what why how when
"""
_NOT_PEOPLE = frozenset(_NOT_PEOPLE_WORDS.split())


@lru_cache(maxsize=1)
def _term_pattern() -> re.Pattern[str]:
    spellings = sorted(load().terms, key=len, reverse=True)
    alternatives = "|".join(re.escape(s) for s in spellings)
    return re.compile(rf"(?<![\w.+#/-])(?P<t>{alternatives})(?![\w+#]|[.-]\w)", re.IGNORECASE)


def prose(text: str) -> str:
    return _FENCE.sub(" ", text)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(prose(text)) if s and s.strip()]


@dataclass(frozen=True)
class Mention:
    term: Term
    contextual: bool
    negative: bool
    question: bool


def mentions(sentence: str, vocab: Vocabulary | None = None) -> list[Mention]:
    """Known technologies in one sentence, each with its context."""
    vocab = vocab or load()
    found: list[Mention] = []
    question = sentence.rstrip().endswith("?")
    last_end, last_ctx = -1, False
    for m in _term_pattern().finditer(sentence):
        word = m.group("t")
        term = vocab.lookup(word)
        if term is None:
            continue
        before, after = sentence[: m.start()], sentence[m.end():]
        ticked = before.endswith("`") and after.startswith("`")
        contextual = ticked or bool(_BEFORE_CONTEXT.search(before[-40:])) or bool(_AFTER_CONTEXT.match(after))
        # "runs ruff, mypy and pytest": a list carries the context of its first item.
        if last_ctx and _LIST_GAP.match(sentence[last_end: m.start()]):
            contextual = True
        if term.ambiguous:
            # "go with", "react to", "swift reply": an everyday word unless written as a name in context.
            written_as_name = word != word.lower() or word == term.name or ticked
            if not (contextual and written_as_name) or (term.id == "go" and after.lower().startswith(" with")):
                continue
        negative = bool(_NEGATIVE_BEFORE.search(before[-30:]))
        found.append(Mention(term, contextual, negative, question))
        last_end, last_ctx = m.end(), contextual and not negative
    return found


def _term_of(name: str, vocab: Vocabulary) -> Term | None:
    term = vocab.lookup(name)
    if term is None and " " in name:
        term = vocab.lookup(name.split(" ")[0])
    return term


def extract_turns(turns: list[dict[str, Any]]) -> list[Candidate]:
    """Candidates from a session's turns (``role``, ``text``, ``at``, ``id``), in order."""
    vocab = load()
    out: list[Candidate] = []
    positive: dict[str, list[tuple[int, bool, str, str]]] = defaultdict(list)  # term id -> (turn, ctx, at, ev)
    ended: dict[str, str] = {}  # term id -> when the user moved away from it
    rejected: dict[str, int] = {}  # term id -> turn index where the user turned it down
    talk = [t for t in turns if t.get("role") in ("user", "assistant") and (t.get("text") or "").strip()]
    for index, turn in enumerate(talk):
        role, at, tid = turn["role"], turn.get("at", ""), int(turn.get("id", index))
        following = talk[index + 1] if index + 1 < len(talk) else None
        confirmed = (role == "assistant" and following is not None and following["role"] == "user"
                     and bool(CONFIRM.match(following["text"])) and not _DOUBT.search(following["text"][:60]))
        for sentence in sentences(turn["text"]):
            speaks_for_user = role == "user" or (confirmed and bool(_PROPOSAL.search(sentence)))
            for mention in mentions(sentence, vocab):
                if mention.question:
                    continue
                if mention.negative:
                    if speaks_for_user and _DECIDING.search(sentence):
                        out.append(Candidate("rejected", mention.term.name, mention.term.type, 0.75, sentence, at,
                                             tid))
                        rejected[mention.term.id] = index
                    continue
                if mention.term.id in rejected and role != "user":
                    continue  # the assistant naming what the user turned down does not bring it back
                rejected.pop(mention.term.id, None)
                positive[mention.term.id].append((tid, mention.contextual, at, sentence))
            if not speaks_for_user or sentence.rstrip().endswith("?") and role == "user":
                continue
            conf = 0.8 if role == "user" else 0.75
            for move in _MOVE.finditer(sentence):
                old = _term_of(move.group("old") or move.group("old2") or "", vocab)
                new = _term_of(move.group("new") or move.group("new2") or "", vocab)
                if old and new and old.id != new.id:
                    out.append(Candidate("uses", new.name, new.type, conf, sentence, at, tid))
                    out.append(Candidate("replaces", old.name, old.type, conf, sentence, at, tid, subject=new.name))
                    out.append(Candidate("uses", old.name, old.type, conf, sentence, at, tid, end=True))
                    ended[old.id] = at
            for choice in _CHOICE.finditer(sentence):
                chosen = _term_of(choice.group("obj"), vocab)
                if chosen is None:
                    continue
                out.append(Candidate("chose", chosen.name, chosen.type, conf, sentence, at, tid))
                alt = _term_of(choice.group("alt") or "", vocab)
                if alt and alt.id != chosen.id:
                    out.append(Candidate("rejected", alt.name, alt.type, conf, sentence, at, tid))
            if role == "user":
                for person in _PERSON.finditer(sentence):
                    name = person.group("handle") or person.group("name") or ""
                    first = name.split(" ")[0].lower()
                    if first in _NOT_PEOPLE or vocab.lookup(name) or vocab.lookup(first):
                        continue
                    out.append(Candidate("works_on", ("@" if person.group("handle") else "") + name, "person",
                                         0.6, sentence, at, tid, subject="@person"))
    chosen_ids = {load().canonical(c.object) for c in out if c.predicate == "chose"}
    for term_id, seen in positive.items():
        if term_id in rejected:
            seen = [x for x in seen if x[0] > talk[rejected[term_id]].get("id", rejected[term_id])]
            if not seen:
                continue
        contextual = [s for s in seen if s[1]]
        distinct_turns = {s[0] for s in seen}
        if not contextual and len(distinct_turns) < 2 and term_id not in chosen_ids:
            continue
        first = (contextual or seen)[0]
        if term_id in ended and first[2] <= ended[term_id]:
            later = [s for s in seen if s[2] > ended[term_id]]
            if not later:
                continue  # only named before the user moved away from it
            first = later[0]
        term = next(t for t in vocab.terms.values() if t.id == term_id)
        conf = min(0.9, 0.5 + 0.1 * min(len(distinct_turns), 3) + (0.1 if contextual else 0.0))
        out.append(Candidate("uses", term.name, term.type, round(conf, 2), first[3], first[2], first[0]))
    unique: dict[tuple[str, str, str, bool], Candidate] = {}
    for c in out:
        unique.setdefault((c.subject, c.predicate, vocab.canonical(c.object), c.end), c)
    return list(unique.values())


def extract_session(db: Database, session_id: str, clock: Clock) -> list[facts.AddResult]:
    """Add the facts one captured session names; safe to call again after every sync
    (nothing is added twice). Returns the facts that were new."""
    store = GraphStore(db)
    session = db.one("SELECT * FROM capture_sessions WHERE id = ?", (session_id,))
    if session is None or not session["project"]:
        return []
    last = db.one("SELECT max(id) AS m FROM capture_turns WHERE session = ?", (session_id,))
    newest = int(last["m"] or 0) if last else 0
    if newest == 0 or newest <= store.progress(session_id, PROGRESS_KIND):
        return []
    rows = db.query("SELECT id, role, text, at FROM capture_turns WHERE session = ? AND subagent = ''"
                    " ORDER BY at, id", (session_id,))
    turns = [dict(r) for r in rows]
    added = apply(db, clock, session["workspace"], session["project"], session["project_name"], session_id,
                  extract_turns(turns), default_at=session["first_at"])
    store.set_progress(session_id, PROGRESS_KIND, newest, to_iso(clock.now()))
    return added


def apply(db: Database, clock: Clock, workspace: str, project: str, project_name: str, session_id: str,
          candidates: list[Candidate], *, default_at: str = "", origin: str = "extracted") -> list[facts.AddResult]:
    results: list[facts.AddResult] = []
    for c in candidates:
        when = c.at or default_at or None
        if c.end:
            for f in facts.query(db, workspace, project, predicate=c.predicate, direction="out"):
                if f.current and f.object == load().canonical(c.object) and f.valid_from < (when or "~"):
                    facts.end(db, clock, workspace, f.id, when)
            continue
        if c.subject == "@person":
            subject, obj, kind = c.object, project, "entity"
            subject_type, object_type, name = "person", "project", ""
        elif c.subject:
            subject, obj, kind, subject_type, object_type, name = c.subject, c.object, "entity", c.object_type, \
                c.object_type, ""
        else:
            subject, obj, kind, subject_type, object_type, name = project, c.object, "entity", "project", \
                c.object_type, project_name
        result = facts.add(db, clock, workspace, subject, c.predicate, obj, project=project, object_kind=kind,
                           valid_from=when, confidence=c.confidence, origin=origin, session=session_id,
                           evidence=c.evidence, subject_type=subject_type, object_type=object_type,
                           subject_name=name if subject == project else "")
        if result.added:
            results.append(result)
    return results


def extract_pending(db: Database, workspace: str, clock: Clock, limit: int = 500) -> int:
    """Extract from every captured session with turns not yet looked at; returns facts added."""
    rows = db.query(
        "SELECT s.id FROM capture_sessions s WHERE s.workspace = ? AND s.project != '' AND"
        " (SELECT max(id) FROM capture_turns t WHERE t.session = s.id) >"
        " coalesce((SELECT last_turn FROM graph_progress p WHERE p.session = s.id AND p.kind = ?), 0)"
        " ORDER BY s.last_at LIMIT ?", (workspace, PROGRESS_KIND, limit))
    return sum(len(extract_session(db, r["id"], clock)) for r in rows)
