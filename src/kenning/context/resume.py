"""Resume: the state of the last piece of work in this project and branch, and how it reads.

The state comes from the session's transcript (:mod:`kenning.capture.workstate`) or, for the
tools whose transcripts are not read there, from its captured turns; the files changed come
from the transcript's edits and from git.
"""

from __future__ import annotations

from pathlib import Path

from kenning.capture import lookup
from kenning.capture.workstate import WorkState, from_transcript, from_turns
from kenning.core.scopes import Place
from kenning.errors import NotFound
from kenning.quoting import as_data, neutral
from kenning.store.protocol import CaptureStore, StoredSession

__all__ = ["WorkState", "find_session", "from_transcript", "render", "resume"]


def find_session(store: CaptureStore, place: Place, session: str = "") -> StoredSession:
    """The named session (see :mod:`kenning.capture.lookup`), or without a name the last one of
    this project and branch (else of this project)."""
    if session:
        return lookup.find_session(store, place.workspace, session)
    for branch in ([place.branch] if place.branch else []) + [""]:
        found = store.newest_session(place.workspace, place.project, branch)
        if found is not None:
            return found
    raise NotFound(f"no captured session for {place.name or place.project}",
                   fix="run `kenning sessions sync` to capture this project's transcripts, or name a session")


def _git_changes(root: Path | None, since: str) -> list[str]:
    if root is None or not (root / ".git").exists():
        return []
    from kenning.gitinfo import run_git

    changed: list[str] = []
    try:
        status = run_git(root, "status", "--porcelain", check=False).splitlines()
        changed += [line[3:].split(" -> ")[-1].strip() for line in status if len(line) > 3]
        if since:
            log = run_git(root, "log", f"--since={since}", "--name-only", "--format=", check=False)
            changed += [x.strip() for x in log.splitlines() if x.strip()]
    except Exception:  # git missing or broken: the transcript still says what changed
        return []
    return list(dict.fromkeys(changed))


def resume(store: CaptureStore, place: Place, session: str = "") -> WorkState:
    """The last piece of work in ``place`` (its project and branch), or a named session."""
    row = find_session(store, place, session)
    last = store.last_turn(place.workspace, row.id)
    path = Path(last.source) if last else None
    if path is not None and path.is_file() and row.tool in ("claude-code", "codex"):
        state = from_transcript(path, row.tool)
    else:
        state = WorkState(tool=row.tool, started=row.first_at, ended=row.last_at)
        from_turns(store.turns(place.workspace, row.id), state)
    state.session, state.project = row.id, row.project
    state.branch = state.branch or row.branch
    state.files_git = _git_changes(place.root, state.started)
    return state


def render(state: WorkState) -> str:
    """The state as text. What the transcript said is quoted as data: a resumed session reads
    the last one's words, it does not take orders from them."""
    lines = [f"Last work: {neutral(state.session)} ({neutral(state.tool)}, branch {neutral(state.branch) or '-'}, "
             f"{state.started[:16].replace('T', ' ')} → {state.ended[:16].replace('T', ' ')})"]
    if state.asked:
        lines.append(f"Asked: {as_data(state.asked)}")
    if state.last_ask and state.last_ask != state.asked:
        lines.append(f"Last ask: {as_data(state.last_ask)}")
    if state.done:
        lines.append(f"Done (last words): {as_data(state.done)}")
    lines.append(f"Ran {state.commands} commands; edited {len(state.files_edited)} files.")
    open_items = [f"todo: {as_data(t)}" for t in state.todos_open] + [f"failing: {as_data(c)}" for c in state.failing]
    if state.unanswered:
        open_items.append(f"unanswered ask: {as_data(state.unanswered)}")
    lines.append("Open:" if open_items else "Open: nothing recorded as open.")
    lines += [f"  - {item}" for item in open_items[:12]]
    if state.files_edited:
        lines.append("Files edited: " + ", ".join(neutral(f) for f in state.files_edited[:20]))
    if state.files_git:
        lines.append("Changed in git since: " + ", ".join(neutral(f) for f in state.files_git[:20]))
    return "\n".join(lines)
