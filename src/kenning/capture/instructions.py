"""Read the rules out of the instruction files people write for their agents (CLAUDE.md,
AGENTS.md, GEMINI.md): one rule per bullet, or per short paragraph, with its line numbers and
the heading it sits under.

An instruction file is a list of rules a person wants every session to follow ("Run the linter
before committing", "Never edit generated files"), so each bullet is one memory: it can be
recalled, cited, retired on its own. What is not a rule is left out: headings (they become the
rule's tag), code blocks, tables, HTML comments, Claude's ``@file`` imports, paragraphs longer
than a memory sentence, and any text kenning itself writes into a session (a brief, a card, a
wake-up bundle, quoted widget data, memory refs) so memory is never fed back into itself.

Hand-written rather than a Markdown library: a full CommonMark parse would give a tree we would
walk only for list items and paragraphs; these files are short and line-oriented.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_RULE = 400  # characters; a longer paragraph is prose, not one rule
MIN_WORDS = 3
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")
_TASK_BOX = re.compile(r"^\[[ xX]\]\s+")
# What kenning hands a session; never a rule someone wrote.
_KENNING_TEXT = re.compile(
    r"^kenning (·|task #|wake-up for)|\bm:[0-9a-f]{8}\b|Data saved by a widget \(not an instruction\)"
    r"|call `?recall`? with (the|your) task",
    re.IGNORECASE,
)
# Claude's import of another file (`@AGENTS.md`, `@~/.claude/mine.md`): the file is read itself.
_IMPORT = re.compile(r"(?:^|\s)@[~./\w-]*\w\.\w+")
_KENNING_BLOCK_START = re.compile(r"<!--\s*kenning\b(?!:end)", re.IGNORECASE)
_KENNING_BLOCK_END = re.compile(r"<!--\s*(/kenning|kenning:end)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Rule:
    text: str
    first_line: int  # 1-based
    last_line: int
    section: str  # the nearest heading above it ("" at the top)


def _clean(text: str) -> str:
    text = _LINK.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\2", text)
    text = _TASK_BOX.sub("", text.strip())
    return " ".join(text.split()).strip()


def _keep(text: str) -> bool:
    return (len(text.split()) >= MIN_WORDS and len(text) <= MAX_RULE and not text.endswith(":")
            and not _KENNING_TEXT.search(text) and not _IMPORT.search(text))  # fmt: skip


def _front_matter_end(lines: list[str]) -> int:
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                return i + 1
    return 0


def rules_of(text: str) -> list[Rule]:
    """The rules of one instruction file, in file order."""
    lines = text.splitlines()
    out: list[Rule] = []
    section = ""
    pending: list[str] = []  # the current item or paragraph
    start = 0
    skip = _front_matter_end(lines)

    def flush(end: int) -> None:
        nonlocal pending
        body = _clean(" ".join(pending))
        if pending and _keep(body):
            out.append(Rule(body, start + 1, end, section))
        pending = []

    fenced = in_comment = in_kenning = False
    for i, raw in enumerate(lines):
        line = raw.rstrip()
        if i < skip:
            continue
        if in_kenning:
            in_kenning = not _KENNING_BLOCK_END.search(line)
            continue
        if _KENNING_BLOCK_START.search(line):
            flush(i)
            in_kenning = not _KENNING_BLOCK_END.search(line)
            continue
        if _FENCE.match(line):
            flush(i)
            fenced = not fenced
            continue
        if fenced:
            continue
        if in_comment or line.lstrip().startswith("<!--"):
            flush(i)
            in_comment = "-->" not in line
            continue
        heading = _HEADING.match(line)
        item = _ITEM.match(line)
        if heading:
            flush(i)
            section = _clean(heading.group(2))
        elif not line.strip() or line.lstrip().startswith(("|", "@", ">")):
            flush(i)
        elif item:
            flush(i)
            pending, start = [item.group(2)], i
        elif pending and (raw.startswith((" ", "\t")) or not _ITEM.match(lines[start])):
            pending.append(line.strip())  # a continuation of the item, or more of the paragraph
        else:
            flush(i)
            pending, start = [line.strip()], i
    flush(len(lines))
    return out


def tag_of(section: str) -> str:
    """A heading as a tag: lower case words joined by hyphens, at most 40 characters."""
    words = re.findall(r"[a-z0-9]+", section.casefold())
    return "-".join(words)[:40].strip("-")
