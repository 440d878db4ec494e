"""The one way a person or an agent names a captured session, used by every command and tool
that takes one (show, context, resume, escalate, retire-session, forget).

A session is named by its full id (``claude:9f1c2a7e-3b4d-…``), its id without the tool prefix,
the first characters of either (one match needed), or ``last``: the newest captured session.
"""

from __future__ import annotations

from kenning.errors import Invalid, NotFound
from kenning.store.protocol import CaptureStore, StoredSession

LAST = "last"
_SHOWN = 3  # candidates named when a prefix is ambiguous


def find_session(store: CaptureStore, workspace: str, ref: str) -> StoredSession:
    """The captured session ``ref`` names in ``workspace``, or a NotFound / Invalid that says
    how to name it."""
    text = ref.strip()
    if not text:
        raise Invalid("no session given", fix="give a session id, its first 8 characters, or `last`")
    if text == LAST:
        newest = store.newest_session(workspace)
        if newest is None:
            raise NotFound("no captured session yet", fix="capture your agents' transcripts with: kenning sessions sync")
        return newest
    exact = store.session(workspace, text)
    if exact is not None:
        return exact
    matches = store.find_sessions(workspace, text, limit=_SHOWN + 1)
    # The id without its tool prefix, typed whole, wins over longer ids it happens to start.
    whole = [m for m in matches if m.id.split(":", 1)[-1] == text]
    if len(whole) == 1:
        return whole[0]
    if len(matches) == 1:
        return matches[0]
    if matches:
        shown = ", ".join(m.id for m in matches[:_SHOWN])
        more = " and more" if len(matches) > _SHOWN else ""
        raise Invalid(f"session {text!r} matches several captured sessions ({shown}{more})",
                      fix="give more of the id")  # fmt: skip
    raise NotFound(f"no captured session {text!r}",
                   fix="run `kenning sessions sync` first, then find the id with `kenning sessions search <words>`")
