"""What counts as decided in a session: only what the user said or confirmed.

A user sentence decides when it carries a decision marker ("we decided", "let's", "we'll use",
"from now on", "replace X with Y") or is an imperative choice ("Use presigned URLs", "Keep the
TTL at five minutes"). An assistant sentence decides only when the user's next message confirms
it ("yes", "sounds good") without doubt ("but", "instead", "no"), and only if it proposes
something ("I suggest", "Shall I use", "I'll store ..."). "Let me check X" never decides.
Questions, exploration ("let's see", "we should check") and hypotheticals never decide.
"""

from __future__ import annotations

import re
from typing import Any

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")

CONFIRM = re.compile(
    r"^\s*(?:yes|yep|yeah|yup|sure|ok(?:ay)?|sounds good|go ahead|do it|agreed|lgtm|perfect|great|please do|"
    r"let'?s do (?:it|that)|that works|approved|ship it|go for it|makes sense|right)\b",
    re.IGNORECASE,
)
DOUBT = re.compile(r"\b(?:but|no|not|don'?t|instead|rather|wait|hold on)\b", re.IGNORECASE)
PROPOSAL = re.compile(
    r"\b(?:i (?:suggest|recommend|propose)|i'?d (?:suggest|recommend|go with|use|pick)|i would (?:go with|use|pick)"
    r"|(?:shall|should) (?:i|we) (?:use|switch(?: to)?|go with|add|move to)|how about|my recommendation is"
    r"|(?:i'll|i will|we'll|we will|i'm going to) (?:use|go with|switch to|pick|adopt))\b",
    re.IGNORECASE,
)
# A confirmed "I'll <verb> ..." is a plan the user agreed to, unless the verb only looks around.
_PLAN = re.compile(
    r"^(?:i'll|i will|i'm going to|we'll|we will)\s+(?!(?:run|check|look|read|try|see|investigate|test|verify|"
    r"start|continue|debug|search|find|open|fetch|wait|review|inspect|explore)\b)\w+",
    re.IGNORECASE,
)
DECISION = re.compile(
    r"\b(?:we(?:'ve| have)? (?:decided|agreed|settled on|chose|picked|went with)|i(?:'ve| have)? decided"
    r"|decided (?:to|on|against)|let'?s (?:not )?\w+|we should\b"
    r"|we(?:'ll| will) (?:use|go with|stick with|keep|drop|ship|pin)|(?:we're|we are) going (?:to|with)"
    r"|(?:we're|we are|i'm|i am) (?:moving|migrating|switching)\b|replace \S+(?: \S+)? with"
    r"|from now on|going forward|go with|i want (?:us |you )?to use"
    r"|the decision (?:is|was)|decision:|use \S+(?: \S+)? (?:instead of|rather than|over)\b)",
    re.IGNORECASE,
)
# "Use Pydantic models for ...", "Agreed, stay with REST": an imperative choice. Preferences
# ("always use", "never use") are left to the classifier's preference type.
IMPERATIVE = re.compile(
    r"^(?:(?:please|then|so|ok(?:ay)?|yes|agreed|fine|good|right)[,.]?\s+(?:and\s+)?)*"
    r"(?:use|adopt|switch to|migrate to|move to|stick with|stay with|keep using|keep|pin|disable|enable)\s+",
    re.IGNORECASE)
# Tentative or exploratory lines that look like decisions but decide nothing.
NOT_DECISION = re.compile(
    r"\b(?:(?:let'?s|we should|we'll|i'll) (?:first )?(?:see|check|look|try|run|debug|figure|find|start|continue|test|"
    r"verify|investigate|think|wait|ask|find out)"
    r"|if we (?:decide|go with)|whether (?:to|we)|did we decide|have we decided|what did we decide)\b",
    re.IGNORECASE,
)
CORRECTION_START = re.compile(
    r"^\s*(?:no\b(?![-\s]*(?:problem|worries|thanks|rush|need|hurry))|nope\b|wrong\b|incorrect\b|not quite\b"
    r"|not right\b|that'?s (?:wrong|not (?:it|what|right))|don'?t\b|do not\b|stop\b|undo\b|revert\b|actually,"
    r"|instead,|why did you\b|you didn'?t\b|you forgot\b|you missed\b|you broke\b|wait,)",
    re.IGNORECASE,
)
CORRECTION_ANY = re.compile(
    r"\b(?:that'?s not what i (?:asked|meant|wanted|said)|you misunderstood|you misread|you ignored my"
    r"|you shouldn'?t have|i (?:said|asked for|told you)\b.{0,60}\bnot\b)",
    re.IGNORECASE,
)


# "Yes, that sounds right": agreement that states nothing of its own.
_ONLY_AGREES = re.compile(r"^(?:that|this|it|sounds|looks|good|fine|great|thanks|thank you|please)\b", re.IGNORECASE)


def prose(text: str) -> str:
    return _FENCE.sub(" ", text)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(prose(text)) if s and s.strip()]


def talk_of(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [t for t in turns if t.get("role") in ("user", "assistant") and (t.get("text") or "").strip()]


def confirms(reply: dict[str, Any] | None) -> bool:
    return (reply is not None and reply["role"] == "user" and bool(CONFIRM.match(reply["text"]))
            and not DOUBT.search(reply["text"][:60]))


def corrects(text: str) -> bool:
    return bool(CORRECTION_START.match(text) or CORRECTION_ANY.search(text))


def user_decides(sentence: str, previous: dict[str, Any] | None = None) -> bool:
    if sentence.endswith("?") or NOT_DECISION.search(sentence):
        return False
    if DECISION.search(sentence) or IMPERATIVE.match(sentence):
        return True
    # "Agreed, monorepo with pnpm workspaces": a confirmation that states what was agreed.
    head = CONFIRM.match(sentence)
    if not head:
        return False  # before looking at the previous turn: that search is the costly part
    asked = previous is not None and previous["role"] == "assistant" and (
        "?" in previous["text"] or bool(PROPOSAL.search(previous["text"])))
    rest = sentence[head.end():].lstrip(" ,.!")
    return bool(asked and len(rest.split()) >= 3 and not DOUBT.search(rest) and not _ONLY_AGREES.match(rest))


def decision_sentences(turns: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str, float]]:
    """(turn the decision is dated by, sentence, confidence) for each decision the user made
    or confirmed, in session order."""
    talk = talk_of(turns)
    found: list[tuple[dict[str, Any], str, float]] = []
    for index, turn in enumerate(talk):
        previous = talk[index - 1] if index else None
        if turn["role"] == "user":
            found.extend((turn, s, 0.85) for s in sentences(turn["text"]) if user_decides(s, previous))
            continue
        reply = talk[index + 1] if index + 1 < len(talk) else None
        if not confirms(reply):
            continue
        assert reply is not None
        found.extend((reply, s.rstrip("?") + ("." if s.endswith("?") else ""), 0.75) for s in sentences(turn["text"])
                     if PROPOSAL.search(s) or _PLAN.match(s) or (DECISION.search(s) and not NOT_DECISION.search(s)))
    return found
