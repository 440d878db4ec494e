"""Commands of the knowledge graph and notes (``kenning graph``: add, query, timeline, end,
extract, diary, value) and of picking up work (``kenning sessions``: wake-up, resume, escalate)."""

from __future__ import annotations

from pathlib import Path

import click

from kenning.cli.common import core_of, json_option, place_of, where_options
from kenning.cli.context import CliContext, emit_json, pass_ctx
from kenning.context import resume as resume_mod
from kenning.context import wakeup
from kenning.core import escalate as escalate_mod
from kenning.core import notes
from kenning.graph import extract, facts


@click.group("kg")
def kg() -> None:
    """The knowledge graph: facts subject -> predicate -> object, each valid from a time.

    \b
    Example:
      kenning graph add shop uses postgres
    """


@kg.command("add")
@click.argument("subject")
@click.argument("predicate")
@click.argument("obj", metavar="OBJECT")
@click.option("--text", "as_text", is_flag=True, help="The object is a sentence, not a named thing.")
@click.option("--area", default="", help="A later fact in the same area closes this one (decisions).")
@click.option("--replace", is_flag=True, help="Close the subject's current value(s) of this predicate.")
@click.option("--from", "valid_from", default=None, help="When it became true (ISO time; default now).")
@click.option("--confidence", type=float, default=1.0, show_default=True)
@where_options
@json_option
@pass_ctx
def kg_add(ctx: CliContext, subject: str, predicate: str, obj: str, as_text: bool, area: str, replace: bool,
           valid_from: str | None, confidence: float, cwd: Path | None, project: str | None, as_json: bool) -> None:
    """Add a fact.

    Nothing is closed unless --replace, --area or a single-valued predicate (status, version,
    owner, ...) says so; a fact already current is not added again.

    \b
    Example:
      kenning graph add shop uses postgres
      kenning graph add shop deploys-to "fly.io, two regions" --text --replace
    """
    core = core_of(ctx)
    place = place_of(core, cwd, project)
    result = facts.add(core.stores.graph, core.clock, place.workspace, subject, predicate, obj, project=place.project,
                       object_kind="text" if as_text else "entity", area=area, valid_from=valid_from,
                       confidence=confidence, origin="asserted", person="cli", replace=replace)
    if as_json:
        emit_json({"added": result.added, "fact": facts.as_dict(result.fact), "closed": [f"f:{i}" for i in result.closed]})
        return
    click.echo(("added " if result.added else "already known ") + facts.line(result.fact))
    for fid in result.closed:
        click.echo(f"closed f:{fid}")


@kg.command("query")
@click.argument("entity")
@click.option("--predicate", default="", help="Only this predicate.")
@click.option("--as-of", "as_of", default=None, help="What held at this date or time (a date = end of day, UTC).")
@click.option("--direction", type=click.Choice(facts.DIRECTIONS), default="both", show_default=True)
@click.option("--limit", type=click.IntRange(1, 10_000), default=200, show_default=True)
@json_option
@pass_ctx
def kg_query(ctx: CliContext, entity: str, predicate: str, as_of: str | None, direction: str, limit: int,
             as_json: bool) -> None:
    """Facts about ENTITY, newest first (ended ones too, unless --as-of).

    \b
    Example:
      kenning graph query shop --predicate uses --as-of 2026-03-01
    """
    core = core_of(ctx)
    rows = facts.query(core.stores.graph, core.workspace, entity, predicate=predicate, as_of=as_of, direction=direction,
                       limit=limit)
    if as_json:
        emit_json([facts.as_dict(f) for f in rows])
        return
    if not rows:
        click.echo(f"no facts about {entity}" + (f" as of {as_of}" if as_of else ""))
    for f in rows:
        click.echo(facts.line(f))


@kg.command("timeline")
@click.argument("entity")
@json_option
@pass_ctx
def kg_timeline(ctx: CliContext, entity: str, as_json: bool) -> None:
    """Every fact about ENTITY, oldest first, with when each held.

    \b
    Example:
      kenning graph timeline shop
    """
    core = core_of(ctx)
    rows = facts.timeline(core.stores.graph, core.workspace, entity)
    if as_json:
        emit_json([facts.as_dict(f) for f in rows])
        return
    for f in rows:
        click.echo(facts.line(f))


@kg.command("end")
@click.argument("fact_id")
@click.option("--at", "when", default=None, help="When it stopped being true (ISO time; default now).")
@pass_ctx
def kg_end(ctx: CliContext, fact_id: str, when: str | None) -> None:
    """End a wrong or outdated fact (it stays in the timeline).

    \b
    Example:
      kenning graph end f:12 --at 2026-03-01
    """
    core = core_of(ctx)
    click.echo("ended " + facts.line(facts.end(core.stores.graph, core.clock, core.workspace, facts.parse_fact_ref(fact_id), when)))


@kg.command("extract")
@where_options
@pass_ctx
def kg_extract(ctx: CliContext, cwd: Path | None, project: str | None) -> None:
    """Find facts in captured sessions not looked at yet, and give the graph this project's
    decisions recorded by other paths.

    Sync normally does this.

    \b
    Example:
      kenning graph extract
    """
    core = core_of(ctx)
    found = extract.extract_pending(core.stores, core.workspace, core.clock)
    found += notes.graph_decisions(core, place_of(core, cwd, project))
    click.echo(f"{found} new facts")


