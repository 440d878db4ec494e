"""``/api/v1/sessions/search``: search the captured sessions every member's machines pushed,
answered from the workspace's materialized capture store (kenning.sync.materialize_kinds)
with the code and ranking of ``kenning sessions search`` and the MCP tool on a machine.
Reading needs a role in the workspace (viewers read)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from kenning.capture import search as capture_search
from kenning.server.auth import Principal
from kenning.server.deps import caller
from kenning.server.workspace_core import workspace_core

router = APIRouter(prefix="/api/v1", tags=["sessions"])

Slug = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")]
When = Annotated[str, Field(max_length=40, description="ISO date (UTC).")]
ERRORS: dict[int | str, dict[str, Any]] = {400: {}, 401: {}, 403: {}, 422: {}, 429: {}}


class SessionSearchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    workspace: Slug
    query: str = Field(min_length=1, max_length=1000, description="Words from what was said or done.")
    project: str = Field("", max_length=300, description="Only this project's sessions (its scope key); empty: all.")
    tool: str = Field("", max_length=40, description="Only sessions of this agent tool, e.g. codex.")
    type: Literal["", "decision", "preference", "milestone", "problem", "discovery", "general"] = ""
    since: When = ""
    until: When = ""
    limit: int = Field(10, ge=1, le=50)


class SessionSearchAnswer(BaseModel):
    query: str
    hits: list[dict[str, Any]] = Field(description="Each with the session, turn, chunk, score and the words' sentence.")
    note: str = ""


@router.post("/sessions/search", response_model=SessionSearchAnswer, responses=ERRORS,
             summary="Search the workspace's captured sessions (every member's, as synced).")  # fmt: skip
def sessions_search(body: SessionSearchBody, request: Request, principal: Principal = Depends(caller)) -> Any:
    with workspace_core(request, principal, body.workspace) as wc:
        hits = capture_search.search(wc.core.stores.capture, body.workspace, body.query, project=body.project,
                                     tool=body.tool, type=body.type, since=body.since, until=body.until,
                                     limit=body.limit, now=wc.core.now())  # fmt: skip
    return {"query": body.query, "hits": [h.to_dict() for h in hits],
            "note": "" if hits else "no synced session holds those words"}  # fmt: skip
