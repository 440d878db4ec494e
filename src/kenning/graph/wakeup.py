"""The name the SessionStart hook looks up (``kenning.graph.wakeup.bundle``); the bundle
itself is built by :mod:`kenning.context.wakeup`."""

from __future__ import annotations

from kenning.context import wakeup
from kenning.core.scopes import Place
from kenning.core.service import Core


def bundle(core: Core, place: Place, session: object = None) -> str:
    """The wake-up bundle for ``place`` ("" when the core has no database)."""
    if core.db is None:
        return ""
    from kenning.core.notes import graph_decisions

    graph_decisions(core, place)  # decisions recorded by other paths join the graph first
    return wakeup.bundle(core, core.db, place)
