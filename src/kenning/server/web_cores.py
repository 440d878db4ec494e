"""The cores the server's pages run over: one :class:`~kenning.core.service.Core` per request,
over the server's PostgreSQL stores, in the workspace the signed-in viewer chose (its
membership checked by kenning.server.web_login on every request)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from kenning.clock import Clock
from kenning.config import Settings
from kenning.core.service import Core
from kenning.store.protocol import Stores
from kenning.web.auth import Viewer
from kenning.web.common import CoreProvider


def workspace_cores(stores: Stores, clock: Clock, home: Path) -> CoreProvider:
    """A provider of cores over ``stores`` (shared, left open: the server closes them at its
    stop), each bound to its viewer's workspace."""

    @contextmanager
    def provide(viewer: Viewer) -> Iterator[Core]:
        if not viewer.workspace:
            raise PermissionError("a server page needs a workspace; the sign-in gives one")
        yield Core(stores, clock, Settings(home=home, workspace=viewer.workspace))

    def provider(viewer: Viewer) -> AbstractContextManager[Core]:
        return provide(viewer)

    return provider
