"""The shape rules a memory must pass before it is written, each refusal with its fix.

These are fixed text patterns, no model: they catch what goes stale first (transient
notes, git snapshots, measurements) and decisions that lost their reason.
"""

from __future__ import annotations

import re
from typing import Any

from kenning.domain.matching import glob_matches  # one definition; re-exported for callers here
from kenning.errors import Invalid, Refused
from kenning.model import Kind, Trigger, TriggerTool
from kenning.text import words

# Narration of the moment: stale by the next session whatever the sentence is about.
NARRATION_RE = re.compile(
    r"\b(currently|right now|at the moment|as we speak"
    r"|i'?m (now )?(editing|working on|looking at|fixing|running|debugging|checking)"
    r"|i am (now )?(editing|working on|looking at|fixing|running|debugging|checking)"
    r"|just (ran|edited|opened|started|finished)|about to)\b",
    re.IGNORECASE,
)
# Status words: transient when they give the state of the work the sentence is about ("the
# refactor is in progress", "WIP: billing"), not when a rule mentions them as a label
# ("never put [WIP] in a PR title", "move the issue to In progress").
STATUS_RE = re.compile(r"\b(a )?(work in progress|in progress|wip)\b", re.IGNORECASE)
# Quoted, bracketed or code spans name a thing; they say nothing of the work's state.
_MENTION_RE = re.compile(r"`[^`]*`|\[[^\]]*\]|\"[^\"]*\"|“[^”]*”|«[^»]*»|(?<!\w)'[^']*'(?!\w)")
_PREDICATE_RE = re.compile(r"\b(is|are|was|were|'s|stays?|remains?)( still| now| currently)?\s*$", re.IGNORECASE)
_GENERIC_RE = re.compile(r"\b(that|which|who|while|when|whenever|if|until|unless|whether|once)\b[^.;:!?]*$",
                         re.IGNORECASE)  # fmt: skip
_CLAUSE_START_RE = re.compile(r"(^|[.;!?\n]\s*)(still\s+)?$", re.IGNORECASE)


def is_transient(text: str) -> bool:
    """Does the text narrate the moment or give the state of its own work?"""
    if NARRATION_RE.search(text):
        return True
    plain = _MENTION_RE.sub(" ", text)
    for match in STATUS_RE.finditer(plain):
        word = match.group(2)
        before = plain[: match.start()]
        at_start = bool(_CLAUSE_START_RE.search(before))
        if not at_start and (word[0].isupper() or word.isupper()):
            continue  # a label as written ("In progress", "WIP") inside a sentence
        if at_start and re.match(r"\s*(:|-|–|on\b|for\b)", plain[match.end() :]):
            return True  # "WIP: billing", "Work in progress on the login form"
        if _PREDICATE_RE.search(before) and not _GENERIC_RE.search(before):
            return True  # "the refactor is in progress" (not "PRs that are in progress")
    return False


SNAPSHOT_RE = re.compile(
    r"\b(\d+ commits? (ahead|behind)|(ahead|behind) (of )?(origin|main|master|upstream)"
    r"|\d+ (files?|changes?) (uncommitted|changed|modified|staged|unstaged)|uncommitted (changes|files|work)"
    r"|working tree( is)? clean|head is (now )?at|up to date with ['\"]?origin|nothing to commit)\b",
    re.IGNORECASE,
)
NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:[.,:]\d+)*%?(?![\w])")
REASON_RE = re.compile(
    r"\b(because|so that|so we|so it|so the|rather than|instead of|since|to avoid|in order to|due to"
    r"|never|the owner wants|as it|otherwise|which means|given that)\b",
    re.IGNORECASE,
)
DECISION_RE = re.compile(
    r"\b(we decided|decided to|decided on|decided against|we chose|chose to|we picked|went with|going with"
    r"|settled on|we use \S+ (because|rather|instead)|we will use|we'll use|opted for|standardi[sz]ed on)\b",
    re.IGNORECASE,
)
PREFERENCE_RE = re.compile(
    r"\b(i prefer|we prefer|prefers?|preferred|always use|never use|please (always|never|use|don't)"
    r"|don'?t ever|my (rule|style|convention|preference)|i like|i want)\b",
    re.IGNORECASE,
)
LESSON_RE = re.compile(
    r"\b(when you|before (running|you)|after (running|you)|lesson|next time|remember to)\b", re.IGNORECASE
)
SUBJECT_PART_RE = re.compile(r"^[A-Za-z0-9_/\-]+$")
DATE_RE = re.compile(r"(19|20)\d{2}[-_/]?\d{2}[-_/]?\d{2}")

