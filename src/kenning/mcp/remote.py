"""``kenning mcp --remote URL``: the memory tools for a machine that keeps no store, answered by
a team server's REST API (docs/server.md) with this machine's device token (kenning login).

The tools keep the names, descriptions and arguments agents know from ``kenning mcp``:
recall, recall_workspaces, remember, record_decision, get_memory, list_memories,
propose_memory_change and memory_health (report only). The project of a call is read from
git here (cwd, else the folder the agent tool started in) and sent as its scope key; the
workspace is $KENNING_WORKSPACE when this device syncs it, else the first it syncs.

Writes are the caller's own records on the server (rows belong to their author): remember's
``replaces`` and ``unindex`` name your own memories (a teammate's is refused: propose the
change, which waits in its author's Needs review), ``used`` counts uses on the server's
copy. A refusal of the server (its status and message) becomes the tool's error result.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from kenning import __version__
from kenning.errors import KenningError, NotFound
from kenning.mcp.kit import Cwd, Refs, Session, Source, Strict, add_tool, writer
from kenning.mcp.server import instructions
from kenning.mcp.tools.across import MAX_WORKSPACES, AcrossOut, Workspace
from kenning.mcp.tools.memory import (
    Alternatives,
    ChangeType,
    Confidence,
    DecisionTitle,
    Detail,
    KindName,
    Level,
    MemoriesOut,
    MemoryText,
    PageOut,
    Pin,
    ProposalRefs,
    ProposalText,
    Reasoning,
    RecallOut,
    Rejected,
    SourceRef,
    Subject,
    Trigger,
    Used,
)
from kenning.model import PERSONAL_SCOPE
from kenning.sync.client import Link
from kenning.sync.http import HttpTransport

TOOLS = ("recall", "recall_workspaces", "remember", "record_decision", "get_memory", "list_memories",
         "propose_memory_change", "memory_health")  # fmt: skip


@dataclass
class Remote:
    """What the server's lifespan holds: the transport, the login and the defaults."""

    transport: HttpTransport
    link: Link
    workspace: str
    default_cwd: str | None


def _remote(ctx: Context) -> Remote:
    found = ctx.request_context.lifespan_context
    if not isinstance(found, Remote):
        raise ToolError("this server was not started with kenning mcp --remote URL")
    return found


def _project(remote: Remote, cwd: str | None) -> str:
    """The scope key of the call's project, from git, as a machine's store files it."""
    chosen = cwd if cwd is not None else remote.default_cwd
    if chosen is None or not chosen.strip():
        return PERSONAL_SCOPE
    path = Path(chosen).expanduser()
    if not path.is_absolute() or not path.is_dir():
        raise ToolError(f"cwd {chosen!r} is not an absolute path of a folder. Pass the project folder's absolute path")
    from kenning.gitinfo import project_for

    info = project_for(path)
    return PERSONAL_SCOPE if info.kind == "personal" or not info.key else info.key


def _call(remote: Remote, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    try:
        if method == "GET":
            return remote.transport.get(path)
        return remote.transport.post(path, body or {})
    except KenningError as error:
        raise ToolError(error.message + (f". Fix: {error.fix}" if error.fix else "")) from error


def recall(
    ctx: Context,
    query: Annotated[str, Field(min_length=1, max_length=1000, description="The task in your own words.")],
    as_of: Annotated[
        str | None, Field(max_length=40, description="ISO date or time: answer from what was believed then (UTC).")
    ] = None,
    also: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=1000)]],
        Field(max_length=3, description="Up to 3 other phrasings, each searched; results merged."),
    ] = [],  # noqa: B006 - pydantic copies defaults
    count: Annotated[int, Field(ge=1, le=25)] = 8,
    cwd: Cwd = None,
) -> RecallOut:
    """Search the team's memory for the task at hand: decisions with reasons, preferences,
    facts, lessons. Call it at the start of a task with the task in your own words. Each
    result has a ref (cite it in `used` on later writes, never in replies) and marks.
    Nothing relevant returns no results."""
    remote = _remote(ctx)
    answer = _call(remote, "POST", "/api/v1/recall", {
        "workspace": remote.workspace, "query": query, "as_of": as_of, "also": also, "count": count,
        "project": _project(remote, cwd)})  # fmt: skip
    results = [{k: v for k, v in r.items() if k not in ("workspace", "score")} for r in answer["results"]]
    return RecallOut(query=query, as_of=answer.get("as_of"), results=results, note=answer.get("note", ""))


