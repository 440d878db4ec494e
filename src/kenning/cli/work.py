"""Work commands: ``kenning work`` goal, open, progress, handoff and task, and
``kenning memory rules``."""

from __future__ import annotations

from pathlib import Path

import click

from kenning.cli.common import core_of, json_option, place_of, where_options
from kenning.cli.context import CliContext, emit_json, pass_ctx
from kenning.clock import to_iso
from kenning.context import card
from kenning.core import rules, work
from kenning.core.service import Core
from kenning.errors import Invalid


# ------------------------------------------------------------------------------- rules
@click.group("rules")
def rules_group() -> None:
    """Which memories your agents get.

    A rule only decides what is given out; it never removes.

    \b
    Example:
      kenning memory rules add unused --n 90
      kenning memory rules write "Never suggest force-pushing to main"
    """


@rules_group.command("list")
@where_options
@json_option
@pass_ctx
def rules_list(ctx: CliContext, cwd: Path | None, project: str | None, as_json: bool) -> None:
    """Rules for this project (and for all projects), with how many memories each leaves out.

    \b
    Example:
      kenning memory rules list --json
    """
    core = core_of(ctx)
    views = rules.listing(core, place_of(core, cwd, project))
    if as_json:
        emit_json([{"id": v.rule.id, "kind": v.rule.kind, "n": v.rule.n, "memory_kind": v.rule.memory_kind or None,
                    "for": v.rule.project or "all projects", "on": v.rule.enabled, "words": v.words,
                    "leaves_out": v.leaves_out} for v in views])  # fmt: skip
        return
    if not views:
        click.echo("No rules. Add one: kenning memory rules add unused|proven|shipped|undone, or kenning memory rules write \"…\"")
    for v in views:
        state = "on" if v.rule.enabled else "off"
        where = v.rule.project or "all projects"
        count = f" · leaves out {v.leaves_out}" if v.rule.kind != "sentence" else ""
        click.echo(f"#{v.rule.id} [{state}] {v.words} · for {where}{count}")


def _for(core: Core, cwd: Path | None, project: str | None, all_projects: bool) -> str:
    return "" if all_projects else place_of(core, cwd, project).project


@rules_group.command("add")
@click.argument("kind", type=click.Choice(list(rules.READY)))
@click.option("--n", "n", type=int, default=None, help="Days (unused) or sessions (proven).")
@click.option("--kind", "memory_kind", default="", help="For 'unused': only this memory kind.")
@click.option("--all-projects", is_flag=True, help="Hold for all projects (default: this project).")
@where_options
@pass_ctx
def rules_add(ctx: CliContext, kind: str, n: int | None, memory_kind: str, all_projects: bool,
              cwd: Path | None, project: str | None) -> None:  # fmt: skip
    """Add a ready rule: unused (60 days), proven (2 sessions), shipped, undone.

    \b
    Example:
      kenning memory rules add proven --n 3 --all-projects
    """
    core = core_of(ctx)
    rule_id = rules.add_ready(core, kind, n=n, project=_for(core, cwd, project, all_projects), memory_kind=memory_kind)
    click.echo(f"rule #{rule_id} added")


@rules_group.command("write")
@click.argument("sentence")
@click.option("--all-projects", is_flag=True, help="Hold for all projects (default: this project).")
@where_options
@pass_ctx
def rules_write(ctx: CliContext, sentence: str, all_projects: bool, cwd: Path | None, project: str | None) -> None:
    """Add your own rule as a sentence; agents are told it under "Rules".

    \b
    Example:
      kenning memory rules write "Ask before adding a dependency"
    """
    core = core_of(ctx)
    rule_id = rules.add_sentence(core, sentence, project=_for(core, cwd, project, all_projects))
    click.echo(f"rule #{rule_id} added")


@rules_group.command("on")
@click.argument("rule_id", type=int)
@pass_ctx
def rules_on(ctx: CliContext, rule_id: int) -> None:
    """Turn a rule on.

    \b
    Example:
      kenning memory rules on 2
    """
    rules.set_enabled(core_of(ctx), rule_id, True)
    click.echo(f"rule #{rule_id} on")


