"""What a machine remembers about its sync with a server: per workspace, the cursor of what it
pulled, each record it pushed or pulled (owner, digest, the server's number, the local row it
maps to), and the one batch it is sending (kept before sending, so a kill resends the same
batch and the server answers it once)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class SyncedRow:
    kind: str
    key: str
    owner: str  # the account that owns the record on the server
    digest: str
    seq: int
    deleted: bool = False
    local: str = ""  # the local row's id where the key is not it (a decision doc's, a review's)


@dataclass(frozen=True)
class Outbox:
    batch_id: str
    payload: str  # the batch's items, JSON


class SyncStateStore(Protocol):
    def transaction(self) -> AbstractContextManager[object]: ...
    def cursor(self, server: str, workspace: str) -> int: ...
    def set_cursor(self, server: str, workspace: str, cursor: int) -> None: ...
    def rows(self, server: str, workspace: str) -> dict[tuple[str, str], SyncedRow]: ...
    def row(self, server: str, workspace: str, kind: str, key: str) -> SyncedRow | None: ...
    def set_row(self, server: str, workspace: str, row: SyncedRow) -> None: ...
    def outbox(self, server: str, workspace: str) -> Outbox | None: ...
    def set_outbox(self, server: str, workspace: str, outbox: Outbox) -> None: ...
    def clear_outbox(self, server: str, workspace: str) -> None: ...
    def forget_server(self, server: str) -> None: ...
