"""What sessions asked `recall` and which memories they then cited, read from the captured
transcripts: the user's own recall history, for `kenning eval --history`.

A recall is a tool call named like kenning's MCP tool (``mcp__kenning__recall``,
``mcp_kenning_recall``; the hooks recognise the same names) whose input was the query, or a
shell command ``kenning recall "…"``. What the session cited after it, until its next recall:
memory refs (``m:`` + 8 hex) in its later prose and tool-call inputs, and the uses it
recorded (``remember(used=[…])``, kept in the memory store with the session id). The recall's
own answer (a tool result, which lists every ref it returned) is not a citation.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kenning.clock import to_iso
from kenning.store.protocol import CaptureStore, StoredTurn, UseRow

REF_RE = re.compile(r"\bm:([0-9a-f]{8})\b")


@dataclass(frozen=True)
class RecallCall:
    session: str  # captured session id (claude:…)
    project: str  # the session's project key
    at: str  # ISO time of the turn that made the call ("" when the transcript had none)
    query: str
    cited: tuple[str, ...]  # refs cited after the call, in order of first citation


def is_recall_tool(name: str) -> bool:
    lowered = name.lower()
    return lowered.startswith("mcp_") and (lowered.endswith("kenning__recall") or lowered.endswith("_kenning_recall"))


def shell_recall_query(command: str) -> str:
    """The query of a ``kenning recall "…"`` shell command ("" for any other command)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return ""
    for i in range(len(words) - 1):
        if words[i].rsplit("/", 1)[-1] == "kenning" and words[i + 1] == "recall":
            rest = iter(words[i + 2 :])
            for word in rest:
                if word in _VALUED:
                    next(rest, None)
                elif not word.startswith("-"):
                    return word
            return ""
    return ""


# Options of `kenning recall` (and the group) that take a value.
_VALUED = frozenset({"-n", "--count", "--as-of", "--also", "--cwd", "--project", "--home", "--now"})


def _calls_of(tool_calls: Sequence[Mapping[str, str]]) -> list[tuple[str, str]]:
    return [(str(call.get("name", "")), str(call.get("input", call.get("summary", "")))) for call in tool_calls]


def _queries(tool_calls: Sequence[Mapping[str, str]]) -> list[str]:
    found = []
    for name, summary in _calls_of(tool_calls):
        if is_recall_tool(name) and summary.strip():
            found.append(summary.strip())
        elif "kenning" in summary and "recall" in summary:
            query = shell_recall_query(summary)
            if query.strip():
                found.append(query.strip())
    return found


def _cited_in(turn: StoredTurn) -> list[str]:
    if turn.role == "tool":
        return []  # a tool result: the recall's own answer lists every ref it returned
    text = turn.text + " " + " ".join(s for _, s in _calls_of(turn.tool_calls))
    return [f"m:{h}" for h in REF_RE.findall(text)]


def recall_calls(store: CaptureStore, workspace: str, uses: Iterable[UseRow] = ()) -> list[RecallCall]:
    """Every recall a captured session of ``workspace`` made that was followed by a citation,
    with the refs cited after it until the session's next recall (a second recall is usually
    a second need).

    ``uses`` are recorded uses from the memory store; a use counts for the captured session
    whose id, or id after its tool prefix, is the use's session."""
    by_session: dict[str, list[tuple[str, str]]] = {}
    for use in uses:
        by_session.setdefault(use.session, []).append((to_iso(use.at), use.ref))
    out: list[RecallCall] = []
    for row in store.all_sessions(workspace):
        if not row.project:
            continue
        session, project = row.id, row.project
        turns = store.turns(workspace, session)
        recorded = sorted(by_session.get(session, []) + by_session.get(session.partition(":")[2], []))
        asked = [(i, q) for i, turn in enumerate(turns) for q in _queries(turn.tool_calls)]
        for n, (i, query) in enumerate(asked):
            end = next((j for j, _ in asked[n + 1 :] if j > i), len(turns))
            start_at = turns[i].at
            end_at = turns[end].at if end < len(turns) else ""
            cited: dict[str, None] = {}
            for later in turns[i + 1 : end]:
                cited.update(dict.fromkeys(_cited_in(later)))
            cited.update(dict.fromkeys(
                ref for when, ref in recorded if (not start_at or when >= start_at) and (not end_at or when < end_at)
            ))  # fmt: skip
            if cited:
                out.append(RecallCall(session, project, start_at, query, tuple(cited)))
    return out
