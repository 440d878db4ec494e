"""Sessions: search the captured sessions, read one turn by turn with the search's words
marked, and see what the hooks recorded it was given and what it used."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from kenning.capture import search as capture
from kenning.context import given
from kenning.core.service import Core
from kenning.errors import Invalid
from kenning.store.sqlite.capture_store import CaptureStore
from kenning.store.sqlite.db import Database
from kenning.web.common import core_for, page, project_of
from kenning.web.pages.memory import card_url

router = APIRouter()
TOOLS = ("claude-code", "codex", "gemini", "opencode")


def _db(core: Core) -> Database:
    db = core.db
    if db is None:
        raise Invalid("captured sessions live in the local store", fix="run kenning ui on the machine that captured them")
    return db


@router.get("/sessions")
def sessions_page(request: Request) -> Response:
    project = project_of(request)
    q = request.query_params.get("q", "").strip()
    tool = request.query_params.get("tool", "")
    if tool and tool not in TOOLS:
        raise Invalid(f"tool {tool!r} is unknown", fix=f"use one of {', '.join(TOOLS)}")
    with core_for(request) as core:
        db = _db(core)
        hits = capture.search(db, q, workspace=core.workspace, project=project, tool=tool,
                              limit=30, now=core.now()) if q else []  # fmt: skip
        recent = [] if q else CaptureStore(db).sessions(core.workspace, project, limit=50)
        return page(request, core, "sessions.html", "sessions", q=q, tool=tool, tools=TOOLS, hits=hits, recent=recent)


@router.get("/sessions/{session_id:path}")
def session_page(request: Request, session_id: str) -> Response:
    q = request.query_params.get("q", "").strip()
    chunk = request.query_params.get("chunk", "")
    with core_for(request) as core:
        view = capture.show(_db(core), session_id)
        evidence_turn = None
        if chunk.isdigit():
            row = CaptureStore(_db(core)).chunk(int(chunk))
            if row is not None and row["session"] == view["session"]["id"]:
                evidence_turn = row["turn"]
        record = given.record(core, view["session"]["id"])
        return page(request, core, "session.html", "sessions", view=view, q=q, evidence_turn=evidence_turn,
                    record=record, card_url=card_url, project=view["session"]["project"])  # fmt: skip
