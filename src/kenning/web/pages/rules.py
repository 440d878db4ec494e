"""Rules: which memories agents get. The ready rules (each says how many memories it would
leave out), your own sentences, for all projects or one; on/off, change N, remove."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from kenning.core import rules
from kenning.core.service import Core
from kenning.errors import Invalid
from kenning.model import Kind
from kenning.web.common import change, core_for, done, page, project_of, with_query

router = APIRouter()

READY_WORDS = {
    "unused": "Leave out what nobody used for N days",
    "proven": "Keep only lessons used in at least N sessions",
    "shipped": "Keep only decisions from work that shipped",
    "undone": "Drop what came from work that was undone",
}


@router.get("/rules")
def rules_page(request: Request) -> Response:
    project = project_of(request)
    with core_for(request) as core:
        views = rules.listing(core, core.place(project=project)) if project else rules.listing_everywhere(core)
        return page(request, core, "rules.html", "rules", views=views, ready=rules.READY, ready_words=READY_WORDS,
                    kinds=[k.value for k in Kind])  # fmt: skip


def _for(form: FormData) -> str:
    return "" if str(form.get("for", "")) == "all" else str(form.get("project", "")).strip()


def _n(form: FormData) -> int | None:
    raw = str(form.get("n", "")).strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        raise Invalid(f"N {raw!r} is not a number", fix="give N as a whole number, e.g. 60") from None


def _back(form: FormData) -> str:
    return with_query("/rules", project=str(form.get("project", "")))


@router.post("/rules/ready")
async def add_ready(request: Request) -> Response:
    def work(core: Core, form: FormData) -> int:
        return rules.add_ready(core, str(form.get("kind", "")), n=_n(form), project=_for(form),
                               memory_kind=str(form.get("memory_kind", "")))  # fmt: skip

    form, rule_id = await change(request, work)
    return done(request, form, _back(form), f"Rule {rule_id} added.")


@router.post("/rules/sentence")
async def add_sentence(request: Request) -> Response:
    def work(core: Core, form: FormData) -> int:
        return rules.add_sentence(core, str(form.get("text", "")), project=_for(form))

    form, rule_id = await change(request, work)
    return done(request, form, _back(form), f"Rule {rule_id} added: agents are told it under Rules.")


@router.post("/rules/{rule_id:int}/{action}")
async def rule_action(request: Request, rule_id: int, action: str) -> Response:
    def work(core: Core, form: FormData) -> str:
        if action == "on":
            rules.set_enabled(core, rule_id, True)
            return f"Rule {rule_id} is on."
        if action == "off":
            rules.set_enabled(core, rule_id, False)
            return f"Rule {rule_id} is off: what it left out is given out again."
        if action == "set":
            n = _n(form)
            if n is None:
                raise Invalid("N is missing", fix="give N as a whole number")
            rules.set_n(core, rule_id, n)
            return f"Rule {rule_id} now uses N = {n}."
        if action == "remove":
            rules.remove(core, rule_id)
            return f"Rule {rule_id} removed (no memory was touched)."
        raise Invalid(f"{action!r} is not an action on a rule", fix="use on, off, set or remove")

    form, said = await change(request, work)
    return done(request, form, _back(form), said)
