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

from kenning.clock import Clock, from_iso, to_iso
from kenning.graph import facts
from kenning.graph.decide import corrects, decision_sentences, sentences, talk_of
from kenning.graph.vocabulary import Term, Vocabulary, load
from kenning.store.protocol import GraphStore, Stores

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
    r"(?:instead of|rather than|not|no|never|without|away from|replace|replaced|replacing|drop|dropped|"
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
# In a decision, what is picked: the object of a choice verb ("switch the docs to X", "keep X").
_CHOICE_BEFORE = re.compile(
    r"\b(?:use|using|switch(?:ed|ing)?(?: \w+){0,3} to|mov(?:e|ed|ing)(?: \w+){0,3} to|migrat\w*(?: \w+){0,3} to"
    r"|go(?:ing)? with|went with|chose|choose|pick(?:ed)?|adopt(?:ed)?|keep|stick with|stay with|recommend"
    r"|suggest|propose|decided on|settled? on)\s+(?:(?:the|a|an|our)\s+(?:[\w-]+\s+)?)?`?$",
    re.IGNORECASE,
)
_LOOKS_LIKE_NAME = re.compile(r"^(?:[A-Z][\w.+#-]*|`[^`]+`|[\w-]*\d[\w.-]*)")
_LIST_GAP = re.compile(r"^\s*(?:,|and|or|, and|, or)\s*$")
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


def _trie(spellings: list[str]) -> str:
    """The spellings as one regex factored by common prefixes ("post(?:gres(?:ql)?)"). A flat
    alternation of ~300 words is tried word by word at every position of every sentence (it
    was most of capture's time); the trie tries one branch per character. Longer branches come
    before the end of a shorter spelling, so the longest spelling still wins, as before."""
    root: dict[str, Any] = {}
    for spelling in spellings:
        node = root
        for ch in spelling:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        alts = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        if "" not in node:
            return body
        return f"(?:{body})?" if len(alts) == 1 else body + "?"

    return emit(root)


@lru_cache(maxsize=1)
def _term_pattern() -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.+#/-])(?P<t>{_trie(list(load().terms))})(?![\w+#]|[.-]\w)", re.IGNORECASE)


_RUN = re.compile(r"\w+")


@lru_cache(maxsize=1)
def _leading_runs() -> frozenset[str]:
    """The first word (\\w run) of every spelling: a match always starts a text word equal to one
    (the lookbehind and lookahead end the word where the spelling's first word ends)."""
    return frozenset(m.group(0) for s in load().terms if (m := _RUN.match(s)))


def _leading_hits(text: str) -> frozenset[str] | None:
    """The words of ``text`` that start a spelling, or None when that cannot be told cheaply:
    re's IGNORECASE also folds a few non-ASCII letters (U+017F, U+212A), so only ASCII is tested."""
    if not text.isascii():
        return None
    return _leading_runs().intersection(_RUN.findall(text.lower()))


def _may_mention(sentence: str, hits: frozenset[str] | None = None) -> bool:
    """A cheap exact pre-test: most sentences hold no word that starts a spelling. ``hits``
    (from :func:`_leading_hits` of the whole turn) narrows the words to look for."""
    if hits is None:
        hits = _leading_hits(sentence)
        return hits is None or bool(hits)
    if not hits:
        return False
    low = sentence.lower()
    return any(h in low for h in hits)


@dataclass(frozen=True)
class Mention:
    term: Term
    contextual: bool
    negative: bool
    question: bool
    chosen: bool = False  # the object of a choice verb


def mentions(sentence: str, vocab: Vocabulary | None = None) -> list[Mention]:
    """Known technologies in one sentence, each with its context."""
    return _scan(sentence, vocab or load()) if _may_mention(sentence) else []


def _scan(sentence: str, vocab: Vocabulary) -> list[Mention]:
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
        negative = bool(_NEGATIVE_BEFORE.search(before[-30:]))
        chosen = not negative and bool(_CHOICE_BEFORE.search(before[-60:]))
        contextual = (ticked or chosen or bool(_BEFORE_CONTEXT.search(before[-40:]))
                      or bool(_AFTER_CONTEXT.match(after)))
        # "runs ruff, mypy and pytest": a list carries the context of its first item.
        if last_ctx and _LIST_GAP.match(sentence[last_end: m.start()]):
            contextual = True
        if term.ambiguous:
            # "go with", "react to", "swift reply": an everyday word unless written as a name in context.
            written_as_name = word != word.lower() or word == term.name or ticked
            if not (contextual and written_as_name) or (term.id == "go" and after.lower().startswith(" with")):
                continue
        found.append(Mention(term, contextual, negative, question, chosen))
        last_end, last_ctx = m.end(), contextual and not negative
    return found