def recall_workspaces(
    ctx: Context,
    query: Annotated[str, Field(min_length=1, max_length=1000, description="The task in your own words.")],
    workspaces: Annotated[
        list[Workspace],
        Field(max_length=MAX_WORKSPACES, description="Workspaces to search; empty: every one this device syncs."),
    ] = [],  # noqa: B006
    also: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=1000)]], Field(max_length=3, description="Up to 3 other phrasings.")
    ] = [],  # noqa: B006
    count: Annotated[int, Field(ge=1, le=25)] = 8,
    as_of: Annotated[str | None, Field(max_length=40, description="ISO date or time (UTC).")] = None,
    cwd: Cwd = None,
) -> AcrossOut:
    """Recall across workspaces (a team's and your own): each searched as recall does, the
    results interleaved, strongest first, each with its `workspace`."""
    remote = _remote(ctx)
    names = list(dict.fromkeys(workspaces)) or list(remote.link.workspaces)
    answer = _call(remote, "POST", "/api/v1/recall", {
        "workspaces": names, "query": query, "as_of": as_of, "also": also, "count": count,
        "project": _project(remote, cwd)})  # fmt: skip
    results = [{k: v for k, v in r.items() if k != "score"} for r in answer["results"]]
    return AcrossOut(query=query, workspaces=answer["workspaces"], as_of=answer.get("as_of"), results=results,
                     note=answer.get("note", ""))  # fmt: skip


class RemoteRememberOut(Strict):
    outcome: str
    ref: str
    memory: dict[str, Any] | None = None
    other: str = ""
    superseded: list[str] = []
    retired: list[str] = []
    unplaced: list[str] = []
    index: list[str] = []
    decision_doc: dict[str, Any] | None = None
    warnings: list[str] = []
    note: str = ""


def _remembered(answer: dict[str, Any]) -> RemoteRememberOut:
    unknown = answer.get("unknown_used") or []
    warnings = [*answer.get("warnings", []), *([f"used refs that match no memory: {', '.join(unknown)}"] if unknown else [])]
    return RemoteRememberOut(outcome=answer["outcome"], ref=answer["ref"], memory=answer.get("memory"),
                             other=answer.get("other", ""), superseded=answer.get("superseded", []),
                             retired=answer.get("retired", []), unplaced=answer.get("unplaced", []),
                             index=answer.get("index", []), decision_doc=answer.get("decision_doc"),
                             warnings=warnings, note=answer.get("note", ""))  # fmt: skip


def remember(
    ctx: Context,
    text: MemoryText,
    kind: KindName | None = None,
    reason: Detail = "",
    rejected: Rejected = "",
    source: Source = "",
    source_ref: SourceRef = "",
    subject: Subject = "",
    when: Trigger = None,
    replaces: Annotated[
        list[Annotated[str, Field(max_length=40)]],
        Field(max_length=50, description="Your own memories this one supersedes (a teammate's: propose the change)."),
    ] = [],  # noqa: B006
    index: Pin = False,
    unindex: Annotated[str, Field(max_length=40, description="Your own ref to take out when the index is full.")] = "",
    global_: Annotated[bool, Field(alias="global", description="A memory for every project.")] = False,
    used: Used = [],  # noqa: B006
    confidence: Confidence | None = None,
    session: Session = "",
    cwd: Cwd = None,
) -> RemoteRememberOut:
    """Save one typed memory to the team's memory, deduplicated (a near-duplicate of yours
    strengthens it). At the end of a task, at most two per task, only what a future agent
    would act better for knowing: a correction, a confirmed approach, a decision and why, a
    non-obvious fact. Not what code, git or docs already say. A refusal says how to fix it."""
    remote = _remote(ctx)
    answer = _call(remote, "POST", "/api/v1/memories", {
        "workspace": remote.workspace, "project": _project(remote, cwd), "text": text, "kind": kind, "reason": reason,
        "rejected": rejected, "source": writer(ctx, source), "source_ref": source_ref, "subject": subject,
        "when": when, "global": global_, "confidence": confidence, "session": session.strip(),
        "replaces": replaces, "index": index, "unindex": unindex, "used": used})  # fmt: skip
    return _remembered(answer)


def record_decision(
    ctx: Context,
    title: DecisionTitle,
    reasoning: Reasoning,
    alternatives: Alternatives = [],  # noqa: B006
    confidence: Level | None = None,
    source: Source = "",
    source_ref: Annotated[str, Field(max_length=300)] = "",
    used: Refs = [],  # noqa: B006
    session: Session = "",
    cwd: Cwd = None,
) -> RemoteRememberOut:
    """Record a decision as it is made: a decision memory plus a decision doc holding the
    full reasoning and the alternatives turned down (same as remember with kind=decision)."""
    remote = _remote(ctx)
    answer = _call(remote, "POST", "/api/v1/memories", {
        "workspace": remote.workspace, "project": _project(remote, cwd), "text": title, "kind": "decision",
        "reason": reasoning, "rejected": "; ".join(alternatives), "source": writer(ctx, source),
        "source_ref": source_ref, "confidence": confidence, "session": session.strip(), "used": used})  # fmt: skip
    return _remembered(answer)


class RemoteProposalOut(Strict):
    review: str
    kind: str
    refs: list[str]
    authors: list[str]
    note: str