# Commands and paths a trigger is tried against: one that fires on all of them fires on everything.
_PROBE_COMMANDS = [
    "ls",
    "git status",
    "npm test",
    "pytest -q",
    "cat README.md",
    "make build",
    "echo hi",
    "cd src",
]
_PROBE_PATHS = [
    "README.md",
    "src/app/main.py",
    "docs/guide.md",
    "package.json",
    "tests/test_x.py",
    "a/b/c/d.txt",
]


def count_numbers(text: str) -> int:
    return len(NUMBER_RE.findall(text))


def has_reason(text: str) -> bool:
    return bool(REASON_RE.search(text))


def infer_kind(text: str, trigger: Trigger | None, subject: str) -> Kind:
    if trigger is not None:
        return Kind.LESSON
    if DECISION_RE.search(text):
        return Kind.DECISION
    if PREFERENCE_RE.search(text):
        return Kind.PREFERENCE
    if subject and subject.endswith(".state"):
        return Kind.STATE
    if LESSON_RE.search(text):
        return Kind.LESSON
    return Kind.FACT


def valid_subject(subject: str) -> bool:
    """A slot key: two or more dot-joined parts, no spaces, no date."""
    if not subject or any(ch.isspace() for ch in subject) or DATE_RE.search(subject):
        return False
    parts = subject.split(".")
    return len(parts) >= 2 and all(part and SUBJECT_PART_RE.match(part) for part in parts)


def check_shape(text: str, *, kind: Kind, reason: str, by_person: bool) -> None:
    """Raise :class:`Refused` when the text breaks a write rule."""
    if is_transient(text):
        raise Refused(
            "this reads as transient (what is happening now), which is stale by the next session",
            fix="state the durable fact or decision instead, or log progress on the branch rather than in memory",
        )
    if kind is Kind.DECISION and not (reason.strip() or has_reason(text)):
        raise Refused(
            "a decision must carry its reason",
            fix='pass reason="…", or say why in the sentence ("because …", "so that …", "rather than …")',
        )
    if by_person:
        return
    if SNAPSHOT_RE.search(text):
        raise Refused(
            "this is a git snapshot (ahead/behind, uncommitted files), which git itself already knows",
            fix="do not store repository state; store what a future agent should do differently",
        )
    if count_numbers(text) >= 3:
        raise Refused(
            "the text holds three or more numbers; measurements go stale first",
            fix="keep the claim in the text and move the numbers into reason",
        )


def parse_trigger(value: str | dict[str, str] | Trigger | None) -> Trigger | None:
    """Accept ``shell:<regex>``, ``read:<glob>``, ``edit:<glob>`` or {tool, match|path}."""
    if value is None or value == "":
        return None
    if isinstance(value, Trigger):
        trig = value
    elif isinstance(value, dict):
        tool = str(value.get("tool", ""))
        pattern = str(value.get("match") or value.get("path") or value.get("pattern") or "")
        trig = _make_trigger(tool, pattern)
    else:
        tool, sep, pattern = value.partition(":")
        if not sep:
            raise Invalid(
                f"trigger {value!r} names no tool",
                fix='write "shell:<regex>", "read:<glob>" or "edit:<glob>", e.g. "shell:^npm publish"',
            )
        trig = _make_trigger(tool, pattern)
    check_trigger(trig)
    return trig


def _make_trigger(tool: str, pattern: str) -> Trigger:
    try:
        trigger_tool = TriggerTool(tool.strip().lower())
    except ValueError as exc:
        raise Invalid(f"trigger tool {tool!r} is unknown", fix="use shell, read or edit") from exc
    if not pattern.strip():
        raise Invalid("the trigger has no pattern", fix="give a shell regex or a file glob after the tool")
    return Trigger(trigger_tool, pattern.strip())


MAX_PATTERN = 300


def check_trigger(trigger: Trigger) -> None:
    """Refuse a trigger that would fire on every call, hold a secret, or take more than linear
    time to match; each refusal says how to write it instead."""
    if len(trigger.pattern) > MAX_PATTERN:
        raise Invalid(f"the trigger is {len(trigger.pattern)} characters long",
                      fix=f"keep it under {MAX_PATTERN}: the command or file it is about, e.g. ^npm publish")  # fmt: skip
    from kenning.redacted import redacted

    if redacted(trigger.pattern) != trigger.pattern:
        raise Refused("the trigger holds a secret (a key, a token or a password)",
                      fix="match the command without its secret, e.g. ^curl .*api.example.com")  # fmt: skip
    if trigger.tool is TriggerTool.SHELL:
        check_shell_pattern(trigger.pattern)
    elif all(glob_matches(trigger.pattern, p) for p in _PROBE_PATHS):
        raise Refused(
            f"trigger {trigger.pattern!r} matches every file",
            fix="narrow the glob to the files the lesson is about, e.g. packages/db/**",
        )


