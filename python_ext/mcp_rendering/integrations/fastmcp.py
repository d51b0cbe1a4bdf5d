"""The rendering extension for FastMCP 4 servers: advertisement and the `_meta` carriers, through FastMCP's own API.

One call does everything::

    from fastmcp import FastMCP
    from mcp_rendering.integrations.fastmcp import enable_rendering

    app = FastMCP("ledger")
    enable_rendering(app)

FastMCP splits what the SDK's `RenderingExtension` does in one object over two registries, so the object that
`enable_rendering` registers is both:

- a FastMCP `ServerExtension` (`server.add_extension`), which advertises `io.modelcontextprotocol/rendering` under
  `capabilities.extensions`;
- a FastMCP `Middleware` (`server.add_middleware`, or `FastMCP(middleware=[...])`), which moves each tool's
  `verbatimHint`/`summarizeOkHint` annotations into `Tool._meta[EXTENSION_ID]` on `tools/list`, and a result's core
  `_rendering` into `CallToolResult._meta[EXTENSION_ID]` on `tools/call`, so that the wire holds one carrier. An
  entry the author already put there is left as it is. `enable_rendering(app, core_form=True)` copies instead,
  keeping the core form on the wire for clients that test the promotion draft.

FastMCP declares tool annotations with the SDK's own `mcp_types.ToolAnnotations`, so `tool_annotations()` (re-exported
here) declares the hints for a FastMCP tool too. Building the extension installs the SDK patch, so that tools declared
afterwards with the hints in their annotations keep them.

Needs the `fastmcp` extra: ``pip install 'mcp-rendering[fastmcp]'``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, cast

import mcp_types

try:
    from fastmcp import FastMCP
    from fastmcp.server.extensions import ServerExtension
    from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
    from fastmcp.tools import Tool, ToolResult
except ModuleNotFoundError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"mcp_rendering.integrations.fastmcp needs FastMCP 4: pip install 'mcp-rendering[fastmcp]' ({error})"
    ) from error

from mcp_rendering.extension import mirror_result_directive, mirror_tool_hints, tool_annotations
from mcp_rendering.patch import install
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID, RESULT_STRUCTURED_KEY

__all__ = ["FastMCPRenderingExtension", "FastMCPResultContinuationExtension", "enable_rendering", "tool_annotations"]

logger = logging.getLogger("mcp_rendering")


class FastMCPRenderingExtension(ServerExtension, Middleware):
    """The server half of the extension for FastMCP: capability advertisement plus the `_meta` carriers.

    Register one instance per server, both as an extension and as a middleware; `enable_rendering` does both::

        rendering = FastMCPRenderingExtension()
        app = FastMCP("ledger", middleware=[rendering])
        app.add_extension(rendering)
    """

    identifier = EXTENSION_ID

    def __init__(self, *, core_form: bool = False) -> None:
        """Install the SDK patch, so that tools declared afterwards keep their hints.

        Args:
            core_form: keep the core form (annotation hints, `_rendering`) on the wire beside the `_meta` carrier.
        """
        install()
        self.core_form = core_form

    async def on_list_tools(
        self,
        context: MiddlewareContext[mcp_types.ListToolsRequest],
        call_next: CallNext[mcp_types.ListToolsRequest, Sequence[Tool]],
    ) -> Sequence[Tool]:
        """Give every listed tool that declares a hint in its annotations the same hints under `_meta`."""
        return [_tool_with_hint_meta(tool, keep_core_form=self.core_form) for tool in await call_next(context)]

    async def on_call_tool(
        self,
        context: MiddlewareContext[mcp_types.CallToolRequestParams],
        call_next: CallNext[mcp_types.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        """Copy the core `_rendering` of a tool's result into its `_meta` carrier."""
        return _result_with_directive_meta(await call_next(context), keep_core_form=self.core_form)


class FastMCPResultContinuationExtension(ServerExtension):
    """The declaration of result continuation in a FastMCP server's capabilities (`enable_rendering(app,
    continuation=True)`), which a server whose tools page their results must make."""

    identifier = CONTINUATION_ID


