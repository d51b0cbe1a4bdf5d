"""Negotiating the extension, and the `_meta` carriers on the server's way out.

Server side, one object does both jobs, and `registration()` registers it both ways in one step::

    mcp = MCPServer("ledger", **registration())

As an `Extension` it declares `io.modelcontextprotocol/rendering` in the server's capabilities, which the SDK sends
in the 2026-07-28 `server/discover` result. As a middleware it adds the same declaration to the `initialize` result
of 2025-06-18 and 2025-11-25, whose capabilities objects are open but which the SDK's models for those versions
filter down to their named members; and, on every `tools/list` and `tools/call` response, it moves values the
server wrote in the promotion draft's core form (the annotation hints, `_rendering`) into the extension's carrier,
`_meta["io.modelcontextprotocol/rendering"]`, so that the wire holds one carrier. `RenderingExtension(core_form=True)`
copies them instead, keeping the core form on the wire for clients that test the promotion draft. Building it
installs the SDK patch, so tools declared afterwards keep their core-form hints until the middleware moves them.

`ResultContinuationExtension` does the same declaring for `mcp-rendering/result-continuation`
(`registration(continuation=True)`).

Client side, `client_extension()` declares support in `mcp.Client(extensions=[...])`, and on the server
`client_supports_rendering(ctx)` and `client_supports_continuation(ctx)` tell whether the connected client did.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, MutableMapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypedDict, cast

import mcp_types
from mcp.client.extension import ClientExtension
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.server.extension import Extension
from mcp.server.mcpserver.context import Context
from mcp_types import CallToolRequestParams

from mcp_rendering.patch import install
from mcp_rendering.reading import AS_SENT
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID, RESULT_STRUCTURED_KEY

__all__ = [
    "Registration",
    "RenderingClientExtension",
    "RenderingExtension",
    "ResultContinuationClientExtension",
    "ResultContinuationExtension",
    "client_extension",
    "client_supports_continuation",
    "client_supports_rendering",
    "declare_in_initialize",
    "registration",
    "tool_annotations",
]

logger = logging.getLogger("mcp_rendering")

_HINT_KEYS = ("verbatimHint", "summarizeOkHint")


@dataclass
class _Request:
    """What the two halves of a `RenderingExtension` learn about the request in flight."""

    intercepted: bool = False


_IN_MIDDLEWARE: ContextVar[_Request | None] = ContextVar("mcp_rendering_request", default=None)
"""Set while a `RenderingExtension` middleware handles the current request."""


class RenderingExtension(Extension):
    """The server half of the extension: capability advertisement plus the `_meta` mirror.

    Pass the same instance as an extension (the advertisement) and as a middleware (the mirror). Registered as only
    one of the two, it logs a warning on the first tool call: without the middleware, clients that read only
    `_meta` never see the tools' hints; without the extension, the server does not advertise
    `io.modelcontextprotocol/rendering`.
    """

    identifier = EXTENSION_ID

    def __init__(self, *, core_form: bool = False) -> None:
        """Install the SDK patch, so that tools declared afterwards keep their hints.

        Args:
            core_form: keep the core form (annotation hints, `_rendering`) on the wire beside the `_meta` carrier,
                for clients that explicitly test the promotion draft. By default it is moved into the carrier.

        Raises:
            TypeError: `core_form` is not a bool (a string such as "no" would read as true).
        """
        if not isinstance(core_form, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"core_form must be True or False, not {type(core_form).__name__}")
        install()
        self.core_form = core_form
        self._warned = False

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Middleware: mirror the core fields under `_meta` in the wire form of the response."""
        request = _Request()
        in_middleware = _IN_MIDDLEWARE.set(request)
        try:
            result = await call_next(ctx)
        finally:
            _IN_MIDDLEWARE.reset(in_middleware)
        if ctx.method == "tools/call" and not request.intercepted:
            self._warn_once(
                "RenderingExtension is registered as a middleware but not as an extension: the server does not "
                "advertise io.modelcontextprotocol/rendering; pass the same instance to "
                "MCPServer(extensions=[rendering], middleware=[rendering])"
            )
        if isinstance(result, MutableMapping):
            wire = cast("MutableMapping[str, Any]", result)
            if ctx.method == "initialize":
                declare_in_initialize(wire, self.identifier, self.settings())
            elif ctx.method == "tools/list":
                for tool in wire.get("tools") or ():
                    if isinstance(tool, MutableMapping):
                        mirror_tool_hints(cast("MutableMapping[str, Any]", tool), keep_core_form=self.core_form)
            elif ctx.method == "tools/call":
                _warn_without_model_copy(wire)
                mirror_result_directive(wire, keep_core_form=self.core_form)
        return result

    async def intercept_tool_call(
        self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Extension: notice a registration that lacks the middleware half (the tool call itself is untouched)."""
        request = _IN_MIDDLEWARE.get()
        if request is None:
            self._warn_once(
                "RenderingExtension is registered as an extension but not as a middleware: tools/list responses "
                "carry no hints under _meta, which most clients need; pass the same instance to "
                "MCPServer(extensions=[rendering], middleware=[rendering])"
            )
        else:
            request.intercepted = True
        return await call_next(ctx)

    def _warn_once(self, message: str) -> None:
        if not self._warned:
            self._warned = True
            logger.warning(message)


class ResultContinuationExtension(Extension):
    """The server half of the result continuation extension: its declaration in the capabilities.

    Pass the same instance as an extension (the `server/discover` declaration) and as a middleware (the
    `initialize` declaration under 2025-06-18 and 2025-11-25).
    """

    identifier = CONTINUATION_ID

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Middleware: declare the extension in the `initialize` result."""
        result = await call_next(ctx)
        if ctx.method == "initialize" and isinstance(result, MutableMapping):
            declare_in_initialize(cast("MutableMapping[str, Any]", result), self.identifier, self.settings())
        return result


class Registration(TypedDict):
    """The `MCPServer` arguments that `registration()` fills: the same objects in both lists."""

    extensions: list[Extension]
    middleware: list[ServerMiddleware[Any]]


def registration(*, continuation: bool = False, core_form: bool = False) -> Registration:
    """The server's extensions, each registered both ways in one step: ``MCPServer(name, **registration())``.

    It gives the `extensions` and `middleware` arguments of `MCPServer` the same `RenderingExtension` (and, with
    `continuation`, the same `ResultContinuationExtension`), so that no half of a registration can be left out.
    A server with other middleware or extensions adds them to the lists it returns.

    Args:
        continuation: also declare result continuation, which a server whose tools page their results (`paged_tool`,
            `paged_result`) must declare.
        core_form: keep the core form on the wire (see `RenderingExtension`).
    """
    rendering = RenderingExtension(core_form=core_form)
    if not continuation:
        return {"extensions": [rendering], "middleware": [rendering]}
    declared = ResultContinuationExtension()
    return {"extensions": [rendering, declared], "middleware": [rendering, declared]}


def declare_in_initialize(result: MutableMapping[str, Any], identifier: str, settings: Mapping[str, Any]) -> None:
    """Add `identifier` to `capabilities.extensions` of a wire `InitializeResult`, keeping what is already there.

    The 2025-06-18 and 2025-11-25 capabilities objects are open, so the member is valid under both (SEP-2133 and MCP
    Apps negotiate it there); the SDK's surface models for those versions would drop it. A result whose
    `capabilities` or `extensions` is not an object is left alone.
    """
    capabilities = result.get("capabilities")
    if not isinstance(capabilities, MutableMapping):
        return
    extensions = cast("MutableMapping[str, Any]", capabilities).setdefault("extensions", {})
    if isinstance(extensions, MutableMapping):
        cast("MutableMapping[str, Any]", extensions).setdefault(identifier, dict(settings))


def tool_annotations(
    *,
    verbatim_hint: bool | None = None,
    summarize_ok_hint: bool | None = None,
    title: str | None = None,
    read_only_hint: bool | None = None,
    destructive_hint: bool | None = None,
    idempotent_hint: bool | None = None,
    open_world_hint: bool | None = None,
) -> mcp_types.ToolAnnotations:
    """`ToolAnnotations` with the rendering hints, for `@mcp.tool(annotations=...)`. Installs the SDK patch.

    Equivalent to `ToolAnnotations(verbatim_hint=..., ...)` after `install()`, but visible to a static type checker,
    which cannot see fields added at run time.
    """
    install()
    fields = {  # the added fields by wire name: validation reads them by no other
        "verbatimHint": verbatim_hint,
        "summarizeOkHint": summarize_ok_hint,
        "title": title,
        "read_only_hint": read_only_hint,
        "destructive_hint": destructive_hint,
        "idempotent_hint": idempotent_hint,
        "open_world_hint": open_world_hint,
    }
    return mcp_types.ToolAnnotations.model_validate({k: v for k, v in fields.items() if v is not None}, by_name=True)


def _meta_of(wire: MutableMapping[str, Any]) -> MutableMapping[str, Any] | None:
    """The object's `_meta`, created if absent; None when the peer's `_meta` is not an object (left alone)."""
    meta = wire.setdefault("_meta", {})
    return cast("MutableMapping[str, Any]", meta) if isinstance(meta, MutableMapping) else None


def mirror_tool_hints(tool: MutableMapping[str, Any], *, keep_core_form: bool = False) -> None:
    """Move a wire tool's core hints into `_meta[EXTENSION_ID]`, hint by hint: a hint the entry already holds is
    left as the author set it, and an entry that is not an object is left alone (it reads as malformed).

    The hints leave `annotations` (and an `annotations` left empty goes too) unless `keep_core_form`: one carrier
    on the wire. Hints that could not be carried (the peer's `_meta` is not an object) stay where they are.
    """
    annotations = tool.get("annotations")
    if not isinstance(annotations, MutableMapping):
        return
    core = cast("MutableMapping[str, Any]", annotations)
    altered = _restore_as_sent(core)
    hints = {key: value for key, value in core.items() if key in _HINT_KEYS}
    if altered is not None:
        hints[AS_SENT] = altered  # an unknown member: the entry reads unclean, as the marked annotations do
    if not hints:
        return
    meta = _meta_of(tool)
    if meta is None:
        return
    entry = meta.setdefault(EXTENSION_ID, {})
    if not isinstance(entry, MutableMapping):
        return
    for key, value in hints.items():
        cast("MutableMapping[str, Any]", entry).setdefault(key, value)
    if keep_core_form:
        return
    for key in hints:
        del core[key]
    if not core:
        del tool["annotations"]


def _restore_as_sent(annotations: MutableMapping[str, Any]) -> Any:
    """Put back each malformed hint that the patched SDK parsed as its safe value and marked (`AS_SENT`), so that
    the wire carries the hints as the author set them and the `_meta` entry reads as the annotations do. A mark that
    cannot be put back as it came (altered: not an object, empty, naming a well-formed value or another member, or
    holding what JSON cannot carry) stays, and is returned for the entry to hold too: either way the hints read as
    unclean, as the annotations do."""
    if AS_SENT not in annotations:
        return None
    mark = annotations[AS_SENT]
    if not _restorable(mark):
        return mark if _json_can_carry(mark) else "altered"
    del annotations[AS_SENT]
    annotations.update(cast("Mapping[str, Any]", mark))
    return None


def _restorable(mark: Any) -> bool:
    if not isinstance(mark, Mapping) or not mark:
        return False
    members = cast("Mapping[Any, Any]", mark)
    malformed = all(value is not None and not isinstance(value, bool) for value in members.values())
    return malformed and set(members) <= set(_HINT_KEYS) and _json_can_carry(mark)


def _json_can_carry(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return False
    return True


def mirror_result_directive(result: MutableMapping[str, Any], *, keep_core_form: bool = False) -> None:
    """Move a wire result's `_rendering` into `_meta[EXTENSION_ID]`, member by member: a member the entry already
    holds is left as the author set it, and an entry that is not an object is left alone.

    `_rendering` leaves the result unless `keep_core_form`; one that could not be carried stays.
    """
    directive = result.get("_rendering")
    if not isinstance(directive, Mapping):
        return
    meta = _meta_of(result)
    if meta is None:
        return
    entry = meta.setdefault(EXTENSION_ID, {})
    if not isinstance(entry, MutableMapping):
        return
    for key, value in cast("Mapping[str, Any]", directive).items():
        cast("MutableMapping[str, Any]", entry).setdefault(key, value)
    if not keep_core_form:
        del result["_rendering"]


def _warn_without_model_copy(result: Mapping[str, Any]) -> None:
    """A directive with object `structuredContent` but no copy inside it misses hosts that forward only that object.

    Only a warning: adding the copy here could break a tool whose `outputSchema` does not declare it.
    """
    structured = result.get("structuredContent")
    if (
        isinstance(result.get("_rendering"), Mapping)
        and isinstance(structured, Mapping)
        and RESULT_STRUCTURED_KEY not in cast("Mapping[str, Any]", structured)
    ):
        logger.warning(
            "a tool result carries _rendering but its structuredContent has no %r copy: hosts that forward only "
            "structuredContent to the model will not see the directive (mcp_rendering.verbatim_result adds it)",
            RESULT_STRUCTURED_KEY,
        )


class RenderingClientExtension(ClientExtension):
    """The client half: declares that this client reads the hints and directives."""

    identifier = EXTENSION_ID


class ResultContinuationClientExtension(ClientExtension):
    """The client half of the result continuation extension: declares that this client follows continuations."""

    identifier = CONTINUATION_ID


def client_extension() -> ClientExtension:
    """The declaration to pass as `mcp.Client(extensions=[client_extension()])`.

    Reading needs nothing more: the normative `_meta` carrier reaches the client through the unpatched SDK. Call
    `mcp_rendering.install()` as well to have the core form (`_rendering`, the annotation hints) typed.
    """
    return RenderingClientExtension()


def _client_declared(ctx: Context[Any] | ServerRequestContext[Any, Any], identifier: str) -> bool:
    """Whether `capabilities.extensions[identifier]` of the connected client declares support: only an object does
    (null, a boolean or any other value does not); settings this version does not know are ignored."""
    capabilities = ctx.client_capabilities if isinstance(ctx, Context) else ctx.session.client_capabilities
    extensions: Any = capabilities.extensions if capabilities is not None else None
    if not isinstance(extensions, Mapping):
        return False
    return isinstance(cast("Mapping[str, Any]", extensions).get(identifier), Mapping)


def client_supports_rendering(ctx: Context[Any] | ServerRequestContext[Any, Any]) -> bool:
    """Whether the connected client declared the rendering extension in its capabilities (section 1: its value
    is an object, whatever settings it holds)."""
    return _client_declared(ctx, EXTENSION_ID)


def client_supports_continuation(ctx: Context[Any] | ServerRequestContext[Any, Any]) -> bool:
    """Whether the connected client declared the result continuation extension in its capabilities (its value is
    an object, whatever settings it holds)."""
    return _client_declared(ctx, CONTINUATION_ID)
