"""Retire session: pick a session, see what it wrote (pinned and protected memories are kept),
retire the rest; the memories retired in the last 30 days, each with Bring back."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from kenning.core import browse, curation
from kenning.core.service import Core
from kenning.web.common import change, core_for, done, page, project_of, with_query
from kenning.web.pages.memory import card_url

router = APIRouter()


def _retire(core: Core, project: str, session: str, *, apply: bool) -> curation.SessionRetirement:
    return curation.retire_session(core.store, core.workspace, browse.scope_keys(core, project), session,
                                   core.now(), apply=apply)  # fmt: skip


@router.get("/retire")
def retire_page(request: Request) -> Response:
    project = project_of(request)
    session = request.query_params.get("session", "").strip()
    with core_for(request) as core:
        keys = browse.scope_keys(core, project)
        written = core.store.sessions_written(core.workspace, keys)
        preview = _retire(core, project, session, apply=False) if session else None
        return page(request, core, "retire.html", "retire", written=written, session=session, preview=preview,
                    retired=browse.retired_lately(core, project), card_url=card_url)  # fmt: skip


@router.post("/retire")
async def retire_session(request: Request) -> Response:
    def work(core: Core, form: FormData) -> curation.SessionRetirement:
        return _retire(core, str(form.get("project", "")), str(form.get("session", "")).strip(), apply=True)

    form, outcome = await change(request, work)
    kept = f"; {len(outcome.kept)} pinned or protected kept" if outcome.kept else ""
    back = with_query("/retire", project=str(form.get("project", "")))
    return done(request, form, back, f"Retired {len(outcome.retire)} memories of session {outcome.session}{kept}.")
