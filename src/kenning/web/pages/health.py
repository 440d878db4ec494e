"""Health: "Are memories reachable?" — the report, "Show what would change", then Repair."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from kenning.core.health import HealthReport, health
from kenning.core.service import Core
from kenning.errors import Refused
from kenning.web.common import change, core_for, done, page, project_of, viewer_of, with_query
from kenning.web.pages.memory import card_url

router = APIRouter()


@router.get("/health")
def health_page(request: Request) -> Response:
    project = project_of(request)
    show = request.query_params.get("show") == "1"
    with core_for(request) as core:
        report = health(core, project or None)
        return page(request, core, "health.html", "health", report=report, show=show, card_url=card_url)


@router.post("/health/repair")
async def repair(request: Request) -> Response:
    if not viewer_of(request).has_checkouts:
        # Repair judges cited files on this machine's disk; the team server holds no checkout.
        raise Refused("Repair looks at the cited files on this machine, and the team server has no checkout",
                      fix="repair on your own machine (kenning ui, Health); kenning sync brings the result here")  # fmt: skip

    def work(core: Core, form: FormData) -> HealthReport:
        return health(core, str(form.get("project", "")).strip() or None, repair=True)

    form, report = await change(request, work)
    said = (f"Repaired: moved {len(report.moves)} memor{'y' if len(report.moves) == 1 else 'ies'}, "
            f"dropped {len(report.drops)} citation{'' if len(report.drops) == 1 else 's'} (the claims are kept).")  # fmt: skip
    return done(request, form, with_query("/health", project=str(form.get("project", ""))), said)