def check_shell_pattern(pattern: str) -> None:
    """A ``shell:`` trigger must be a regular expression RE2 runs (the hooks match with it, in
    linear time), must not nest repeats or repeat alternatives that overlap (the shapes that
    make a backtracking engine take exponential time: a lesson may be read by any engine, and
    a pattern like that is a mistake anyway), and must not match every command."""
    try:
        parsed = _parse(pattern)
    except re.error as exc:
        raise Invalid(f"shell trigger {pattern!r} is not a regular expression: {exc}",
                      fix="fix the regex, e.g. ^git push") from exc  # fmt: skip
    danger = _catastrophic(list(parsed), repeated=False)  # type: ignore[call-overload]
    if danger:
        raise Refused(
            f"shell trigger {pattern!r} {danger}, which can take exponential time to match",
            fix="write each repeat once, e.g. (a+)+$ as a+$, or (\\w|\\d)+ as \\w+; a trigger only needs "
                "to name the command, e.g. ^git push .*--force",
        )  # fmt: skip
    from kenning.domain.matching import compile_shell

    try:
        compiled: Any = compile_shell(pattern)
    except ValueError as exc:
        raise Invalid(
            f"shell trigger {pattern!r} uses what linear-time matching does not support "
            "(a look-ahead, a look-behind or a back-reference)",
            fix="name the command and its words instead, e.g. ^git push (?:-f|--force)",
        ) from exc
    if compiled.search("") or all(compiled.search(cmd) for cmd in _PROBE_COMMANDS):
        raise Refused(
            f"trigger {pattern!r} matches every command",
            fix="anchor it to the command the lesson is about, e.g. ^npm publish",
        )


def _parse(pattern: str) -> object:
    from re import _parser  # type: ignore[attr-defined]  # the standard library's own parser

    return _parser.parse(pattern)


Token = tuple[object, object]


def _repeats(op: object, av: object) -> bool:
    """Whether a token is a repeat that can match more than once."""
    if str(op) not in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        return False
    return bool(av[1] > 1)  # type: ignore[index]


def _first(items: list[Token]) -> set[str] | None:
    """The characters a sequence can start with, when that is plain to see (else None)."""
    if not items:
        return None
    op, av = items[0]
    name = str(op)
    if name == "LITERAL":
        return {chr(av)}  # type: ignore[arg-type]
    if name == "SUBPATTERN":
        return _first(list(av[3]))  # type: ignore[index]
    if name == "IN" and all(str(o) == "LITERAL" for o, _ in av):  # type: ignore[attr-defined]
        return {chr(v) for _, v in av}  # type: ignore[attr-defined]
    return None


def _overlapping_branches(body: list[Token]) -> bool:
    """Whether a repeated body is (or wraps) alternatives that can start alike."""
    for op, av in body:
        group = list(av[3]) if str(op) == "SUBPATTERN" else [(op, av)]  # type: ignore[index]
        for g_op, g_av in group:
            if str(g_op) != "BRANCH":
                continue
            seen: set[str] = set()
            for branch in g_av[1]:  # type: ignore[index]
                first = _first(list(branch))
                if first is None or first & seen:
                    return True
                seen |= first
    return False


def _catastrophic(items: list[Token], *, repeated: bool) -> str:
    """Why this parsed pattern can backtrack exponentially ("" when it cannot)."""
    for op, av in items:
        name = str(op)
        found = ""
        if _repeats(op, av):
            body = list(av[2])  # type: ignore[index]
            if repeated:
                return "nests one repeat inside another"
            if _overlapping_branches(body):
                return "repeats alternatives that can match the same text"
            found = _catastrophic(body, repeated=True)
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            found = _catastrophic(list(av[2]), repeated=repeated)  # type: ignore[index]
        elif name == "SUBPATTERN":
            found = _catastrophic(list(av[3]), repeated=repeated)  # type: ignore[index]
        elif name == "BRANCH":
            found = next((w for b in av[1] if (w := _catastrophic(list(b), repeated=repeated))), "")  # type: ignore[index]
        elif name in ("ASSERT", "ASSERT_NOT"):
            found = _catastrophic(list(av[1]), repeated=repeated)  # type: ignore[index]
        if found:
            return found
    return ""


NEGATIONS = frozenset(
    {
        "not",
        "no",
        "never",
        "don't",
        "dont",
        "doesn't",
        "isn't",
        "avoid",
        "stop",
        "without",
        "nor",
        "cannot",
        "can't",
        "won't",
    }
)


def polarity(text: str) -> bool:
    """True when the sentence is negated: the cheap signal for a contradiction."""
    lowered = text.casefold().replace("’", "'")
    return any(w in NEGATIONS for w in re.findall(r"[a-z']+", lowered)) or any(
        w in NEGATIONS for w in words(text)
    )
