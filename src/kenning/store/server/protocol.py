"""What the team server keeps besides the memory itself, as typed values and one protocol.

Two planes:

- the **control plane** (:class:`ServerStore`): accounts, workspaces, members, devices,
  invites, device codes. Only the server's own code reaches it; no request's role can read
  a token hash.
- the **data plane** (:meth:`ServerStore.workspace`): the synced records of one workspace,
  opened for one request's token. The backend must enforce, by itself, that a token that is
  revoked, expired, not a member's, or not scoped to the workspace sees and writes nothing,
  and that a private (hidden) record's body reaches only its owner (PostgreSQL: row-level
  security; see docs/server.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol

from kenning.store.protocol import Stores


class Role(StrEnum):
    OWNER = "owner"
    MEMBER = "member"
    VIEWER = "viewer"

    @property
    def writes(self) -> bool:
        return self is not Role.VIEWER


@dataclass(frozen=True)
class Account:
    id: str
    name: str
    created_at: datetime


@dataclass(frozen=True)
class Workspace:
    slug: str
    name: str
    created_at: datetime


@dataclass(frozen=True)
class Member:
    workspace: str
    account: str  # account id
    name: str  # account name
    role: Role


@dataclass(frozen=True)
class Device:
    """A device token's row: the token itself is never stored, only its SHA-256."""

    id: str
    account: str
    label: str
    workspaces: tuple[str, ...]
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    last_seen_at: datetime | None
    kind: str = "device"  # device | web (a browser session on the server's own pages)

    def valid(self, now: datetime) -> bool:
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > now)


@dataclass(frozen=True)
class Invite:
    account: str
    workspaces: tuple[str, ...]
    created_at: datetime
    expires_at: datetime
    used_at: datetime | None


@dataclass(frozen=True)
class DeviceCode:
    user_code: str
    label: str
    requested_at: datetime
    expires_at: datetime
    account: str | None  # set once a member confirmed it
    workspaces: tuple[str, ...]
    claimed_at: datetime | None


def fact_slot(body: Mapping[str, Any]) -> str:
    """What a fact record states, as one key: the SHA-256 (hex) of its subject, predicate,
    object and area joined by U+001F (what the graph keeps one current row of; hashed, as an
    object may be long text and the key is indexed)."""
    joined = "\x1f".join(str(body.get(k, "")) for k in ("subject", "predicate", "object", "area"))
    return hashlib.sha256(joined.encode()).hexdigest()


@dataclass(frozen=True)
class StoredRecord:
    """One synced record as the server holds it. ``body`` is None when it was deleted
    (forgotten) or when the reader may not see it (another owner's private record)."""

    kind: str
    key: str
    owner: str
    seq: int
    digest: str
    deleted: bool
    private: bool
    body: Mapping[str, Any] | None


@dataclass(frozen=True)
class Grant:
    """What a request brings to the data plane: its token's hash and the workspace asked for."""

    token_hash: str
    workspace: str


class WorkspaceTx(Protocol):
    """One transaction in one workspace, on behalf of one token (see the module docstring)."""

    def lock(self) -> int:
        """Serialize writers of the workspace until the transaction ends; the current head."""
        ...

    def pipelined(self) -> AbstractContextManager[object]:
        """Statements whose answers nothing reads go out without waiting for them until one is
        read (a push writes a dozen rows a record while it holds the workspace's lock)."""
        ...

    def head(self) -> int: ...
    def batch(self, batch_id: str) -> tuple[str, Mapping[str, Any]] | None:
        """A batch this workspace already applied: its digest and the answer it got."""
        ...

    def save_batch(self, batch_id: str, account: str, digest: str, result: Mapping[str, Any], at: datetime) -> None: ...
    def record(self, kind: str, key: str) -> StoredRecord | None: ...
    def records(self, kind: str, keys: Sequence[str]) -> list[StoredRecord]:
        """The records of ``kind`` under ``keys``, in the order of ``keys`` (those that exist)."""
        ...

    def memories_on_slot(self, scope: str, subject: str, owner: str) -> list[StoredRecord]: ...
    def facts_asserting(self, slot: str) -> list[StoredRecord]:
        """Every member's current, shared (not private, not deleted) record of one fact
        (:func:`fact_slot` of its body), oldest first."""
        ...

    def put(
        self, kind: str, key: str, owner: str, body: Mapping[str, Any], digest: str, *,
        private: bool, at: datetime,
    ) -> int:
        """Insert or replace a record; the sequence number it took."""
        ...

    def delete(self, kind: str, key: str, owner: str, digest: str, *, at: datetime) -> int:
        """Leave a tombstone (the body goes); the sequence number it took."""
        ...

    def changes(self, after: int, limit: int) -> list[StoredRecord]:
        """Records changed after sequence number ``after``, in order, at most ``limit``."""
        ...

    def count(self, kind: str | None = None) -> int: ...

    def stores(self) -> Stores:
        """The workspace's memory stores (the materialized copy of its memory records) in this
        same transaction: what they read and write commits or rolls back with the records,
        and row-level security binds them to the same token and workspace."""
        ...


