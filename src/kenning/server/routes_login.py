"""``/api/v1/login``, ``/api/v1/me``, ``/api/v1/devices``: a machine joins (one-time invite, or
a device code a signed-in member approves), sees who it is, lists and revokes devices."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from kenning.errors import NotFound, Refused
from kenning.server.auth import Forbidden, Principal, new_token, token_hash
from kenning.server.deps import caller, now_of, store_of
from kenning.store.server.protocol import Device, ServerStore

router = APIRouter(prefix="/api/v1", tags=["login and devices"])
CODE_TTL = timedelta(minutes=15)
# Device codes a person types: no 0/O, 1/I/L.
_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"


class Joined(BaseModel):
    token: str = Field(description="the device token, shown once; the server keeps only its hash")
    device: str
    account: str
    account_name: str
    workspaces: list[str]


class InviteLogin(BaseModel):
    model_config = ConfigDict(extra="forbid")
    invite: str = Field(min_length=10, max_length=200)
    label: str = Field(default="", max_length=100)


class CodeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    label: str = Field(default="", max_length=100)


class CodeStarted(BaseModel):
    device_code: str
    user_code: str
    expires_in: int
    interval: int
    approve_with: str


class CodePoll(BaseModel):
    model_config = ConfigDict(extra="forbid")
    device_code: str = Field(min_length=10, max_length=200)


class CodeApproval(BaseModel):
    model_config = ConfigDict(extra="forbid")
    user_code: str = Field(min_length=4, max_length=20)
    workspaces: list[str] | None = Field(None, description="default: every workspace of the approving device")


class DeviceOut(BaseModel):
    id: str
    label: str
    kind: str
    workspaces: list[str]
    created_at: str
    expires_at: str | None
    revoked_at: str | None
    last_seen_at: str | None
    this_device: bool = False


def _issue(store: ServerStore, account: str, label: str, workspaces: list[str], request: Request) -> dict[str, Any]:
    token = new_token()
    device = store.add_device(account, label, workspaces, token_hash(token), now_of(request))
    acc = store.account(account)
    return {"token": token, "device": device.id, "account": account, "account_name": acc.name if acc else account,
            "workspaces": list(device.workspaces)}  # fmt: skip


@router.post("/login/invite", response_model=Joined, summary="Join with a one-time invite token.",
             responses={400: {}, 422: {}})  # fmt: skip
def login_invite(body: InviteLogin, request: Request) -> Any:
    store = store_of(request)
    invite = store.claim_invite(token_hash(body.invite.strip()), now_of(request))
    if invite is None:
        raise Refused("this invite is unknown, already used or expired",
                      fix="ask the server's admin for a new one: kenning server invite ACCOUNT --workspace WS")  # fmt: skip
    return _issue(store, invite.account, body.label, list(invite.workspaces), request)


@router.post("/login/device", response_model=CodeStarted, summary="Start a device code login.")
def login_device(body: CodeRequest, request: Request) -> Any:
    store = store_of(request)
    now = now_of(request)
    device_code = secrets.token_urlsafe(32)
    raw = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(8))
    user_code = f"{raw[:4]}-{raw[4:]}"
    store.add_device_code(hashlib.sha256(device_code.encode()).hexdigest(), user_code, body.label, now, now + CODE_TTL)
    return {"device_code": device_code, "user_code": user_code, "expires_in": int(CODE_TTL.total_seconds()),
            "interval": 2, "approve_with": f"kenning login --approve {user_code}  (on a machine already signed in),"
            f" or in a browser signed in to this server: {str(request.base_url).rstrip('/')}/device?code={user_code}"}  # fmt: skip


@router.post("/login/device/token", response_model=Joined, summary="Poll a device code: the token once approved.",
             responses={400: {"description": "authorization_pending, expired or unknown"}})  # fmt: skip
def login_device_token(body: CodePoll, request: Request) -> Any:
    store = store_of(request)
    code_hash = hashlib.sha256(body.device_code.encode()).hexdigest()
    claimed = store.claim_device_code(code_hash, now_of(request))
    if claimed is None or claimed.account is None:
        pending = store.pending_device_code(code_hash)
        if pending is not None and pending.account is None and pending.expires_at > now_of(request):
            raise Refused("authorization_pending: no member has approved this code yet",
                          fix=f"on a signed-in machine run: kenning login --approve {pending.user_code}")  # fmt: skip
        raise Refused("this device code is unknown, expired or already used", fix="run kenning login again")
    return _issue(store, claimed.account, claimed.label, list(claimed.workspaces), request)


@router.post("/login/device/approve", summary="Approve a device code for your account (a signed-in member).")
def approve_device(body: CodeApproval, request: Request, principal: Principal = Depends(caller)) -> Any:
    store = store_of(request)
    mine = list(principal.device.workspaces)
    wanted = mine if body.workspaces is None else body.workspaces
    outside = [w for w in wanted if w not in mine]
    if outside:
        raise Forbidden(f"this device may not grant workspaces it does not sync: {', '.join(outside)}")
    code = store.confirm_device_code(body.user_code.strip().upper(), principal.account, wanted, now_of(request))
    if code is None:
        raise NotFound(f"no waiting login has the code {body.user_code}", fix="check the code the new machine shows")
    return {"approved": code.user_code, "label": code.label, "workspaces": wanted}


@router.get("/me", summary="Who this token is: account, device, workspaces and roles.")
def me(request: Request, principal: Principal = Depends(caller)) -> Any:
    store = store_of(request)
    acc = store.account(principal.account)
    return {"account": principal.account, "account_name": acc.name if acc else "", "device": principal.device.id,
            "workspaces": [{"workspace": w, "role": (r.value if (r := store.role(w, principal.account)) else None)}
                           for w in principal.device.workspaces]}  # fmt: skip


def _out(d: Device, this: str) -> dict[str, Any]:
    def iso(t: object) -> str | None:
        return t.isoformat() if t is not None else None  # type: ignore[attr-defined]

    return {"id": d.id, "label": d.label, "kind": d.kind, "workspaces": list(d.workspaces),
            "created_at": d.created_at.isoformat(), "expires_at": iso(d.expires_at), "revoked_at": iso(d.revoked_at),
            "last_seen_at": iso(d.last_seen_at), "this_device": d.id == this}  # fmt: skip


@router.get("/devices", response_model=list[DeviceOut], summary="Your account's devices.")
def devices(request: Request, principal: Principal = Depends(caller)) -> Any:
    return [_out(d, principal.device.id) for d in store_of(request).devices(principal.account)]


@router.post("/devices/{device_id}/revoke", summary="Revoke one of your account's devices.")
def revoke(device_id: str, request: Request, principal: Principal = Depends(caller)) -> Any:
    store = store_of(request)
    device = store.device(device_id)
    if device is None or device.account != principal.account:
        raise NotFound(f"your account has no device {device_id}", fix="list them: GET /api/v1/devices")
    return {"revoked": store.revoke_device(device_id, now_of(request)), "device": device_id}


@router.post("/logout", summary="Revoke this device's own token.")
def logout(request: Request, principal: Principal = Depends(caller)) -> Any:
    return {"revoked": store_of(request).revoke_device(principal.device.id, now_of(request)), "device": principal.device.id}