def propose_memory_change(
    ctx: Context,
    type: ChangeType,  # noqa: A002 - the name agents know
    refs: ProposalRefs,
    text: ProposalText = "",
    when: Trigger = None,
    why: Detail = "",
    source: Source = "",
    cwd: Cwd = None,
) -> RemoteProposalOut:
    """Propose merging, retiring or turning memories into a lesson. Changes nothing: the
    proposal waits in Needs review of the memories' authors until a person decides."""
    remote = _remote(ctx)
    answer = _call(remote, "POST", "/api/v1/proposals", {
        "workspace": remote.workspace, "project": _project(remote, cwd), "type": type, "refs": refs, "text": text,
        "when": when, "why": why, "source": writer(ctx, source)})  # fmt: skip
    return RemoteProposalOut(review=answer["review"], kind=answer["kind"], refs=answer["refs"],
                             authors=answer["authors"], note=answer["note"])  # fmt: skip


def get_memory(
    ctx: Context,
    refs: Annotated[list[Annotated[str, Field(max_length=40)]], Field(min_length=1, max_length=25)],
) -> MemoriesOut:
    """Fetch memories by ref: claim, reason, citation state, status, history (what it
    replaced, what replaced it) and evidence. Refs that match nothing are listed under unknown."""
    remote = _remote(ctx)
    out, unknown = [], []
    for ref in refs:
        try:
            found = remote.transport.get(f"/api/v1/memories/{quote(ref.strip(), safe=':')}"
                                         f"?workspace={quote(remote.workspace)}")  # fmt: skip
        except KenningError as error:
            if getattr(error, "status", 0) in (400, 404) or isinstance(error, NotFound):
                unknown.append(ref)
                continue
            raise ToolError(error.message + (f". Fix: {error.fix}" if error.fix else "")) from error
        if found.get("hidden") or found.get("held"):
            unknown.append(ref)  # the author's own hidden memory: the server shows it to them, never to a session
            continue
        out.append(found)
    return MemoriesOut(memories=out, unknown=unknown)


def list_memories(
    ctx: Context,
    offset: Annotated[int, Field(ge=0, le=1_000_000, description="Skip this many (pages of 100).")] = 0,
    cwd: Cwd = None,
) -> PageOut:
    """The project's memories for a tidy the person agreed to: oldest first, 100 a call,
    each with its ref and whether it is resting or a stale state."""
    remote = _remote(ctx)
    answer = _call(remote, "GET", f"/api/v1/memories?workspace={quote(remote.workspace)}"
                   f"&project={quote(_project(remote, cwd))}&offset={offset}")  # fmt: skip
    return PageOut(memories=answer["memories"], offset=answer["offset"], next_offset=answer.get("next_offset"),
                   total=answer["total"])  # fmt: skip


class RemoteHealthOut(Strict):
    workspace: str
    checked: int
    moves: list[dict[str, str]]
    never_returned: list[str]
    longer_than_a_sentence: list[str]
    untagged: int
    exact_duplicates: list[list[str]]
    note: str


def memory_health(ctx: Context, all_projects: bool = False, cwd: Cwd = None) -> RemoteHealthOut:
    """Check the team's memory for this project (or every project): memories filed where
    recall cannot reach them, never returned, longer than a sentence, untagged, exact
    duplicates. Reports only: a person repairs on their own machine."""
    remote = _remote(ctx)
    project = "" if all_projects else _project(remote, cwd)
    a = _call(remote, "GET", f"/api/v1/health?workspace={quote(remote.workspace)}&project={quote(project)}")
    return RemoteHealthOut(workspace=a["workspace"], checked=a["checked"], moves=a["moves"],
                           never_returned=a["never_returned"], longer_than_a_sentence=a["longer_than_a_sentence"],
                           untagged=a["untagged"], exact_duplicates=a["exact_duplicates"],
                           note="reported by the team server; nothing was changed")  # fmt: skip


def build_remote_server(link: Link, workspace: str, *, default_cwd: str | None = None,
                        transport: HttpTransport | None = None) -> MCPServer[Remote]:  # fmt: skip
    """The MCP server of ``kenning mcp --remote`` over ``link`` (its server and device token)."""

    @asynccontextmanager
    async def lifespan(_: MCPServer[Remote]) -> AsyncIterator[Remote]:
        http = transport or HttpTransport(link.server, link.token, timeout=30.0, retries=(0.5, 2.0))
        try:
            yield Remote(http, link, workspace, default_cwd)
        finally:
            http.close()

    server: MCPServer[Remote] = MCPServer("kenning", instructions=instructions(), version=__version__,
                                          lifespan=lifespan, log_level="WARNING")  # fmt: skip
    add_tool(server, recall, title="Recall memory", read_only=True)
    add_tool(server, recall_workspaces, title="Recall across workspaces", read_only=True)
    add_tool(server, remember, title="Remember", read_only=False)
    add_tool(server, record_decision, title="Record a decision", read_only=False)
    add_tool(server, get_memory, title="Get memories by ref", read_only=True, idempotent=True)
    add_tool(server, list_memories, title="List project memories", read_only=True, idempotent=True)
    add_tool(server, propose_memory_change, title="Propose a memory change", read_only=False, idempotent=False)
    add_tool(server, memory_health, title="Check memory health", read_only=True, idempotent=True)
    return server