@rules_group.command("off")
@click.argument("rule_id", type=int)
@pass_ctx
def rules_off(ctx: CliContext, rule_id: int) -> None:
    """Turn a rule off: what it left out is given out again.

    \b
    Example:
      kenning memory rules off 2
    """
    rules.set_enabled(core_of(ctx), rule_id, False)
    click.echo(f"rule #{rule_id} off")


@rules_group.command("set")
@click.argument("rule_id", type=int)
@click.argument("n", type=int)
@pass_ctx
def rules_set(ctx: CliContext, rule_id: int, n: int) -> None:
    """Change a ready rule's N (days or sessions).

    \b
    Example:
      kenning memory rules set 2 30
    """
    rules.set_n(core_of(ctx), rule_id, n)
    click.echo(f"rule #{rule_id} now N={n}")


@rules_group.command("remove")
@click.argument("rule_id", type=int)
@pass_ctx
def rules_remove(ctx: CliContext, rule_id: int) -> None:
    """Remove a rule (memories are untouched).

    \b
    Example:
      kenning memory rules remove 2
    """
    rules.remove(core_of(ctx), rule_id)
    click.echo(f"rule #{rule_id} removed")


# ------------------------------------------------------------------------------- tasks
@click.group("task")
def task_group() -> None:
    """Tasks a session can be started from (it gets a card instead of the brief).

    \b
    Example:
      kenning work task add "Fix the invoice rounding" --goal "totals match the ledger"
      kenning work task start 1
    """


@task_group.command("add")
@click.argument("title")
@click.option("--goal", default="", help="The note: what the run should achieve.")
@where_options
@pass_ctx
def task_add(ctx: CliContext, title: str, goal: str, cwd: Path | None, project: str | None) -> None:
    """Add a task to this project.

    \b
    Example:
      kenning work task add "Fix the invoice rounding" --goal "totals match the ledger"
    """
    core = core_of(ctx)
    task_id = work.add_task(core, place_of(core, cwd, project), title, goal)
    click.echo(f"task #{task_id} added; start a session for it with: kenning work task start {task_id}")


@task_group.command("start")
@click.argument("task_id", type=int)
@where_options
@json_option
@pass_ctx
def task_start(ctx: CliContext, task_id: int, cwd: Path | None, project: str | None, as_json: bool) -> None:
    """Start a task: print its card; the next agent session opened in its folder gets it too.

    \b
    Example:
      kenning work task start 1
    """
    core = core_of(ctx)
    task = work.start_task(core, task_id, cwd=str(cwd) if cwd else "")
    place = core.place(Path(task.cwd)) if task.cwd and Path(task.cwd).is_dir() else place_of(core, cwd, project)
    text = card.build(core, place, task)
    if as_json:
        emit_json({"id": task.id, "title": task.title, "goal": task.goal, "cwd": task.cwd, "card": text})
    else:
        click.echo(text)


@task_group.command("list")
@click.option("--all", "include_done", is_flag=True, help="Include done tasks.")
@where_options
@json_option
@pass_ctx
def task_list(ctx: CliContext, include_done: bool, cwd: Path | None, project: str | None, as_json: bool) -> None:
    """This project's tasks.

    \b
    Example:
      kenning work task list --all
    """
    core = core_of(ctx)
    found = work.tasks(core, place_of(core, cwd, project), include_done=include_done)
    if as_json:
        emit_json([{"id": t.id, "title": t.title, "goal": t.goal, "status": t.status, "branch": t.branch,
                    "created_at": to_iso(t.created_at)} for t in found])  # fmt: skip
        return
    for t in found:
        click.echo(f"#{t.id} [{t.status}] {t.title}" + (f" — {t.goal}" if t.goal else ""))


@task_group.command("done")
@click.argument("task_id", type=int)
@pass_ctx
def task_done(ctx: CliContext, task_id: int) -> None:
    """Mark a task done.

    \b
    Example:
      kenning work task done 1
    """
    work.finish_task(core_of(ctx), task_id)
    click.echo(f"task #{task_id} done")


# ------------------------------------------------------------------- goal, open, progress
@click.command("goal")
@click.argument("text", required=False)
@click.option("--branch", default=None, help="Branch (default: the folder's current branch).")
@click.option("--bring-back", is_flag=True,
              help="Give back the goal and open items retired when the branch landed or was removed.")
