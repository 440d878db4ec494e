"""Memory: the filtered list with search and counts, one memory's card, and the hand repairs
(pin, hide, protect, retire, release and their undos)."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote

from fastapi import APIRouter
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from kenning.core import browse, placements
from kenning.core.render import memory_line
from kenning.core.service import Core
from kenning.errors import Invalid
from kenning.model import Kind, Memory, Origin, Placement, Placing
from kenning.store.protocol import ScopeRow
from kenning.web.common import change, core_for, done, page, with_query

router = APIRouter()


def _int(value: str, name: str, default: int) -> int:
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise Invalid(f"{name} {value!r} is not a number", fix=f"give {name} as a whole number") from None


def query_of(request: Request) -> browse.MemoryQuery:
    p = request.query_params
    return browse.MemoryQuery(
        project=p.get("project", "").strip(), kind=p.get("kind", ""), status=p.get("status", "") or "active",
        origin=p.get("origin", ""), writer=p.get("writer", ""), text=p.get("q", "").strip(),
        as_of=p.get("as_of", "").strip(),
        offset=_int(p.get("offset", ""), "offset", 0), limit=_int(p.get("limit", ""), "limit", browse.PAGE),
    )  # fmt: skip


def card_url(ref: str) -> str:
    return f"/memory/{quote(ref, safe=':')}"


@router.get("/memory")
def memory_list(request: Request) -> Response:
    q = query_of(request)
    with core_for(request) as core:
        listing = browse.browse(core, q)
        params = {"project": q.project, "kind": q.kind, "status": q.status if q.status != "active" else "",
                  "origin": q.origin, "writer": q.writer, "q": q.text, "as_of": q.as_of}  # fmt: skip
        more = with_query("/memory", **params, offset=q.offset + q.limit) if listing.has_more else ""
        back = with_query("/memory", **params, offset=q.offset - q.limit) if q.offset > 0 else ""
        return page(request, core, "memory_list.html", "memory", listing=listing, q=q, kinds=[k.value for k in Kind],
                    origins=[o.value for o in Origin], statuses=browse.STATUS_CHOICES, more_url=more,
                    back_url=back, card_url=card_url)  # fmt: skip


def place_choices(core: Core) -> list[ScopeRow]:
    """Where a placement can hold: the registered projects and groups (and personal)."""
    rows = [r for r in core.store.list_scopes(core.workspace)
            if r.kind in placements.PLACE_KINDS and r.removed_at is None]  # fmt: skip
    order = {"project": 0, "group": 1, "personal": 2}
    return sorted(rows, key=lambda r: (order.get(r.kind, 3), r.name.lower(), r.key))


@router.get("/memory/{ref}")
def memory_card(request: Request, ref: str) -> Response:
    with core_for(request) as core:
        found = browse.card(core, ref)
        return page(request, core, "memory_card.html", "memory", card=found, card_url=card_url,
                    project=found.memory.scope, place_choices=place_choices(core),
                    placement_words=placements.describe)  # fmt: skip


# Each action: what it calls, and the sentence that says it was done.
ACTIONS: dict[str, tuple[Callable[[Core, str, FormData], Memory], str]] = {
    "pin": (lambda core, ref, form: core.pin(ref), "Pinned"),
    "unpin": (lambda core, ref, form: core.unpin(ref), "Unpinned"),
    "hide": (lambda core, ref, form: core.hide(ref), "Hidden from sessions"),
    "give": (lambda core, ref, form: core.give(ref), "Given to sessions again"),
    "protect": (lambda core, ref, form: core.protect(ref, True), "Protected"),
    "unprotect": (lambda core, ref, form: core.protect(ref, False), "No longer protected"),
    "retire": (lambda core, ref, form: core.retire(ref, str(form.get("why", "")).strip()[:300]), "Retired"),
    "bring-back": (lambda core, ref, form: core.bring_back(ref), "Brought back"),
    "release": (lambda core, ref, form: core.release(ref), "Released"),
}
UNDO = {"pin": "unpin", "unpin": "pin", "hide": "give", "give": "hide", "protect": "unprotect",
        "unprotect": "protect", "retire": "bring-back", "bring-back": "retire"}  # fmt: skip


def _placement_of(request: Request, form: FormData) -> tuple[Placing, str]:
    """The decision and the place a placement form (or its undo link) names."""
    decision = placements.parse(str(form.get("decision") or request.query_params.get("decision", "")))
    key = "" if decision is Placing.NO_AGENT_RUNS else str(form.get("place") or request.query_params.get("place", ""))
    return decision, key.strip()


@router.post("/memory/{ref}/place")
async def memory_place(request: Request, ref: str) -> Response:
    """Always give this here, not relevant here, never for agent runs."""

    def work(core: Core, form: FormData) -> Placement:
        decision, key = _placement_of(request, form)
        return core.place_memory(ref, decision, key, by="web")

    form, placed = await change(request, work)
    undo = with_query(f"{card_url(placed.ref)}/unplace", decision=placed.decision.value, place=placed.place)
    return done(request, form, card_url(placed.ref), f"Placed: {placements.describe(placed)}", undo=undo,
                extra={"undo_label": "Undo this placement"})  # fmt: skip


@router.post("/memory/{ref}/unplace")
async def memory_unplace(request: Request, ref: str) -> Response:
    def work(core: Core, form: FormData) -> Placement:
        decision, key = _placement_of(request, form)
        return core.unplace_memory(ref, decision, key)

    form, gone = await change(request, work)
    redo = with_query(f"{card_url(gone.ref)}/place", decision=gone.decision.value, place=gone.place)
    return done(request, form, card_url(gone.ref), f"Undone: no longer {placements.describe(gone)}", undo=redo,
                     extra={"undo_label": "Place it again"})  # fmt: skip


@router.post("/memory/{ref}/{action}")
async def memory_action(request: Request, ref: str, action: str) -> Response:
    if action not in ACTIONS:
        raise Invalid(f"{action!r} is not an action on a memory", fix=f"use one of {', '.join(ACTIONS)}")
    call, said = ACTIONS[action]
    form, memory = await change(request, lambda core, form: call(core, ref, form))
    undo = f"{card_url(memory.ref)}/{UNDO[action]}" if action in UNDO else ""
    return done(request, form, card_url(memory.ref), f"{said}: {memory_line(memory, limit=160)}", undo=undo,
                extra={"undo_label": f"Undo ({UNDO[action].replace('-', ' ')})"} if undo else None)  # fmt: skip
