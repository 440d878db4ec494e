"""Sessions: search the captured sessions, read one turn by turn with the search's words
marked, and see what the hooks recorded it was given and what it used."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from kenning.capture import search as capture
from kenning.context import given
from kenning.errors import Invalid
from kenning.web.common import core_for, page, project_of
from kenning.web.pages.memory import card_url

router = APIRouter()
TOOLS = ("claude-code", "codex", "gemini", "opencode")


@router.get("/sessions")
def sessions_page(request: Request) -> Response:
    project = project_of(request)
    q = request.query_params.get("q", "").strip()
    tool = request.query_params.get("tool", "")
    if tool and tool not in TOOLS:
        raise Invalid(f"tool {tool!r} is unknown", fix=f"use one of {', '.join(TOOLS)}")
    with core_for(request) as core:
        store = core.stores.capture
        hits = capture.search(store, core.workspace, q, project=project, tool=tool,
                              limit=30, now=core.now()) if q else []  # fmt: skip
        recent = [] if q else store.sessions(core.workspace, project, limit=50)
        return page(request, core, "sessions.html", "sessions", q=q, tool=tool, tools=TOOLS, hits=hits, recent=recent)


@router.get("/sessions/{session_id:path}")
def session_page(request: Request, session_id: str) -> Response:
    q = request.query_params.get("q", "").strip()
    chunk = request.query_params.get("chunk", "")
    with core_for(request) as core:
        view = capture.show(core.stores.capture, core.workspace, session_id)
        evidence_turn = None
        if chunk.isdigit():
            found = core.stores.capture.chunk(core.workspace, int(chunk))
            if found is not None and found.session == view["session"]["id"]:
                evidence_turn = found.turn
        record = given.record(core, view["session"]["id"])
        return page(request, core, "session.html", "sessions", view=view, q=q, evidence_turn=evidence_turn,
                    record=record, card_url=card_url, project=view["session"]["project"])  # fmt: skip
