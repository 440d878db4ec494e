"""Map: the project's files as a tree with the memories citing each, marked by citation state;
a file's page lists its memories and the lessons that arrive when it is read or edited."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from kenning.core import browse, filemap
from kenning.errors import Invalid
from kenning.web.common import core_for, page, project_of
from kenning.web.pages.memory import card_url

router = APIRouter()


@router.get("/map")
def map_page(request: Request) -> Response:
    project = project_of(request)
    with core_for(request) as core:
        if not project:
            return page(request, core, "map.html", "map", fmap=None, choices=browse.scopes(core))
        return page(request, core, "map.html", "map", fmap=filemap.file_map(core, project), choices=[],
                    card_url=card_url)  # fmt: skip


@router.get("/map/file")
def map_file(request: Request) -> Response:
    project = project_of(request)
    path = request.query_params.get("path", "").strip()
    if not project or not path:
        raise Invalid("the map needs a project and a file", fix="pick a file on the Map page")
    with core_for(request) as core:
        return page(request, core, "map_file.html", "map", found=filemap.file_memories(core, project, path),
                    card_url=card_url)  # fmt: skip