def _term_of(name: str, vocab: Vocabulary) -> Term | None:
    term = vocab.lookup(name)
    if term is None and " " in name:
        term = vocab.lookup(name.split(" ")[0])
    return term


def _move(sentence: str, vocab: Vocabulary, conf: float, at: str, tid: int) -> tuple[list[Candidate], str]:
    """"migrate from X to Y" / "replace X with Y": Y replaces X and the project stops using X."""
    out: list[Candidate] = []
    gone = ""
    for move in _MOVE.finditer(sentence):
        old_name = move.group("old") or move.group("old2") or ""
        new_name = move.group("new") or move.group("new2") or ""
        old, new = _term_of(old_name, vocab), _term_of(new_name, vocab)
        # The new one may be outside the vocabularies; it still names what replaced the old.
        new_label = new.name if new else (new_name.split(" ")[0] if _LOOKS_LIKE_NAME.match(new_name) else "")
        if old is None or not new_label or (new is not None and new.id == old.id):
            continue
        if new is not None:
            out.append(Candidate("uses", new.name, new.type, conf, sentence, at, tid))
        out.append(Candidate("replaces", old.name, old.type, conf, sentence, at, tid, subject=new_label))
        out.append(Candidate("uses", old.name, old.type, conf, sentence, at, tid, end=True))
        gone = old.id
    return out, gone


def extract_turns(turns: list[dict[str, Any]]) -> list[Candidate]:
    """Candidates from a session's turns (``role``, ``text``, ``at``, ``id``), in order."""
    vocab = load()
    out: list[Candidate] = []
    positive: dict[str, list[tuple[int, bool, str, str]]] = defaultdict(list)  # term id -> (turn, ctx, at, ev)
    ended: dict[str, str] = {}  # term id -> when the user moved away from it
    rejected: dict[str, int] = {}  # term id -> turn id where the user turned it down
    chosen: set[str] = set()
    for turn, sentence, conf in decision_sentences(turns):
        at, tid = turn.get("at", ""), int(turn.get("id", 0))
        moved, gone = _move(sentence, vocab, conf, at, tid)
        out += moved
        if gone:
            ended[gone] = at
        for mention in mentions(sentence, vocab):
            if mention.term.id == gone or mention.question:
                continue
            if mention.negative:
                out.append(Candidate("rejected", mention.term.name, mention.term.type, 0.75, sentence, at, tid))
                rejected[mention.term.id] = tid
            elif mention.chosen and not any(c.subject == mention.term.name for c in moved):
                out.append(Candidate("chose", mention.term.name, mention.term.type, conf, sentence, at, tid))
                chosen.add(mention.term.id)
    talk = talk_of(turns)
    for index, turn in enumerate(talk):
        role, at, tid = turn["role"], turn.get("at", ""), int(turn.get("id", index))
        following = talk[index + 1] if index + 1 < len(talk) else None
        if role == "assistant" and following is not None and following["role"] == "user" \
                and corrects(following["text"]):
            continue  # what the user corrected right away is no evidence
        # The turn's words are looked at once; each sentence then only looks for those.
        hits = _leading_hits(turn["text"])
        for sentence in sentences(turn["text"]):
            if role == "user":
                moved, gone = _move(sentence, vocab, 0.8, at, tid)
                out += moved
                if gone:
                    ended.setdefault(gone, at)
            for mention in _scan(sentence, vocab) if _may_mention(sentence, hits) else ():
                term_id = mention.term.id
                if mention.question:
                    continue
                if mention.negative:
                    if role == "user":
                        rejected.setdefault(term_id, tid)
                    continue
                if (term_id in rejected or term_id in ended) and role != "user":
                    continue  # the assistant naming what the user turned down does not bring it back
                positive[term_id].append((tid, mention.contextual, at, sentence))
            if role == "user":
                for person in _PERSON.finditer(sentence):
                    name = person.group("handle") or person.group("name") or ""
                    first = name.split(" ")[0].lower()
                    if first in _NOT_PEOPLE or vocab.lookup(name) or vocab.lookup(first):
                        continue
                    out.append(Candidate("works_on", ("@" if person.group("handle") else "") + name, "person",
                                         0.6, sentence, at, tid, subject="@person"))
    for term_id, seen in positive.items():
        if term_id in rejected:
            seen = [x for x in seen if x[0] > rejected[term_id]]
        if term_id in ended:
            seen = [x for x in seen if x[2] > ended[term_id]]
        if not seen:
            continue
        contextual = [x for x in seen if x[1]]
        distinct_turns = {x[0] for x in seen}
        if not contextual and len(distinct_turns) < 2 and term_id not in chosen:
            continue
        first = (contextual or seen)[0]
        term = next(t for t in vocab.terms.values() if t.id == term_id)
        conf = min(0.9, 0.5 + 0.1 * min(len(distinct_turns), 3) + (0.1 if contextual else 0.0))
        out.append(Candidate("uses", term.name, term.type, round(conf, 2), first[3], first[2], first[0]))
    unique: dict[tuple[str, str, str, bool], Candidate] = {}
    for c in out:
        unique.setdefault((c.subject, c.predicate, vocab.canonical(c.object), c.end), c)
    return list(unique.values())


