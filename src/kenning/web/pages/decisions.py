"""Decisions: each decision doc with its reasoning and its Outcome lines."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from kenning.core import browse
from kenning.web.common import core_for, page, project_of
from kenning.web.pages.memory import card_url

router = APIRouter()


@router.get("/decisions")
def decisions_page(request: Request) -> Response:
    project = project_of(request)
    with core_for(request) as core:
        docs = core.store.decision_docs(core.workspace, browse.scope_keys(core, project))
        memories = {m.ref: m for m in core.store.get_many(core.workspace, [d.memory_ref for d in docs if d.memory_ref])}
        return page(request, core, "decisions.html", "decisions", docs=docs, memories=memories, card_url=card_url)
