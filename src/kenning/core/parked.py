"""Parked work: one ``state`` memory per branch with uncommitted work, on the slot
``branch.<repo>.<branch>.state``, kept by kenning itself from what git says.

Refreshed when kenning starts (and by ``kenning refresh``). A new reading supersedes the last;
the same reading again changes nothing, so work left untouched fades with the 14-day shelf
life instead of being kept alive by every start. When the work is committed the state is
retired, and when a branch has landed or was removed its state, goal and open items are
retired (bring-back-able). A detached HEAD has no branch, so no slot.

These memories are written straight to the store, not through ``remember``: the write rules
there exist to stop agents from saving git snapshots, and this is kenning reading git itself.
The project's policy still decides whether ``state`` memories are kept at all.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kenning import githistory, gitinfo
from kenning.clock import to_iso
from kenning.core.placements import carry_over
from kenning.errors import Refused
from kenning.model import Kind, Memory, MemoryEvent, Origin, Status
from kenning.redacted import redacted
from kenning.store.protocol import MemoryFilter

if TYPE_CHECKING:
    from kenning.core.service import Core

TOOL = "kenning"
CONFIDENCE = 0.9  # read from git, not guessed
MAX_FILES_NAMED = 5


@dataclass
class ParkedReport:
    project: str
    written: list[str] = field(default_factory=list)  # refs of new state memories
    unchanged: list[str] = field(default_factory=list)  # branches whose reading did not move
    retired: dict[str, str] = field(default_factory=dict)  # ref -> why
    # branch -> what of its goal and open items was retired, and why
    retired_work: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # why something was not done


def slot_for(repo: str, branch: str) -> str:
    return f"branch.{repo}.{branch}.state"


def branch_of_slot(repo: str, subject: str) -> str | None:
    prefix, suffix = f"branch.{repo}.", ".state"
    if subject.startswith(prefix) and subject.endswith(suffix) and len(subject) > len(prefix) + len(suffix):
        return subject[len(prefix) : -len(suffix)]
    return None


def describe(repo: str, state: gitinfo.WorkState) -> str:
    paths = [line[3:] for line in state.changes]
    named = ", ".join(paths[:MAX_FILES_NAMED])
    more = f" and {len(paths) - MAX_FILES_NAMED} more" if len(paths) > MAX_FILES_NAMED else ""
    files = "file" if len(paths) == 1 else "files"
    return f"Branch {state.branch} of {repo} has uncommitted work in {len(paths)} {files}: {named}{more}."


def reading_of(state: gitinfo.WorkState) -> str:
    """A digest of the work itself (status lines plus each changed file's size and mtime),
    so an edit to an already-changed file is a new reading."""
    parts = []
    for line in sorted(state.changes):
        path = state.worktree / line[3:].split(" -> ")[-1]
        try:
            info = path.stat()
            parts.append(f"{line}\0{info.st_size}\0{info.st_mtime_ns}")
        except OSError:
            parts.append(line)
    return hashlib.blake2b("\n".join(parts).encode("utf-8", "replace"), digest_size=12).hexdigest()


def _meta_key(core: Core, project: str, branch: str) -> str:
    return f"parked.reading.{core.workspace}.{project}.{branch}"


def refresh(core: Core, cwd: Path | str) -> ParkedReport:
    """Bring the project's parked-work memories in line with git. Never raises on odd folders."""
    gitinfo.clear_cache()  # a start must see the repository as it is now
    info = gitinfo.project_for(cwd)
    report = ParkedReport(info.key)
    if info.kind != "project" or info.root is None:
        report.skipped.append("not a git repository")
        return report
    place = core.place(info.root)
    try:
        from kenning.core import policy as policy_mod

        policy_mod.check_write(core.policy(place), kind=Kind.STATE, origin=Origin.AUTOMATION,
                               origin_tool=TOOL, texts=[])  # fmt: skip
    except Refused as refusal:
        report.skipped.append(f"policy keeps no kenning state memories: {refusal.message}")
        return report
    store, now = core.store, core.now()
    dirty = {s.branch: s for s in gitinfo.dirty_worktrees(info.root) if s.branch != gitinfo.DETACHED}
    for branch, state in sorted(dirty.items()):
        slot = slot_for(info.name, branch)
        reading = reading_of(state)
        current = [m for m in store.by_subject(core.workspace, [place.project], slot) if m.kind is Kind.STATE]
        if current and store.get_meta(core.workspace, _meta_key(core, place.project, branch)) == reading:
            report.unchanged.append(branch)
            continue
        memory = Memory(
            ref=_fresh_ref(core), workspace=core.workspace, scope=place.project, text=redacted(describe(info.name, state)),
            kind=Kind.STATE, confidence=CONFIDENCE, origin=Origin.AUTOMATION, created_at=now, confirmed_at=now,
            reason=redacted(f"Read from git status in {state.worktree}."), subject=slot, origin_tool=TOOL, branch=branch,
        )  # fmt: skip
        with store.transaction():
            store.insert(memory)
            store.add_event(core.workspace, MemoryEvent(memory.ref, now, "created", TOOL))
            for old in current:
                store.update(old.evolve(status=Status.SUPERSEDED, status_at=now, status_note=memory.ref))
                store.add_event(core.workspace, MemoryEvent(old.ref, now, "superseded", "", memory.ref))
                store.add_event(core.workspace, MemoryEvent(memory.ref, now, "replaced", "", old.ref))
                carry_over(store, old, memory.ref, now)
            store.set_meta(core.workspace, _meta_key(core, place.project, branch), reading)
        report.written.append(memory.ref)
    _retire_landed(core, info, place.project, set(dirty), report)
    return report


def _retire_landed(core: Core, info: gitinfo.ProjectInfo, project: str, dirty: set[str], report: ParkedReport) -> None:
    """Retire the state of every branch whose work is no longer uncommitted: it landed, it
    was removed, or it was committed (or stashed: the state said "has uncommitted work"). The goal and
    open items of a branch that landed or was removed are retired with it."""
    assert info.root is not None
    root = info.root
    known: dict[str, object] = {}

    def gone(branch: str) -> str:
        """Why the branch's work is over ("" when it goes on), read from git once per branch."""
        if "main" not in known:
            known["main"], known["local"] = gitinfo.default_branch(root), set(gitinfo.branches(root))
        main, local = known["main"], known["local"]
        assert isinstance(local, set)
        if branch == main:
            return ""
        if branch not in local:
            return f"branch {branch} was removed"
        if githistory.branch_landed(root, branch, str(main)):
            return f"branch {branch} landed on {main}"
        return ""

    states = core.store.find(MemoryFilter(core.workspace, [project], statuses=(Status.ACTIVE,), kinds=(Kind.STATE,)))
    for memory in states:
        branch = branch_of_slot(info.name, memory.subject)
        if branch is None or branch in dirty:
            continue
        why = gone(branch)
        if not why:  # committed (or stashed), not landed; on the main branch that is landing
            main_branch = branch == known["main"]
            why = f"the work on {branch} was committed" if main_branch else f"branch {branch} has no uncommitted work any more"
        core.retire(memory.ref, why)
        report.retired[memory.ref] = why
    from kenning.core import work

    hooks = core.stores.work
    for branch in hooks.work_branches(core.workspace, project):
        if branch in dirty or work.is_trunk(branch):
            continue
        why = gone(branch)
        if not why:
            continue
        goal, items = hooks.retire_branch_work(core.workspace, project, branch, why, core.now())
        parts = (["its goal"] if goal else []) + ([f"{items} open item{'s' if items != 1 else ''}"] if items else [])
        report.retired_work[branch] = f"{' and '.join(parts)} ({why})"


def _fresh_ref(core: Core) -> str:
    from kenning.ids import new_ref

    while True:
        ref = new_ref()
        if core.store.get(core.workspace, ref) is None:
            return ref


def retire_stale_once(core: Core) -> list[str]:
    """Once per workspace: retire every ``state`` memory already past its 14-day shelf life
    (they reach no session anyway; this clears them from the Memory list). Later ones stay
    active and simply fade, as the shelf-life rule says."""
    from kenning.domain.lifecycle import is_stale

    key = f"parked.stale_retired.{core.workspace}"
    if core.store.get_meta(core.workspace, key):
        return []
    now, retired = core.now(), []
    for memory in core.store.iter_all(core.workspace):
        if memory.kind is Kind.STATE and memory.status is Status.ACTIVE and is_stale(memory, now):
            core.retire(memory.ref, "past its 14-day shelf life when kenning first tidied this workspace")
            retired.append(memory.ref)
    core.store.set_meta(core.workspace, key, to_iso(now))
    return retired


def at_start(core: Core, cwd: Path | str | None = None) -> ParkedReport | None:
    """What a session start (hook or MCP server) runs, each part best effort, never raising:
    the one-time stale-state tidy, parked work, the project's citation states, and (at most
    hourly) decision outcomes."""
    from kenning.core import citations, outcomes

    folder = cwd if cwd is not None else os.getcwd()
    report: ParkedReport | None = None
    retire_stale_once(core)
    with contextlib.suppress(gitinfo.GitError, OSError):
        report = refresh(core, folder)
    if report is not None and report.project != gitinfo.PERSONAL_KEY:
        with contextlib.suppress(OSError):
            citations.check_all(core, report.project)
    outcomes.maybe_check_outcomes(core, folder)
    return report