@click.group("diary")
def diary() -> None:
    """An agent's dated diary entries for this project.

    \b
    Example:
      kenning graph diary write "Tried the streaming parser; too slow on big files"
      kenning graph diary read --since 2026-03-01
    """


@diary.command("write")
@click.argument("text")
@click.option("--agent", default="", help="Whose diary (default: yours).")
@where_options
@json_option
@pass_ctx
def diary_write(ctx: CliContext, text: str, agent: str, cwd: Path | None, project: str | None,
                as_json: bool) -> None:
    """Write a dated diary entry.

    \b
    Example:
      kenning graph diary write "Tried the streaming parser; too slow on big files"
    """
    core = core_of(ctx)
    entry = notes.diary_write(core, place_of(core, cwd, project), text, agent=agent)
    if as_json:
        emit_json(entry)
    else:
        click.echo(f"#{entry['id']} {entry['at'][:16].replace('T', ' ')}")


@diary.command("read")
@click.option("--agent", default="")
@click.option("--since", default="", help="A date or time.")
@click.option("--limit", type=click.IntRange(1, 500), default=20, show_default=True)
@where_options
@json_option
@pass_ctx
def diary_read(ctx: CliContext, agent: str, since: str, limit: int, cwd: Path | None, project: str | None,
               as_json: bool) -> None:
    """Read diary entries, newest first.

    \b
    Example:
      kenning graph diary read --since 2026-03-01 --json
    """
    core = core_of(ctx)
    entries = notes.diary_read(core, place_of(core, cwd, project), agent=agent, since=since, limit=limit)
    if as_json:
        emit_json(entries)
        return
    for e in entries:
        click.echo(f"{e['at'][:16].replace('T', ' ')} {e['agent'] or '-'}: {e['text']}")


@click.group("value")
def value() -> None:
    """Small named values per project (deploy target, staging URL, ...).

    \b
    Example:
      kenning graph value set staging-url https://staging.shop.example
      kenning graph value get staging-url
    """


@value.command("set")
@click.argument("key")
@click.argument("text", metavar="VALUE")
@where_options
@pass_ctx
def value_set(ctx: CliContext, key: str, text: str, cwd: Path | None, project: str | None) -> None:
    """Set a named value for this project.

    \b
    Example:
      kenning graph value set staging-url https://staging.shop.example
    """
    core = core_of(ctx)
    row = notes.set_value(core, place_of(core, cwd, project), key, text)
    click.echo(f"{row['key']} = {row['value']}")


@value.command("get")
@click.argument("key", required=False)
@where_options
@json_option
@pass_ctx
def value_get(ctx: CliContext, key: str | None, cwd: Path | None, project: str | None, as_json: bool) -> None:
    """Print one value (or every value, without KEY).

    \b
    Example:
      kenning graph value get staging-url
    """
    core = core_of(ctx)
    place = place_of(core, cwd, project)
    rows = [notes.get_value(core, place, key)] if key else notes.list_values(core, place)
    if as_json:
        emit_json(rows[0] if key else rows)
        return
    for r in rows:
        click.echo(r["value"] if key else f"{r['key']} = {r['value']}")


@click.command("wake-up")
@where_options
@json_option
@pass_ctx
def wake_up(ctx: CliContext, cwd: Path | None, project: str | None, as_json: bool) -> None:
    """What stays true here: identity, decisions, top past-session lines, current facts.

    \b
    Example:
      kenning sessions wake-up --cwd ~/src/shop
    """
    core = core_of(ctx)
    place = place_of(core, cwd, project)
    notes.graph_decisions(core, place)
    bundle = wakeup.build(core.stores, ctx.settings, place)
    if as_json:
        emit_json({"text": bundle.render(), "identity": bundle.identity, "decisions": bundle.decisions,
                   "chunks": bundle.chunks, "facts": bundle.facts})
        return
    click.echo(bundle.render())


@click.command("resume")
@click.argument("session", required=False, default="")
@click.option("--transcript", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="Read this transcript file instead of a captured session.")
@where_options
@json_option
@pass_ctx
def resume(ctx: CliContext, session: str, transcript: Path | None, cwd: Path | None, project: str | None,
           as_json: bool) -> None:
    """Where the last work in this project and branch stands (or SESSION's).

    SESSION is an id, its first 8 or more characters, or `last`.

    \b
    Example:
      kenning sessions resume
      kenning sessions resume 9f1c2a7e --json
    """
    if transcript is not None:
        state = resume_mod.from_transcript(transcript)
    else:
        core = core_of(ctx)
        state = resume_mod.resume(core.stores.capture, place_of(core, cwd, project), session)
    if as_json:
        emit_json(state.to_dict())
    else:
        click.echo(resume_mod.render(state))


@click.command("escalate")
@click.argument("session")
@json_option
@pass_ctx
def escalate(ctx: CliContext, session: str, as_json: bool) -> None:
    """Turn a captured session's decisions, your corrections and its outcome into facts.

    SESSION is an id, its first 8 or more characters, or `last`.

    \b
    Example:
      kenning sessions escalate 9f1c2a7e
    """
    core = core_of(ctx)
    result = escalate_mod.escalate(core, session)
    if as_json:
        emit_json(result.to_dict())
        return
    click.echo(f"{len(result.added)} new facts from {result.session} ({result.extracted} extracted)")
    for a in result.added:
        click.echo(facts.line(a.fact, dates=False))