def extract_session(stores: Stores, workspace: str, session_id: str, clock: Clock) -> list[facts.AddResult]:
    """Add the facts one captured session names; safe to call again after every sync
    (nothing is added twice). Returns the facts that were new."""
    session = stores.capture.session(workspace, session_id)
    if session is None or not session.project:
        return []
    last = stores.capture.last_turn(workspace, session_id)
    newest = last.id if last else 0
    if newest == 0 or newest <= stores.graph.progress(workspace, session_id, PROGRESS_KIND):
        return []
    # Only talk is read (tool output is most of a session's text and extraction skips it).
    turns: list[dict[str, Any]] = [{"id": t.id, "role": t.role, "text": t.text, "at": t.at}
                                   for t in stores.capture.turns(workspace, session_id, talk_only=True)]  # fmt: skip
    added = apply(stores.graph, clock, workspace, session.project, session.project_name, session_id,
                  extract_turns(turns), default_at=session.first_at)
    stores.graph.set_progress(workspace, session_id, PROGRESS_KIND, newest, to_iso(clock.now()))
    return added


def _valid_time(text: str) -> str:
    """A transcript's own time when it reads as ISO, else '' (a malformed time must not cost
    the session its facts: the fact then starts when it was extracted)."""
    if not text:
        return ""
    try:
        return to_iso(from_iso(text))
    except ValueError:
        return ""


def apply(store: GraphStore, clock: Clock, workspace: str, project: str, project_name: str, session_id: str,
          candidates: list[Candidate], *, default_at: str = "", origin: str = "extracted") -> list[facts.AddResult]:
    results: list[facts.AddResult] = []
    for c in candidates:
        when = _valid_time(c.at) or _valid_time(default_at) or None
        if c.end:
            for f in facts.query(store, workspace, project, predicate=c.predicate, direction="out"):
                if f.current and f.object == load().canonical(c.object) and f.valid_from < (when or "~"):
                    facts.end(store, clock, workspace, f.id, when)
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
        result = facts.add(store, clock, workspace, subject, c.predicate, obj, project=project, object_kind=kind,
                           valid_from=when, confidence=c.confidence, origin=origin, session=session_id,
                           evidence=c.evidence, subject_type=subject_type, object_type=object_type,
                           subject_name=name if subject == project else "")
        if result.added:
            results.append(result)
    return results


def extract_pending(stores: Stores, workspace: str, clock: Clock, limit: int = 500) -> int:
    """Extract from every captured session with turns not yet looked at; returns facts added."""
    done = stores.graph.progress_of(workspace, PROGRESS_KIND)
    pending = [h.session for h in stores.capture.session_heads(workspace)
               if h.newest_turn > done.get(h.session, 0)][:limit]  # fmt: skip
    return sum(len(extract_session(stores, workspace, sid, clock)) for sid in pending)
