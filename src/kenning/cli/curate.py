"""`kenning memory review`, `kenning memory decision` and `kenning memory policy`."""

from __future__ import annotations

from pathlib import Path

import click

from kenning.cli.common import core_of, json_option, place_of, where_options
from kenning.cli.context import CliContext, emit_json, pass_ctx
from kenning.clock import to_iso
from kenning.core import decisions
from kenning.core.policy import SETTINGS
from kenning.core.render import memory_line
from kenning.errors import NotFound
from kenning.model import ReviewItem


def _review_line(item: ReviewItem) -> str:
    p = item.payload
    if item.kind == "contradiction":
        return f"#{item.id} contradiction: {p.get('text')!s} — contradicts {p.get('existing')} (proposed by {item.proposed_by})"
    extra = f": {p.get('text')}" if p.get("text") else ""
    trig = f" when {p.get('trigger')}" if p.get("trigger") else ""
    return f"#{item.id} {item.kind} {' '.join(item.refs)}{extra}{trig} (proposed by {item.proposed_by})"


@click.group("review", invoke_without_command=True)
@where_options
@json_option
@click.pass_context
def review(click_ctx: click.Context, cwd: Path | None, project: str | None, as_json: bool) -> None:
    """Needs review: contradictions of firmer memories and proposed tidies.

    Without a subcommand, lists what waits.

    \b
    Example:
      kenning memory review
      kenning memory review resolve 3 keep-both
    """
    click_ctx.ensure_object(CliContext)
    click_ctx.meta["where"] = (cwd, project)
    if click_ctx.invoked_subcommand is not None:
        return
    ctx = click_ctx.find_object(CliContext)
    assert ctx is not None
    core = core_of(ctx)
    items = core.reviews(place_of(core, cwd, project))
    if as_json:
        emit_json([{"id": i.id, "kind": i.kind, "refs": list(i.refs), "payload": i.payload,
                    "proposed_by": i.proposed_by, "created_at": to_iso(i.created_at)} for i in items])  # fmt: skip
        return
    if not items:
        click.echo("nothing waits for review")
    for item in items:
        click.echo(_review_line(item))


def _place(click_ctx: click.Context, ctx: CliContext) -> object:
    core = core_of(ctx)
    cwd, project = click_ctx.meta.get("where", (None, None))
    return place_of(core, cwd, project)


@review.command("resolve")
@click.argument("item_id", type=int)
@click.argument("choice", type=click.Choice(["keep-existing", "replace", "keep-both", "accept", "dismiss"]))
@click.pass_context
def review_resolve(click_ctx: click.Context, item_id: int, choice: str) -> None:
    """Resolve one item: keep-existing / replace / keep-both for a contradiction, accept / dismiss for a proposal.

    \b
    Example:
      kenning memory review resolve 3 replace
    """
    ctx = click_ctx.find_object(CliContext)
    assert ctx is not None
    item = core_of(ctx).resolve_review(_place(click_ctx, ctx), item_id, choice)  # type: ignore[arg-type]
    click.echo(f"resolved #{item.id}: {choice}")


@review.command("accept-all")
@click.pass_context
def review_accept_all(click_ctx: click.Context) -> None:
    """Accept every waiting item in one batch (contradictions: keep both).

    Undo with `kenning memory review undo BATCH`.

    \b
    Example:
      kenning memory review accept-all
    """
    ctx = click_ctx.find_object(CliContext)
    assert ctx is not None
    batch, items = core_of(ctx).accept_all(_place(click_ctx, ctx))  # type: ignore[arg-type]
    click.echo(f"accepted {len(items)} item(s) as batch {batch}; undo with: kenning memory review undo {batch}")


@review.command("undo")
@click.argument("batch")
@click.pass_context
def review_undo(click_ctx: click.Context, batch: str) -> None:
    """Undo an accept-all batch.

    \b
    Example:
      kenning memory review undo b1a2b3c4
    """
    ctx = click_ctx.find_object(CliContext)
    assert ctx is not None
    items = core_of(ctx).undo_batch(_place(click_ctx, ctx), batch)  # type: ignore[arg-type]
    click.echo(f"undid batch {batch} ({len(items)} item(s) wait for review again)")


@click.group("decision")
def decision() -> None:
    """Decisions with their reasoning and outcome.

    \b
    Example:
      kenning memory decision record "Job queue" --decision "Use Redis streams" --reason "polling was slow"
      kenning memory decision list
    """


