"""What a captured session did, read from its transcript with fixed rules (no model): the
person's corrections and repeated asks, the agent's recall calls, edits and reverted work, and
the memory refs the agent cited. The memory report compares the holdout with these.

The rules, exactly:

- **correction**: a prompt of the person after the first that opens by correcting the agent
  ("no, …", "wrong", "that's not what I asked", "undo", "revert …", "don't …", "you forgot …":
  :func:`kenning.graph.decide.corrects`, the rule session end uses for graph facts), or that
  says they had said it already or undid the agent's work ("I said …", "I told you …", "I
  asked for …", "as I said", "I reverted your …", "put it back", "roll it back").
- **repeated ask**: a prompt whose content words (stemmed, stop words out; at least 3) overlap
  an earlier prompt of the same session by at least :data:`REPEAT_OVERLAP` (Jaccard): the
  person had to ask again.
- **recall call**: a call of kenning's ``recall`` (any MCP spelling) or a ``kenning recall``
  shell command.
- **edit**: a call of an editing tool (Edit, Write, MultiEdit, NotebookEdit, apply_patch,
  write_file, replace, edit_file).
- **reverted work**: a shell command of the agent that throws working-tree changes away:
  ``git checkout -- …`` / ``git checkout <ref> -- …``, ``git restore`` (not only ``--staged``),
  ``git reset --hard``, ``git revert``, ``git stash drop`` / ``git stash clear``.
- **citation**: a ref (``m:`` + 8 hex) in the agent's own prose or in a tool call's input
  (``remember(used=[…])`` included), never in a tool's result (recall's answer lists every ref
  it returned) or in the person's words.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kenning.clock import from_iso
from kenning.graph.decide import corrects
from kenning.refscan import refs_in
from kenning.store.protocol import StoredTurn
from kenning.text import jaccard, term_set
from kenning.toolnames import call_kind

REPEAT_OVERLAP = 0.6
MIN_WORDS = 3
MIN_PROMPT = 8  # shorter prompts ("yes", "go on") are neither corrections nor asks

SAID_BEFORE = re.compile(
    r"^\s*(?:i (?:said|told you|asked (?:you )?(?:for|to))\b|as i said\b|like i said\b|i already (?:said|told|asked)\b"
    r"|put it back\b|roll (?:it|that|this) back\b|please (?:revert|undo)\b)"
    r"|\bi (?:reverted|undid|rolled back) (?:your|the|that|this|it)\b",
    re.IGNORECASE,
)
REVERT_COMMAND = re.compile(r"\bgit\s+(?:checkout\s+(?:\S+\s+)?--\s+\S|reset\s+--hard\b|revert\b|stash\s+(?:drop|clear)\b)")
RESTORE = re.compile(r"\bgit\s+restore\b([^;&|]*)")


@dataclass(frozen=True)
class Call:
    name: str
    kind: str  # shell | read | edit | recall | index | "" (kenning.toolnames)
    input: str
    refs: tuple[str, ...]


@dataclass(frozen=True)
class Turn:
    index: int
    role: str  # user | assistant | tool | summary
    text: str
    at: datetime | None
    calls: tuple[Call, ...]
    files: tuple[str, ...]


def _at(value: str) -> datetime | None:
    try:
        return from_iso(value) if value else None
    except ValueError:
        return None


def _calls(raw: str) -> tuple[Call, ...]:
    try:
        data = json.loads(raw or "[]")
    except ValueError:
        return ()
    return _call_list(data if isinstance(data, list) else [])


def _call_list(data: Iterable[object]) -> tuple[Call, ...]:
    out: list[Call] = []
    for call in data:
        if isinstance(call, Mapping):
            name, text = str(call.get("name", "")), str(call.get("input", call.get("summary", "")))
            refs = tuple(dict.fromkeys([*str(call.get("refs", "")).split(), *refs_in(text)]))
            out.append(Call(name, call_kind(name), text, refs))
    return tuple(out)


def turns_of(rows: list[dict[str, Any]]) -> list[Turn]:
    """Turns as rows of the transcript's columns (``tool_calls`` and ``files`` as JSON text), in order."""
    out: list[Turn] = []
    for i, row in enumerate(rows):
        try:
            files = json.loads(row.get("files") or "[]")
        except ValueError:
            files = []
        out.append(Turn(i, str(row["role"]), str(row["text"] or ""), _at(str(row.get("at") or "")),
                        _calls(str(row.get("tool_calls") or "[]")), tuple(str(f) for f in files if isinstance(f, str))))  # fmt: skip
    return out


def stored_turns(turns: Sequence[StoredTurn]) -> list[Turn]:
    """A captured session's turns (``CaptureStore.turns``) as the report reads them, in order."""
    return [Turn(i, t.role, str(t.text), _at(t.at), _call_list(t.tool_calls), t.files) for i, t in enumerate(turns)]


def is_correction(text: str) -> bool:
    text = text.strip()
    return len(text) >= MIN_PROMPT and (corrects(text) or SAID_BEFORE.search(text) is not None)


def is_recall(call: Call) -> bool:
    if call.kind == "recall":
        return True
    return call.kind == "shell" and "kenning" in call.input and "recall" in call.input and _kenning_recall(call.input)


def _kenning_recall(command: str) -> bool:
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    return any(w.rsplit("/", 1)[-1] == "kenning" and nxt == "recall" for w, nxt in zip(words, words[1:], strict=False))


def reverts(call: Call) -> bool:
    if call.kind != "shell":
        return False
    if REVERT_COMMAND.search(call.input):
        return True
    restore = RESTORE.search(call.input)
    if restore is None:
        return False
    args = restore.group(1).split()
    # `git restore --staged` only unstages: the work stays in the working tree.
    return not (("--staged" in args or "-S" in args) and not ("--worktree" in args or "-W" in args))


@dataclass(frozen=True)
class Signals:
    corrections: int
    repeated_asks: int
    recall_calls: int
    edits: int
    reverted: int
    prompts: int
    tool_calls: int

    @property
    def worked(self) -> bool:
        """A work session: the agent made at least one tool call."""
        return self.tool_calls > 0


def signals(turns: list[Turn]) -> Signals:
    prompts = [t for t in turns if t.role == "user" and len(t.text.strip()) >= MIN_PROMPT]
    corrections = sum(1 for t in prompts[1:] if is_correction(t.text))
    seen: list[frozenset[str]] = []
    repeated = 0
    for t in prompts:
        words = term_set(t.text)
        if len(words) >= MIN_WORDS and any(jaccard(words, before) >= REPEAT_OVERLAP for before in seen):
            repeated += 1
        if len(words) >= MIN_WORDS:
            seen.append(words)
    calls = [c for t in turns if t.role != "user" for c in t.calls]
    return Signals(
        corrections=corrections, repeated_asks=repeated, recall_calls=sum(1 for c in calls if is_recall(c)),
        edits=sum(1 for c in calls if c.kind == "edit"), reverted=sum(1 for c in calls if reverts(c)),
        prompts=len(prompts), tool_calls=len(calls),
    )  # fmt: skip


def citations(turns: list[Turn]) -> list[tuple[Turn, str]]:
    """Every ref the agent cited, with the turn it is in (its prose or a call's input)."""
    out: list[tuple[Turn, str]] = []
    for t in turns:
        if t.role != "assistant":
            continue
        refs = refs_in(t.text) if "m:" in t.text else []
        for call in t.calls:
            refs += call.refs
        out.extend((t, ref) for ref in dict.fromkeys(refs))
    return out
