"""What each channel handed each session: the record the memory report counts.

Channels (:data:`kenning.store.protocol.CHANNELS`):

- ``lesson``: a lesson or decision on a tool call (the hooks record it as they hold the call);
- ``card``: the memories on a task card, as the card that reached the session printed them;
- ``recall``: the hits of an MCP ``recall`` call;
- ``index``: the memory index (``kenning index``, MCP ``memory_index``);
- ``brief`` and ``note``: refs that the start brief or a prompt's notes (another agent's
  handoff) happened to carry. The brief carries no memory by design; a note may quote a ref.

A session's first delivery of a ref on a channel is the one kept. The MCP server is never told
which session calls it: the tool-call hook logs each call of ``recall`` and ``memory_index``
(``sessionmarks.log_call``: time, session and a checksum of the query), and :func:`handed_out`
looks that line up. A call no hook logged (a tool without kenning's hooks, a person at the
command line) is recorded with no session: counted as given, never judged used or not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kenning import sessionmarks
from kenning.store.protocol import CHANNELS

if TYPE_CHECKING:
    from kenning.core.service import Core

__all__ = ["CHANNELS", "handed_out", "record", "session_for"]


def record(core: Core, channel: str, refs: Sequence[str], *, session: str = "", project: str = "",
           tool: str = "") -> None:  # fmt: skip
    """Record ``refs`` as handed to ``session`` on ``channel`` (no-op without refs)."""
    if not refs:
        return
    if not tool and ":" in session:
        tool = session.partition(":")[0]  # a hooks key: "<tool>:<id>"
    core.stores.hooks.add_deliveries(core.workspace, session, channel, list(refs), project, tool, core.now())


def session_for(core: Core, what: str, asked: str) -> str:
    """The session whose hook logged the ``what`` call (recall, index) asking ``asked`` just
    now; "" when none did."""
    if core.settings is None:
        return ""
    return sessionmarks.find_call(str(core.settings.home), what, asked, core.now().timestamp())


def handed_out(core: Core, channel: str, refs: Sequence[str], *, asked: str = "", session: str = "",
               project: str = "", tool: str = "") -> str:  # fmt: skip
    """Record what an MCP call (``recall``, ``index``) handed out, tied to the session that made
    the call when its hook logged it (or to ``session`` when the caller named one). Returns the
    session it was recorded for ("" when unknown)."""
    if not refs:
        return session
    found = session or session_for(core, channel, asked)
    record(core, channel, refs, session=found, project=project, tool=tool if not found else "")
    return found