def enable_rendering(
    server: FastMCP[Any], *, continuation: bool = False, core_form: bool = False
) -> FastMCPRenderingExtension:
    """Advertise the rendering extension on `server` and carry its hints and directives under `_meta`.

    Call it before the server runs (FastMCP refuses extensions once its lifespan has started) and, unless the tools
    declare their hints with `tool_annotations()`, before declaring them: building the extension installs the SDK
    patch, without which `mcp_types.ToolAnnotations` drops the hint fields.

    Args:
        server: the FastMCP server.
        continuation: also declare result continuation, for a server whose tools page their results
            (`mcp_rendering.paged_tool`, `paged_result`).
        core_form: keep the core form on the wire beside the `_meta` carrier (see `FastMCPRenderingExtension`).

    Returns:
        The registered extension, which is also the server's innermost middleware so far.
    """
    extension = FastMCPRenderingExtension(core_form=core_form)
    server.add_extension(extension)
    server.add_middleware(extension)
    if continuation:
        server.add_extension(FastMCPResultContinuationExtension())
    return extension


def _tool_with_hint_meta(tool: Tool, *, keep_core_form: bool) -> Tool:
    """`tool`, or a copy of it whose `meta` carries its annotation hints under `EXTENSION_ID` (and whose
    annotations no longer hold them, unless `keep_core_form`).

    The registered tool is never changed: FastMCP hands the middleware its stored components.
    """
    if tool.annotations is None:
        return tool
    meta = dict(tool.meta or {})
    entry = meta.get(EXTENSION_ID)
    if isinstance(entry, Mapping):
        meta[EXTENSION_ID] = dict(cast("Mapping[str, Any]", entry))  # filled in on a copy, never in place
    # The wire form of the annotations holds the hints only when the patch typed them (or a peer sent them).
    annotations = tool.annotations.model_dump(mode="json", by_alias=True, exclude_none=True)
    carrier: dict[str, Any] = {"annotations": dict(annotations), "_meta": meta}
    mirror_tool_hints(carrier, keep_core_form=keep_core_form)
    left = carrier.get("annotations")
    if meta == (tool.meta or {}) and left == annotations:
        return tool
    update: dict[str, Any] = {"meta": meta}
    if left != annotations:
        update["annotations"] = None if left is None else mcp_types.ToolAnnotations.model_validate(left)
    return tool.model_copy(update=update)


def _result_with_directive_meta(result: ToolResult, *, keep_core_form: bool) -> ToolResult:
    """`result`, or the same result with its core `_rendering` under `_meta[EXTENSION_ID]` (and no longer as
    `_rendering`, unless `keep_core_form`).

    Only a tool that returned an SDK `CallToolResult` can carry `_rendering`: FastMCP then sends that object as it is,
    and `to_mcp_result()` gives it back. Any other result passes through untouched.
    """
    sent = result.to_mcp_result()
    if not isinstance(sent, mcp_types.CallToolResult):
        return result
    # The wire form without the bulky members: `_rendering` exists there only when the patch typed it.
    light = sent.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"content", "structured_content"})
    if "_rendering" not in light:
        return result
    _warn_without_model_copy(sent)
    meta = dict(sent.meta or {})
    if EXTENSION_ID not in meta:  # an entry the author wrote is left exactly as written
        light["_meta"] = meta
        mirror_result_directive(light, keep_core_form=True)
        if EXTENSION_ID not in meta:  # `_rendering` was not an object: nothing to carry
            return result
    if keep_core_form:
        return ToolResult.from_mcp_result(sent.model_copy(update={"meta": meta}))
    return ToolResult.from_mcp_result(sent.model_copy(update={"meta": meta, "rendering": None}))


def _warn_without_model_copy(result: mcp_types.CallToolResult) -> None:
    """The same warning as the SDK middleware's: hosts that forward only `structuredContent` miss the directive."""
    structured = result.structured_content
    if isinstance(structured, dict) and RESULT_STRUCTURED_KEY not in structured:
        logger.warning(
            "a tool result carries _rendering but its structuredContent has no %r copy: hosts that forward only "
            "structuredContent to the model will not see the directive (mcp_rendering.verbatim_result adds it)",
            RESULT_STRUCTURED_KEY,
        )
