"""A request's :class:`kenning.core.service.Core` over its workspace on the team server.

The one place a route (REST, the web app, search/graph routes) gets a Core::

    with workspace_core(request, principal, "acme") as wc:        # 403 unless it may read
        hits = wc.core.recall(wc.core.place(project=key), "deploy", record=False)

    with workspace_core(request, principal, "acme", write=True) as wc:  # members and owners
        ...

What it does, in order: the application's check (the token lists the workspace, its account
is a member, ``write`` needs a writing role; :func:`kenning.server.auth.grant`), then one
data-plane transaction of the server store as the request's token, and in it the memory
stores of that workspace (``WorkspaceTx.stores()``: the materialized copy of the pushed
memory records, kenning.sync.materialize). Row-level security binds every statement of the
transaction, records and memories alike, to the token and workspace: a route that forgot a
check still reads nothing of another workspace. The transaction commits when the block ends
(rolls back on an exception).

Reads through ``core`` see what the workspace's members pushed (a hidden or held memory is
not there, for anyone). Writes that should travel to the machines go through the records,
in ``wc.tx`` (:func:`kenning.sync.apply.apply_batch`, as :mod:`kenning.server.writes` does),
never straight into ``core``'s store: its rows are a copy the next push may overwrite.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request

from kenning.config import Settings
from kenning.core.service import Core
from kenning.server.auth import Principal, grant
from kenning.server.deps import store_of
from kenning.store.server.protocol import Role, WorkspaceTx

# The server's cores write no files (no hooks, no capture): their settings name the workspace.
SERVER_HOME = Path("/nonexistent/kenning-server")


@dataclass(frozen=True)
class WorkspaceCore:
    core: Core
    tx: WorkspaceTx
    workspace: str
    account: str
    role: Role


@contextmanager
def workspace_core(request: Request, principal: Principal, workspace: str, *, write: bool = False) -> Iterator[WorkspaceCore]:
    """The Core of ``workspace`` for this request (see the module docstring); raises
    :class:`kenning.server.auth.Forbidden` (403) when the token may not read it, or write it
    with ``write``."""
    store = store_of(request)
    access, role = grant(principal, workspace, write=write)
    request.state.workspace = workspace
    clock = request.app.state.clock
    with store.workspace(access, write=write) as tx:
        core = Core(tx.stores(), clock, Settings(home=SERVER_HOME, workspace=workspace))
        yield WorkspaceCore(core, tx, workspace, principal.account, role)

