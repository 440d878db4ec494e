"""``/api/v1/web/link``: a signed-in machine asks for a one-time link that signs a browser in to
the server's pages (kenning.server.web_login)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from kenning.server.auth import Forbidden, Principal
from kenning.server.deps import caller, store_of
from kenning.server.web_login import new_link

router = APIRouter(prefix="/api/v1", tags=["browser sign-in"])


class LinkRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    workspaces: list[str] | None = Field(None, description="default: every workspace of this device")


class LinkOut(BaseModel):
    link: str = Field(description="the one-time token (good once, for expires_in seconds); the server keeps its hash")
    path: str = Field(description="the sign-in address on this server: join it to the server's URL")
    url: str = Field(description="the same, joined to the address this request came to")
    expires_in: int


@router.post("/web/link", response_model=LinkOut, summary="A one-time link that signs a browser in as this account.")
def web_link(body: LinkRequest, request: Request, principal: Principal = Depends(caller)) -> Any:
    mine = list(principal.device.workspaces)
    wanted = mine if body.workspaces is None else body.workspaces
    outside = [w for w in wanted if w not in mine]
    if outside:
        raise Forbidden(f"this device may not open workspaces it does not sync: {', '.join(outside)}")
    signin = new_link(store_of(request), principal.device, request.app.state.clock, wanted)
    base = str(request.base_url).rstrip("/")
    return {"link": signin.token, "path": signin.path, "url": base + signin.path, "expires_in": signin.expires_in}