@decision.command("record")
@click.argument("title")
@click.option("--decision", "text", default="", help="The decision as one sentence (default: the title).")
@click.option("--reason", required=True, help="Why this was decided.")
@click.option("--rejected", default="", help="Alternatives turned down.")
@click.option("--confidence", type=click.Choice(["high", "medium", "low"]), default="high", show_default=True)
@click.option("--source-ref", default="", help="Citation: file, path:line, path:symbol or commit.")
@click.option("--area", default="", help="Area of the decision (e.g. auth, database).")
@where_options
@json_option
@pass_ctx
def decision_record(ctx: CliContext, title: str, text: str, reason: str, rejected: str, confidence: str,
                    source_ref: str, area: str, cwd: Path | None, project: str | None, as_json: bool) -> None:  # fmt: skip
    """Record a decision: a memory plus a decision doc.

    The same title replaces the reasoning and keeps the Outcome. With --area, the earlier
    decision of that area stops being current.

    \b
    Example:
      kenning memory decision record "Job queue" --decision "Use Redis streams for the job queue" \\
        --reason "polling was slow" --area queue
    """
    from kenning.core import notes
    from kenning.graph import facts
    from kenning.model import Origin

    core = core_of(ctx)
    place = place_of(core, cwd, project)
    # Through notes, so a decision with an area also closes the earlier one in the graph.
    recorded = notes.decision_record(core, place, text or title, area=area, reason=reason, rejected=rejected,
                                     title=title, origin=Origin.PERSON, source="cli", confidence=confidence,
                                     source_ref=source_ref)  # fmt: skip
    result = recorded.result
    if as_json:
        emit_json({"outcome": result.remembered.outcome,
                   "memory": result.remembered.memory.ref if result.remembered.memory else None,
                   "doc": result.doc.id if result.doc else None,
                   "fact": facts.as_dict(recorded.fact) if recorded.fact else None,
                   "closed": [facts.as_dict(f) for f in recorded.closed]})  # fmt: skip
        return
    if result.remembered.memory is not None:
        click.echo(f"{result.remembered.outcome}: {memory_line(result.remembered.memory)}")
    if result.doc is not None:
        click.echo(f"decision doc #{result.doc.id}: {result.doc.title}")
    for closed in recorded.closed:
        click.echo(f"no longer current: {facts.line(closed)}")


@decision.command("list")
@where_options
@json_option
@pass_ctx
def decision_list(ctx: CliContext, cwd: Path | None, project: str | None, as_json: bool) -> None:
    """List decision docs, newest first.

    \b
    Example:
      kenning memory decision list --json
    """
    core = core_of(ctx)
    docs = core.decision_docs(place_of(core, cwd, project))
    if as_json:
        emit_json([{"id": d.id, "title": d.title, "memory": d.memory_ref, "outcome": list(d.outcome),
                    "updated_at": to_iso(d.updated_at)} for d in docs])  # fmt: skip
        return
    if not docs:
        click.echo("no decisions recorded in this project")
    for d in docs:
        click.echo(f"#{d.id} {d.title} — {d.outcome[-1] if d.outcome else ''}")


@decision.command("show")
@click.argument("doc_id", type=int)
@json_option
@pass_ctx
def decision_show(ctx: CliContext, doc_id: int, as_json: bool) -> None:
    """Show a decision doc as you wrote it.

    \b
    Example:
      kenning memory decision show 4
    """
    core = core_of(ctx)
    doc = core.store.decision_doc_by_id(core.workspace, doc_id)
    if doc is None:
        raise NotFound(f"no decision doc #{doc_id}", fix="list them with: kenning memory decision list")
    if as_json:
        emit_json({"id": doc.id, "title": doc.title, "decision": doc.decision, "reason": doc.reason,
                   "rejected": doc.rejected, "confidence": doc.confidence, "source_ref": doc.source_ref,
                   "outcome": list(doc.outcome), "memory": doc.memory_ref, "area": doc.area})  # fmt: skip
        return
    click.echo(decisions.render(core.store, doc, for_agent=False))


@click.group("policy", invoke_without_command=True)
@where_options
@json_option
@click.pass_context
def policy(click_ctx: click.Context, cwd: Path | None, project: str | None, as_json: bool) -> None:
    """What this project keeps; each setting says where it comes from.

    Without a subcommand, shows the project's effective policy.

    \b
    Example:
      kenning memory policy
      kenning memory policy set preset decisions-and-lessons
    """
    click_ctx.meta["where"] = (cwd, project)
    if click_ctx.invoked_subcommand is not None:
        return
    ctx = click_ctx.find_object(CliContext)
    assert ctx is not None
    core = core_of(ctx)
    resolved = core.policy(place_of(core, cwd, project))
    if as_json:
        emit_json(resolved.as_dict())
        return
    for name, entry in resolved.as_dict().items():
        value = entry["value"]
        shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        click.echo(f"{name}: {shown or '(none)'}  [{entry['source']}]")


@policy.command("set")
@click.argument("setting", type=click.Choice(list(SETTINGS)))
@click.argument("value")
@click.option("--level", type=click.Choice(["project", "group", "workspace"]), default="project", show_default=True)
@click.pass_context
def policy_set(click_ctx: click.Context, setting: str, value: str, level: str) -> None:
    """Set one setting (applies from now on; kept memories stay).

    \b
    Example:
      kenning memory policy set preset decisions-and-lessons
      kenning memory policy set writers agents,apps --level workspace
      kenning memory policy set banned_words "acme-secret-project"
      kenning memory policy set capture off
    """
    ctx = click_ctx.find_object(CliContext)
    assert ctx is not None
    parsed = core_of(ctx).set_policy(_place(click_ctx, ctx), level, setting, value)  # type: ignore[arg-type]
    click.echo(f"{setting} = {parsed} at {level} level")
