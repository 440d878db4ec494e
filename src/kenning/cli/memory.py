"""Memory commands: remember, recall and get (top-level), and `kenning memory` list, history and
the curation verbs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from kenning.cli.common import core_of, json_option, place_of, where_options
from kenning.cli.context import CliContext, emit_json, pass_ctx
from kenning.clock import to_iso
from kenning.core.remember import RememberRequest, RememberResult
from kenning.core.render import hit_marks, lifecycle_marks, memory_dict, memory_line
from kenning.domain.lifecycle import quoted
from kenning.domain.write_rules import parse_trigger
from kenning.errors import Invalid
from kenning.model import Kind, Memory, Origin

if TYPE_CHECKING:
    from kenning.core.scopes import Place
    from kenning.core.service import Core
from kenning.quoting import neutral

KINDS = [k.value for k in Kind]


def _result_dict(result: RememberResult, ctx_now: object) -> dict[str, object]:
    now = ctx_now  # a datetime
    return {
        "outcome": result.outcome,
        "memory": memory_dict(result.memory, now) if result.memory else None,  # type: ignore[arg-type]
        "neighbours": [{"ref": m.ref, "text": m.text} for m in result.neighbours],
        "superseded": result.superseded,
        "retired": result.retired,
        "unplaced": result.unplaced,
        "review": result.review.id if result.review else None,
        "index": [m.ref for m in result.index],
        "warnings": result.warnings,
    }


def _say_result(result: RememberResult) -> None:
    if result.outcome == "stored" and result.memory:
        click.echo(f"stored {memory_line(result.memory)}")
        if result.memory.held:
            click.echo(f"  held: no session gets it until a person releases it (kenning memory release {result.memory.ref})")
    elif result.outcome == "strengthened" and result.memory:
        click.echo(f"already known; strengthened {result.memory.ref} (confidence {result.memory.confidence:.2f})")
    elif result.outcome == "held_for_review" and result.review:
        click.echo(f"held in Needs review (item {result.review.id}): it contradicts a firmer memory. See: kenning memory review")
    elif result.outcome == "index_full":
        click.echo("the index is full (25 pinned); nothing was added. Pass --unindex <ref> to make room:")
        for m in result.index:
            click.echo(f"  {memory_line(m)}")
    for ref in result.superseded:
        click.echo(f"  superseded {ref} (same slot)")
    for ref in result.retired:
        click.echo(f"  retired {ref}")
    for ref in result.unplaced:
        click.echo(f"  could not place {ref} (not in this project)")
    for m in result.neighbours:
        click.echo(f"  neighbour {memory_line(m, limit=160)}")
    for w in result.warnings:
        click.echo(f"  note: {w}")


@click.command("remember")
@click.argument("text")
@click.option("--kind", type=click.Choice(KINDS), default=None, help="Kind of memory (inferred from the text when left out).")
@click.option("--reason", default="", help="Why (a decision must carry one).")
@click.option("--rejected", default="", help="Alternatives turned down.")
@click.option("--subject", default="", help="Slot key (e.g. ui.theme); a later memory on the slot supersedes this one.")
@click.option("--when", "when", default=None, help='Lesson trigger: "shell:<regex>", "read:<glob>" or "edit:<glob>".')
@click.option("--source-ref", default="", help="Citation: a file, path:line, path:a-b, path:symbol or a commit.")
@click.option("--replaces", multiple=True, help="Ref this memory replaces (repeatable).")
@click.option("--index", "--pin", "index", is_flag=True, help="Pin into the project's index (at most 25).")
@click.option("--unindex", default="", help="Ref to take out of a full index.")
@click.option("--global", "global_", is_flag=True, help="A global memory: reaches every project.")
@click.option("--confidence", type=click.Choice(["high", "medium", "low"]), default=None, help="For decisions.")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--origin", type=click.Choice(["person", "app", "widget"]), default="person", show_default=True,
              help="Who writes it: you, or an integration (app) or widget writing through this command. "
              "An app's or widget's memory is kept only where policy keeps apps; a widget's is held until released.")
@click.option("--from", "from_", default="", metavar="NAME",
              help="The integration or widget writing (e.g. github-sync); required with --origin app|widget.")
@where_options
@json_option
@pass_ctx
def remember_cmd(ctx: CliContext, text: str, kind: str | None, reason: str, rejected: str, subject: str,
                 when: str | None, source_ref: str, replaces: tuple[str, ...], index: bool, unindex: str,
                 global_: bool, confidence: str | None, tags: tuple[str, ...], origin: str, from_: str,
                 cwd: Path | None, project: str | None, as_json: bool) -> None:  # fmt: skip
    """Remember one sentence.

    What you save here is yours (origin: person), unless an integration writes through this
    command with --origin app|widget --from NAME. A decision needs --reason; a state needs
    --subject (its slot); a lesson takes --when (the command or file it arrives on).

    \b
    Example:
      kenning remember "We use pnpm rather than npm because of workspaces" --kind decision \\
        --reason "npm hoists differently per package"
      kenning remember "Run the migrations before the seed script" --kind lesson --when "shell:seed"
      kenning memory policy set preset everything      # keep what apps and widgets write
      kenning remember "The nightly build failed on the flaky upload test" --origin widget --from ci-status
    """
    writer = Origin(origin)
    if writer is not Origin.PERSON and not from_.strip():
        raise Invalid(f"--origin {origin} needs the writer's name", fix=f"add --from NAME, e.g. --origin {origin} --from github-sync")
    core = core_of(ctx)
    place = place_of(core, cwd, project)
    request = RememberRequest(
        text=text, kind=Kind(kind) if kind else None, reason=reason, rejected=rejected, origin=writer,
        source=from_.strip()[:80] if writer is not Origin.PERSON else "cli", source_ref=source_ref, subject=subject, when=parse_trigger(when), replaces=replaces,
        index=index, unindex=unindex, global_=global_, confidence=confidence, tags=tags, branch=place.branch,
    )  # fmt: skip
    if request.kind is Kind.DECISION:
        result = core.record_decision(place, request).remembered
    else:
        result = core.remember(place, request)
    if as_json:
        emit_json(_result_dict(result, core.now()))
    else:
        _say_result(result)


@click.command("recall")
@click.argument("query")
@click.option("--as-of", default=None, help="Answer from what was believed then (a date means the end of that day, UTC).")
@click.option("--also", multiple=True, help="Another phrasing of the query (up to 3).")
@click.option("--count", "-n", default=8, show_default=True, type=int, help="How many results (1 to 25).")
@click.option("--workspaces", default=None, metavar="A,B",
              help="Recall in each of these workspaces (this machine's copies), results labelled by workspace.")
@click.option("--all-workspaces", is_flag=True,
              help="Recall in this workspace and every workspace this machine syncs with its team server.")
@where_options
@json_option
@pass_ctx
def recall_cmd(ctx: CliContext, query: str, as_of: str | None, also: tuple[str, ...], count: int,
               workspaces: str | None, all_workspaces: bool, cwd: Path | None, project: str | None,
               as_json: bool) -> None:  # fmt: skip
    """Search memory for a task, in your own words.

    Returns nothing when no memory covers enough of the query: "nothing found" is a real answer.
    With --workspaces (or --all-workspaces) each workspace answers from its copy on this
    machine (kept current by kenning sync), and each result names its workspace.

    \b
    Example:
      kenning recall "why do we pin TZ in the tests"
      kenning recall "deploy the worker" --as-of 2026-03-01 --json
      kenning recall "how do we deploy" --workspaces acme,personal
    """
    core = core_of(ctx)
    if workspaces is not None or all_workspaces:
        _recall_across(ctx, core, query, as_of, also, count, workspaces, all_workspaces, place_of(core, cwd, project), as_json)
        return
    result = core.recall(place_of(core, cwd, project), query, as_of=as_of, also=also, count=count)
    if as_json:
        emit_json({
            "query": query,
            "as_of": to_iso(result.as_of) if result.as_of else None,
            "results": [{**memory_dict(h.memory, core.now()), "score": h.score, "coverage": h.coverage, "evidence": h.evidence,
                         "weak": h.weak, "until": to_iso(h.until) if h.until else None} for h in result.hits],
        })  # fmt: skip
        return
    if not result.hits:
        click.echo("nothing in memory covers that query")
        return
    for hit in result.hits:
        click.echo(memory_line(hit.memory, marks=hit_marks(hit)))


def _recall_across(ctx: CliContext, core: Core, query: str, as_of: str | None, also: tuple[str, ...], count: int,
                   workspaces: str | None, all_workspaces: bool, place: Place, as_json: bool) -> None:  # fmt: skip
    from kenning.core.across import recall_across
    from kenning.sync import link

    if workspaces is not None and all_workspaces:
        raise Invalid("--workspaces and --all-workspaces go one at a time", fix="give one of them")
    synced = link.load(ctx.settings.home)
    known = [core.workspace, *(synced.workspaces if synced else ())]
    if all_workspaces:
        names = list(dict.fromkeys(known))
    else:
        names = list(dict.fromkeys(w.strip() for w in (workspaces or "").split(",") if w.strip()))
        unknown = [w for w in names if w not in known and not (core.store.list_scopes(w) or core.store.memory_scopes(w))]
        if not names or unknown:
            raise Invalid(f"no workspace {', '.join(unknown) or '(none given)'} on this machine",
                          fix=f"name workspaces this machine holds ({', '.join(dict.fromkeys(known))}), or run kenning sync")  # fmt: skip
    result = recall_across(core, place, names, query, as_of=as_of, also=also, count=count)
    if as_json:
        emit_json({
            "query": query, "workspaces": list(result.workspaces),
            "as_of": to_iso(result.as_of) if result.as_of else None,
            "results": [{"workspace": x.workspace, **memory_dict(x.hit.memory, core.now()), "score": x.hit.score,
                         "coverage": x.hit.coverage, "evidence": x.hit.evidence, "weak": x.hit.weak,
                         "until": to_iso(x.hit.until) if x.hit.until else None} for x in result.hits],
        })  # fmt: skip
        return
    if not result.hits:
        click.echo(f"nothing in memory covers that query (in {', '.join(result.workspaces)})")
        return
    for x in result.hits:
        click.echo(f"[{x.workspace}] {memory_line(x.hit.memory, marks=hit_marks(x.hit))}")


def _detail(core: object, memory: Memory) -> dict[str, object]:
    from kenning.core.service import Core

    assert isinstance(core, Core)
    hist = core.history(memory.ref)
    uses = core.store.uses(core.workspace, memory.ref)
    return {
        **memory_dict(memory, core.now()),
        "history": {
            "replaced": [{"ref": m.ref, "text": quoted(m), "until": to_iso(m.status_at) if m.status_at else None} for m in hist.replaced],
            "replaced_by": [{"ref": m.ref, "text": quoted(m)} for m in hist.replaced_by],
            "events": [{"at": to_iso(e.at), "event": e.event, "detail": neutral(e.detail), "other": e.other_ref} for e in hist.events],
        },
        "evidence": {
            "confirmations": memory.confirmations,
            "uses": memory.uses,
            "recalled": memory.recalled,
            "used_by_tools": sorted({u.tool for u in uses if u.tool}),
            "sessions": len({u.session for u in uses if u.session}),
        },
    }


@click.command("get")
@click.argument("refs", nargs=-1, required=True)
@json_option
@pass_ctx
def get_cmd(ctx: CliContext, refs: tuple[str, ...], as_json: bool) -> None:
    """Show memories by ref, with reason, citation, status, history and evidence.

    \b
    Example:
      kenning get m:7f3a2b1c
      kenning get m:7f3a2b1c m:0c4d9e21 --json
    """
    core = core_of(ctx)
    found = [core.get(r) for r in refs]
    details = [_detail(core, m) for m in found]
    if as_json:
        emit_json(details)
        return
    for d in details:
        click.echo(f"{d['ref']} [{d['kind']}] {d['text']}")
        for key in ("reason", "rejected", "trigger", "subject", "source_ref", "citation", "status", "confidence",
                    "origin", "origin_tool", "pinned", "hidden", "held", "protected", "created_at", "last_used_at", "uses"):  # fmt: skip
            if d.get(key) not in (None, "", False):
                click.echo(f"  {key}: {neutral(str(d[key]))}" if key not in ("reason", "rejected") else f"  {key}: {d[key]}")
        hist = d["history"]
        assert isinstance(hist, dict)
        for item in hist["replaced"]:
            click.echo(f"  replaced {item['ref']}: {item['text']}")
        for item in hist["replaced_by"]:
            click.echo(f"  replaced by {item['ref']}: {item['text']}")


@click.command("list")
@click.option("--offset", default=0, type=int, help="Skip this many (pages of 100).")
@click.option("--limit", default=100, type=int, show_default=True)
@click.option("--all", "include_inactive", is_flag=True, help="Include superseded and retired memories.")
@where_options
@json_option
@pass_ctx
def list_cmd(ctx: CliContext, offset: int, limit: int, include_inactive: bool, cwd: Path | None,
             project: str | None, as_json: bool) -> None:  # fmt: skip
    """List the project's memories, oldest first, marking resting and stale ones.

    \b
    Example:
      kenning memory list
      kenning memory list --all --json
    """
    core = core_of(ctx)
    memories = core.list_memories(place_of(core, cwd, project), offset=offset, limit=limit, include_inactive=include_inactive)
    if as_json:
        emit_json([memory_dict(m, core.now()) for m in memories])
        return
    if not memories:
        click.echo("no memories in this project yet")
    for m in memories:
        marks = lifecycle_marks(m, core.now())
        marks += [flag for flag in ("pinned", "hidden", "held", "protected") if getattr(m, flag)]
        if m.status.value != "active":
            marks.append(m.status.value)
        click.echo(memory_line(m, marks=marks))


@click.command("history")
@click.argument("ref")
@json_option
@pass_ctx
def history_cmd(ctx: CliContext, ref: str, as_json: bool) -> None:
    """What a memory replaced, what replaced it, and everything that happened to it.

    \b
    Example:
      kenning memory history m:7f3a2b1c
    """
    core = core_of(ctx)
    detail = _detail(core, core.get(ref))
    if as_json:
        emit_json(detail["history"])
        return
    hist = detail["history"]
    assert isinstance(hist, dict)
    click.echo(f"{detail['ref']} [{detail['status']}] {detail['text']}")
    for e in hist["events"]:
        other = f" {e['other']}" if e["other"] else ""
        click.echo(f"  {e['at'][:19]} {e['event']}{other} {e['detail']}".rstrip())


def _simple(name: str, method: str, help_text: str) -> click.Command:
    help_text += f"\n\n\b\nExample:\n  kenning memory {name} m:7f3a2b1c m:0c4d9e21"

    @click.command(name, help=help_text)
    @click.argument("refs", nargs=-1, required=True)
    @pass_ctx
    def run(ctx: CliContext, refs: tuple[str, ...]) -> None:
        core = core_of(ctx)
        for ref in refs:
            memory = getattr(core, method)(ref)
            click.echo(f"{name}: {memory_line(memory)}")

    return run


@click.command("retire")
@click.argument("refs", nargs=-1, required=True)
@click.option("--why", default="", help="Why it no longer holds.")
@pass_ctx
def retire_cmd(ctx: CliContext, refs: tuple[str, ...], why: str) -> None:
    """Retire memories (they stay stored; bring-back restores them).

    \b
    Example:
      kenning memory retire m:7f3a2b1c --why "we moved off Redis"
    """
    core = core_of(ctx)
    for ref in refs:
        click.echo(f"retired: {memory_line(core.retire(ref, why))}")


@click.command("protect")
@click.argument("refs", nargs=-1, required=True)
@click.option("--off", is_flag=True, help="Remove the protection.")
@pass_ctx
def protect_cmd(ctx: CliContext, refs: tuple[str, ...], off: bool) -> None:
    """Protect memories: retire-session and tidy never take them.

    \b
    Example:
      kenning memory protect m:7f3a2b1c
      kenning memory protect m:7f3a2b1c --off
    """
    core = core_of(ctx)
    for ref in refs:
        click.echo(f"{'unprotected' if off else 'protected'}: {memory_line(core.protect(ref, not off))}")


@click.command("retire-session")
@click.argument("session")
@click.option("--yes", is_flag=True, help="Retire them (without it, only shows what would be retired).")
@where_options
@json_option
@pass_ctx
def retire_session_cmd(ctx: CliContext, session: str, yes: bool, cwd: Path | None, project: str | None, as_json: bool) -> None:
    """Retire everything one session wrote, except pinned and protected memories.

    Shows what it would retire; --yes retires them.

    \b
    Example:
      kenning memory retire-session claude:9f1c2a7e --yes
    """
    core = core_of(ctx)
    outcome = core.retire_session(place_of(core, cwd, project), session, apply=yes)
    if as_json:
        emit_json({"session": session, "applied": yes, "retire": [m.ref for m in outcome.retire], "kept": [m.ref for m in outcome.kept]})
        return
    verb = "retired" if yes else "would retire"
    for m in outcome.retire:
        click.echo(f"{verb}: {memory_line(m)}")
    for m in outcome.kept:
        click.echo(f"kept (pinned or protected): {memory_line(m)}")
    if not yes and outcome.retire:
        click.echo(f"run again with --yes to retire these {len(outcome.retire)}")
    if not outcome.retire:
        click.echo("nothing to retire for that session")


pin_cmd = _simple("pin", "pin", "Pin memories atop the project's index (at most 25).")
unpin_cmd = _simple("unpin", "unpin", "Unpin memories.")
hide_cmd = _simple("hide", "hide", "Hide memories from every session (they stay stored).")
give_cmd = _simple("give", "give", "Give hidden memories to sessions again.")
hold_cmd = _simple("hold", "hold", "Hold memories back from every path until released.")
release_cmd = _simple("release", "release", "Release held memories (e.g. a widget's).")
bring_back_cmd = _simple("bring-back", "bring_back", "Bring retired or superseded memories back.")