class ServerStore(Protocol):
    # accounts and workspaces
    def add_account(self, name: str, at: datetime) -> Account: ...
    def account(self, name_or_id: str) -> Account | None: ...
    def accounts(self) -> list[Account]: ...
    def add_workspace(self, slug: str, name: str, owner: str, at: datetime) -> Workspace: ...
    def workspaces(self, account: str | None = None) -> list[Workspace]: ...
    def set_member(self, workspace: str, account: str, role: Role) -> None: ...
    def remove_member(self, workspace: str, account: str) -> bool: ...
    def members(self, workspace: str) -> list[Member]: ...
    def role(self, workspace: str, account: str) -> Role | None: ...

    # devices, invites, device codes
    def add_device(
        self, account: str, label: str, workspaces: Sequence[str], token_hash: str, at: datetime, *,
        expires_at: datetime | None = None, kind: str = "device",
    ) -> Device: ...
    def device_by_token(self, token_hash: str) -> Device | None: ...
    def signed_in(self, token_hash: str) -> tuple[Device, dict[str, Role]] | None:
        """The device a token hash belongs to, with its account's role in each workspace the
        token lists (one read: every API request asks it)."""
        ...
    def device(self, device_id: str) -> Device | None: ...
    def devices(self, account: str | None = None) -> list[Device]: ...
    def revoke_device(self, device_id: str, at: datetime) -> bool: ...
    def touch_device(self, device_id: str, at: datetime) -> None: ...
    def add_invite(
        self, account: str, workspaces: Sequence[str], token_hash: str, at: datetime, expires_at: datetime
    ) -> Invite: ...
    def claim_invite(self, token_hash: str, at: datetime) -> Invite | None:
        """Use a one-time invite: the invite, once; None when unknown, used or expired."""
        ...

    def add_device_code(self, code_hash: str, user_code: str, label: str, at: datetime, expires_at: datetime) -> DeviceCode: ...
    def confirm_device_code(self, user_code: str, account: str, workspaces: Sequence[str], at: datetime) -> DeviceCode | None: ...
    def claim_device_code(self, code_hash: str, at: datetime) -> DeviceCode | None:
        """The confirmed code, once (claimed now); None when unknown, unconfirmed, claimed or expired."""
        ...

    def pending_device_code(self, code_hash: str) -> DeviceCode | None: ...

    # browser sign-in links (kenning.server.web_login)
    def add_web_link(
        self, token_hash: str, device: str, workspaces: Sequence[str], at: datetime, expires_at: datetime
    ) -> None:
        """A one-time sign-in link asked for by ``device`` (for its account)."""
        ...

    def claim_web_link(
        self, token_hash: str, session_hash: str, label: str, at: datetime, expires_at: datetime
    ) -> Device | None:
        """Trade a link for a browser session, in one transaction: the new session (a device
        of kind ``web`` holding ``session_hash``), once; None when the link is unknown, used,
        expired, or the device that asked for it is no longer good."""
        ...

    # the data plane
    def workspace(self, grant: Grant, *, write: bool = False) -> AbstractContextManager[WorkspaceTx]:
        """One data-plane transaction; ``write``: one that will write (it takes a writer's
        connection, so writers queued behind a workspace's lock never hold up reads)."""
        ...

    # health
    def ready(self) -> bool: ...
    def close(self) -> None: ...


class Busy(Exception):
    """No database connection came free in time: the server is past what it can take; the
    request may be sent again a little later."""


class NotPermitted(Exception):
    """The data plane refused the grant: its token is not (or no longer) good for this
    workspace, or may not write there."""
