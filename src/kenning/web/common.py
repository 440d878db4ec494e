"""What every page handler shares: the core for this viewer, rendering a page with the
navigation (and its Needs-review count), the project picker, flash messages, and the
Post/Redirect/Get answer to a form."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TypeVar
from urllib.parse import urlencode

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from kenning.core import browse
from kenning.core.service import Core
from kenning.web.auth import Viewer
from kenning.web.render import Pages
from kenning.web.security import FLASH_COOKIE, Guard, posted_form

# cores(viewer, write): the core for a request; ``write`` when it is a form's change (the
# server records what the change touched as its author's sync records).
CoreProvider = Callable[[Viewer, bool], AbstractContextManager[Core]]
T = TypeVar("T")

NAV = (
    ("memory", "/memory", "Memory"),
    ("review", "/review", "Needs review"),
    ("retire", "/retire", "Retire session"),
    ("map", "/map", "Map"),
    ("decisions", "/decisions", "Decisions"),
    ("rules", "/rules", "Rules"),
    ("health", "/health", "Health"),
    ("sessions", "/sessions", "Sessions"),
    ("report", "/report", "Report"),
)


def viewer_of(request: Request) -> Viewer:
    viewer: Viewer = request.state.viewer
    return viewer


@contextmanager
def core_for(request: Request, *, write: bool = False) -> Iterator[Core]:
    provider: CoreProvider = request.app.state.cores
    with provider(viewer_of(request), write) as core:
        yield core


def project_of(request: Request) -> str:
    return request.query_params.get("project", "").strip()


def with_query(path: str, **params: object) -> str:
    """``path`` with the non-empty ``params`` as its query string."""
    kept = {k: str(v) for k, v in params.items() if v not in (None, "", False)}
    return f"{path}?{urlencode(kept)}" if kept else path


def open_reviews(core: Core) -> int:
    return len(core.store.reviews(core.workspace, browse.scope_keys(core, "")))


def page(request: Request, core: Core, template: str, active: str, status_code: int = 200,
         **context: Any) -> HTMLResponse:  # fmt: skip
    """A whole page: the template inside the layout, with nav, projects and any flash."""
    guard: Guard = request.app.state.guard
    pages: Pages = request.app.state.pages
    viewer = viewer_of(request)
    flash = None
    raw = request.cookies.get(FLASH_COOKIE)
    if raw:
        signed = guard.read_flash(raw)
        flash = {"kind": "ok", "text": "", "undo": "", "undo_label": "", "batch": "", **signed} if signed else None
    project = context.pop("project", project_of(request))
    html = pages.render(
        template,
        request_path=request.url.path,
        request_url=str(request.url.path) + (f"?{request.url.query}" if request.url.query else ""),
        nav=NAV,
        active=active,
        review_count=open_reviews(core),
        scopes=browse.scopes(core),
        project=project,
        viewer=viewer,
        csrf=guard.csrf_token(viewer),
        flash=flash,
        now=core.now(),
        **context,
    )
    response = HTMLResponse(html, status_code=status_code)
    if raw:
        response.delete_cookie(FLASH_COOKIE, path="/")
    return response


def safe_back(value: str, default: str) -> str:
    """A place to return to after a form: a path on this site, never another host."""
    value = (value or "").strip()
    if not value.startswith("/") or value.startswith("//") or "\\" in value or "\n" in value or "\r" in value:
        return default
    return value


def done(request: Request, form: FormData, default: str, message: str, *, kind: str = "ok",
         undo: str = "", extra: dict[str, str] | None = None) -> Response:  # fmt: skip
    """Post/Redirect/Get: back to the page the form came from, with a signed message that the
    page shows in its live region (so a screen reader hears it)."""
    guard: Guard = request.app.state.guard
    target = safe_back(str(form.get("back", "")), default)
    response = RedirectResponse(target, status_code=303)
    flash = {"kind": kind, "text": message[:500]}
    if undo:
        flash["undo"] = undo
    flash.update(extra or {})
    response.set_cookie(FLASH_COOKIE, guard.sign_flash(flash), httponly=True, samesite="strict", path="/",
                        max_age=60)  # fmt: skip
    return response


async def change(request: Request, work: Callable[[Core, FormData], T]) -> tuple[FormData, T]:
    """Check the form (CSRF), then run ``work`` with the core in the thread pool (the store's
    calls block)."""
    form = await posted_form(request)

    def run() -> T:
        with core_for(request, write=True) as core:
            return work(core, form)

    return form, await run_in_threadpool(run)
