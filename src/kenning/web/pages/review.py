"""Needs review: contradictions of a firmer memory and tidy proposals, each with what it
changes, why and who proposed it; resolve one, or accept all with an Undo."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from kenning.core import browse
from kenning.core.reviews import CHOICES
from kenning.core.scopes import Place
from kenning.core.service import Core
from kenning.errors import Invalid, NotFound
from kenning.model import Memory, ReviewItem
from kenning.web.common import change, core_for, done, page, project_of
from kenning.web.pages.memory import card_url

router = APIRouter()

CHOICE_WORDS = {"keep-existing": "Keep existing", "replace": "Replace it", "keep-both": "Keep both",
                "accept": "Accept", "dismiss": "Dismiss"}  # fmt: skip
KIND_WORDS = {"contradiction": "Contradicts a firmer memory", "merge": "Merge", "retire": "Retire",
              "lesson": "Turn into a lesson"}  # fmt: skip


@dataclass(frozen=True)
class ReviewView:
    item: ReviewItem
    title: str
    proposed_text: str  # the new sentence (contradiction, merge, lesson); "" for a retirement
    why: str
    trigger: str
    existing: list[Memory]  # what it would replace or retire
    choices: list[tuple[str, str]]  # (choice, words)
    effect: str  # one sentence: what accepting changes


def _effect(item: ReviewItem, existing: list[Memory]) -> str:
    n = len(existing)
    if item.kind == "contradiction":
        return "Replace it retires the existing memory in favour of the new claim; Keep both stores the claim beside it."
    if item.kind == "merge":
        return f"Accepting writes the merged sentence; the {n} memories it replaces become superseded."
    if item.kind == "retire":
        return f"Accepting retires {n} memor{'y' if n == 1 else 'ies'} (you can bring them back)."
    return f"Accepting writes a lesson that arrives on its trigger, replacing {n} memor{'y' if n == 1 else 'ies'}."


def view(core: Core, item: ReviewItem) -> ReviewView:
    p = item.payload
    refs = [str(p["existing"])] if item.kind == "contradiction" and p.get("existing") else list(item.refs)
    existing = core.store.get_many(core.workspace, refs)
    why = str(p.get("why") or p.get("reason") or "")
    return ReviewView(item, KIND_WORDS.get(item.kind, item.kind), str(p.get("text", "")), why,
                      str(p.get("trigger", "")), existing,
                      [(c, CHOICE_WORDS[c]) for c in CHOICES.get(item.kind, ())], _effect(item, existing))  # fmt: skip


@router.get("/review")
def review_page(request: Request) -> Response:
    project = project_of(request)
    with core_for(request) as core:
        items = core.store.reviews(core.workspace, browse.scope_keys(core, project))
        return page(request, core, "review.html", "review", views=[view(core, i) for i in items],
                    card_url=card_url)  # fmt: skip


def _item_place(core: Core, review_id: int) -> Place:
    item = core.store.review(core.workspace, review_id)
    if item is None or item.workspace != core.workspace:
        raise NotFound(f"no review item {review_id}", fix="open Needs review again; it may have been resolved")
    return core.place(project=item.scope)


@router.post("/review/{review_id:int}")
async def resolve(request: Request, review_id: int) -> Response:
    def work(core: Core, form: FormData) -> ReviewItem:
        choice = str(form.get("choice", ""))
        if choice not in CHOICE_WORDS:
            raise Invalid(f"{choice!r} is not a choice", fix="use Keep existing, Replace it or Keep both")
        return core.resolve_review(_item_place(core, review_id), review_id, choice)

    form, item = await change(request, work)
    return done(request, form, "/review", f"Resolved item {item.id}: {CHOICE_WORDS[item.resolution]}")


def _places(core: Core, project: str) -> list[Place]:
    """Accept all acts per scope that has waiting items (one batch id for all of them)."""
    keys = browse.scope_keys(core, project)
    scopes = sorted({i.scope for i in core.store.reviews(core.workspace, keys)})
    return [core.place(project=s) for s in scopes]


@router.post("/review/accept-all")
async def accept_all(request: Request) -> Response:
    def work(core: Core, form: FormData) -> tuple[str, int]:
        project = str(form.get("project", ""))
        batches, count = [], 0
        for place in _places(core, project):
            batch, items = core.accept_all(place)
            if items:
                batches.append(batch)
                count += len(items)
        return ",".join(batches), count

    form, (batches, count) = await change(request, work)
    if not count:
        return done(request, form, "/review", "Nothing was waiting for review.")
    return done(request, form, "/review", f"Accepted {count} item{'s' if count != 1 else ''}.",
                undo="/review/undo", extra={"batch": batches, "undo_label": "Undo accept all"})  # fmt: skip


@router.post("/review/undo")
async def undo(request: Request) -> Response:
    def work(core: Core, form: FormData) -> int:
        batches = [b for b in str(form.get("batch", "")).split(",") if b]
        if not batches:
            raise Invalid("no batch to undo", fix="use the Undo button shown after Accept all")
        undone = 0
        for batch in batches:
            items = core.store.reviews(core.workspace, browse.scope_keys(core, ""), open_only=False)
            scope = next((i.scope for i in items if i.batch == batch), None)
            if scope is None:
                raise NotFound(f"no batch {batch}", fix="it may have been undone already")
            undone += len(core.undo_batch(core.place(project=scope), batch))
        return undone

    form, count = await change(request, work)
    return done(request, form, "/review", f"Undone: {count} item{'s' if count != 1 else ''} wait for review again.")
