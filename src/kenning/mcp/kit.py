"""What every MCP tool module shares: the app context the server's lifespan holds, strict
tool registration, error translation and the few argument helpers.

A tool is one small function over the core. Modules under ``kenning.mcp.tools`` expose
``register(server)`` and call :func:`add_tool` for each of their functions.
"""

from __future__ import annotations

import functools
import inspect
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from kenning.config import Settings
from kenning.core.scopes import Place
from kenning.core.service import Core
from kenning.errors import KenningError

F = TypeVar("F", bound=Callable[..., Any])
PY_NAMES = {"global": "global_", "for": "for_"}

# Argument types shared by the tool modules (the schema shows their descriptions).
Cwd = Annotated[
    str | None,
    Field(
        description="Absolute path of the project folder the call is about (default: where the agent tool "
        "started kenning)."
    ),
]
Session = Annotated[str, Field(max_length=200, description="Your session id, when you know it.")]
Source = Annotated[
    str,
    Field(max_length=80, description="Name of the tool you run in (default: the MCP client's name)."),
]
Refs = Annotated[list[Annotated[str, Field(max_length=40)]], Field(max_length=50)]


@dataclass
class AppContext:
    """Held by the server's lifespan for the life of one connection (stdio: the process)."""

    core: Core
    settings: Settings
    default_cwd: str | None = None
    # The SDK runs sync tools on worker threads; one SQLite connection serves them all,
    # so calls into the core take turns.
    lock: threading.Lock = field(default_factory=threading.Lock)


class Strict(BaseModel):
    """Base of result models (and the model tool arguments are checked against)."""

    model_config = ConfigDict(extra="forbid")


def app_of(ctx: Context) -> AppContext:
    found = ctx.request_context.lifespan_context
    if not isinstance(found, AppContext):  # a server built without kenning's lifespan
        raise ToolError("kenning's store is not open in this server. Start it with: kenning mcp")
    return found


def client_name(ctx: Context) -> str:
    """The MCP client's name from its initialize clientInfo, else "mcp"."""
    try:
        params = ctx.session.client_params
        name = params.client_info.name if params is not None else ""
    except Exception:  # no session (modern stateless requests) or no client info
        name = ""
    return (name or "mcp").strip()[:80]


def writer(ctx: Context, source: str) -> str:
    """Who wrote through this call. Never ``person``: that name marks the person's own words
    (written with the kenning command), which reach sessions unquoted."""
    name = source.strip() or client_name(ctx)
    return "agent" if name.casefold() == "person" else name


def place(app: AppContext, cwd: str | None) -> Place:
    """The project a call is about: ``cwd`` when given, else the server's default folder."""
    chosen = cwd if cwd is not None else app.default_cwd
    if chosen is None or chosen.strip() == "":
        return app.core.place(None)
    path = Path(chosen).expanduser()
    if not path.is_absolute():
        raise ToolError(f"cwd {chosen!r} is not an absolute path. Pass the project folder's absolute path")
    if not path.is_dir():
        raise ToolError(f"cwd {chosen!r} is not a folder. Pass the absolute path of an existing project folder")
    return app.core.place(path)


@contextmanager
def guarded(app: AppContext) -> Iterator[None]:
    """Take the core's turn and turn kenning's errors into tool errors (message + fix)."""
    with app.lock:
        try:
            yield
        except KenningError as error:
            text = error.message
            if error.fix:
                text += f". Fix: {error.fix}"
            raise ToolError(text) from error


def add_tool(
    server: MCPServer[Any],
    fn: F,
    *,
    title: str,
    read_only: bool,
    destructive: bool = False,
    idempotent: bool = False,
    name: str | None = None,
) -> F:
    """Register ``fn`` with every annotation set, then make its argument check strict:
    unknown arguments and wrongly typed values are refused, never coerced or ignored."""
    annotations = ToolAnnotations(
        title=title,
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )
    tool_name = name or fn.__name__

    # Arguments named like Python keywords ("global") reach the function under their
    # Python name ("global_"); the schema keeps the wire name (a pydantic alias).
    @functools.wraps(fn)
    def call(**kwargs: Any) -> Any:
        return fn(**{PY_NAMES.get(k, k): v for k, v in kwargs.items()})

    server.add_tool(call, name=tool_name, title=title, annotations=annotations,
                    description=inspect.cleandoc(fn.__doc__ or ""))  # fmt: skip
    _tighten(server, tool_name)
    return fn


def _tighten(server: MCPServer[Any], tool_name: str) -> None:
    # The SDK builds a lax argument model (extras ignored, "5" read as 5). No public hook
    # changes that, so we swap in a strict subclass of the model it built; the SDK reads
    # fn_metadata.arg_model live on every call.
    tool = server._tool_manager.get_tool(tool_name)
    if tool is None:  # pragma: no cover - the SDK changed shape; stay lax rather than fail
        return
    lax = tool.fn_metadata.arg_model
    config = ConfigDict(**{**lax.model_config, "extra": "forbid", "strict": True})
    strict: Any = type(lax.__name__, (lax,), {"model_config": config})
    tool.fn_metadata.arg_model = strict
    tool.parameters = compact(strict.model_json_schema(by_alias=True), inputs=True)
    if tool.fn_metadata.output_schema is not None:
        tool.fn_metadata.output_schema = compact(tool.fn_metadata.output_schema, inputs=False)


_EMPTY_DEFAULTS: tuple[object, ...] = ("", [], None)


def compact(schema: Any, *, inputs: bool) -> Any:
    """A JSON schema without what tells a model nothing, so every session's tool list is
    smaller: the titles pydantic makes from field names ("Source Ref"), empty defaults (an
    optional argument is one not in ``required``), and, in argument schemas, the ``null``
    branch of an optional argument (leave it out instead; the strict model still accepts
    null). Output schemas keep their ``null`` branches: clients check results against them."""
    if isinstance(schema, list):
        return [compact(item, inputs=inputs) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: compact(v, inputs=inputs) for k, v in schema.items()
           if k != "title" and not (k == "default" and v in _EMPTY_DEFAULTS)}  # fmt: skip
    if "properties" in schema:  # property names are data, not keywords: keep a property called "title"
        out["properties"] = {name: compact(sub, inputs=inputs) for name, sub in schema["properties"].items()}
    branches = out.get("anyOf")
    if inputs and isinstance(branches, list):
        kept = [b for b in branches if b != {"type": "null"}]
        if len(kept) == 1 and len(kept) < len(branches):
            del out["anyOf"]
            out = {**kept[0], **out}
    return out


def env_default_cwd(env: dict[str, str] | os._Environ[str]) -> str | None:
    """The folder agent tools name in the server's environment (Claude Code, Gemini CLI)."""
    for key in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "KENNING_PROJECT_DIR"):
        value = env.get(key, "").strip()
        if value:
            return value
    return None