@where_options
@json_option
@pass_ctx
def goal_cmd(ctx: CliContext, text: str | None, branch: str | None, bring_back: bool, cwd: Path | None,
             project: str | None, as_json: bool) -> None:  # fmt: skip
    """Show the branch's goal, or write it down.

    \b
    Example:
      kenning work goal "Move invoices to the new rounding rules"
      kenning work goal --json
      kenning work goal --branch feature/cart --bring-back
    """
    core = core_of(ctx)
    place = place_of(core, cwd, project)
    if bring_back:
        back, items = work.bring_back(core, place, branch)
        if not as_json:
            click.echo(f"brought back {'the goal and ' if back else ''}{items} open item(s)")
    if text:
        work.set_goal(core, place, text, branch=branch)
    goal = work.goal_shown(core, place, branch)
    if as_json:
        emit_json({"branch": branch or place.branch, "goal": goal or None})
    else:
        click.echo(goal or "No goal written down for this branch. Write one: kenning work goal \"…\"")


@click.command("open")
@click.argument("text", required=False)
@click.option("--done", "done_id", type=int, default=None, help="Close the open item with this number.")
@click.option("--branch", default=None, help="Branch (default: the folder's current branch).")
@where_options
@json_option
@pass_ctx
def open_cmd(ctx: CliContext, text: str | None, done_id: int | None, branch: str | None, cwd: Path | None,
             project: str | None, as_json: bool) -> None:  # fmt: skip
    """List the branch's open items, add one, or close one with --done N.

    \b
    Example:
      kenning work open "check the refund path"
      kenning work open --done 1
    """
    core = core_of(ctx)
    place = place_of(core, cwd, project)
    if text and done_id is not None:
        raise Invalid("give an item to add or --done N, not both", fix="run the command twice")
    if text:
        work.add_open_item(core, place, text, by="person", branch=branch)
    if done_id is not None:
        work.close_open_item(core, place, done_id)
    items = work.open_items(core, place, branch)
    if as_json:
        emit_json(items)
        return
    click.echo("\n".join(items) if items else "Nothing open on this branch.")


@click.command("progress")
@click.argument("summary", required=False)
@click.option("--decision", "decisions", multiple=True, help="A decision made (repeatable).")
@click.option("--open", "open_", multiple=True, help="An open item left (repeatable).")
@click.option("--goal", default="", help="The branch's goal (not on trunk branches).")
@where_options
@json_option
@pass_ctx
def progress_cmd(ctx: CliContext, summary: str | None, decisions: tuple[str, ...], open_: tuple[str, ...],
                 goal: str, cwd: Path | None, project: str | None, as_json: bool) -> None:  # fmt: skip
    """Log progress on the branch (trunk keeps the latest 20), or list it.

    \b
    Example:
      kenning work progress "Rounding moved to the ledger module" --open "refunds still round twice"
    """
    core = core_of(ctx)
    place = place_of(core, cwd, project)
    if summary:
        work.log_progress(core, place, summary, decisions=list(decisions), open_items_=list(open_),
                          goal_text=goal, by="person")  # fmt: skip
    entries = core.stores.work.progress(core.workspace, place.project, place.branch)
    if as_json:
        emit_json([{"at": to_iso(e.at), "summary": e.summary, "decisions": list(e.decisions), "by": e.by}
                   for e in entries])  # fmt: skip
        return
    for e in entries:
        click.echo(f"{to_iso(e.at)[:16]} {e.summary}" + (f" (decided: {'; '.join(e.decisions)})" if e.decisions else ""))


@click.command("handoff")
@click.argument("note")
@click.option("--to", "to", default="", help="Only for this tool (claude-code, codex, gemini) or session.")
@where_options
@pass_ctx
def handoff_cmd(ctx: CliContext, note: str, to: str, cwd: Path | None, project: str | None) -> None:
    """Leave a note for the other agents in this project (each is shown it once).

    \b
    Example:
      kenning work handoff "I am changing the schema; do not run migrations" --to codex
    """
    core = core_of(ctx)
    note_id = work.handoff(core, place_of(core, cwd, project), note, to=to, origin="person", from_tool="person")
    click.echo(f"note #{note_id} left")
