"""Rendering extension (`io.modelcontextprotocol/rendering`).

Provisional: the extension is a proposal under review, so this module's names
and behaviour may change in a 2.x minor release.

Some tool results only have value whole: a balance sheet with every line, every
hit of a screening. The extension lets a server say so in one `_meta` key,
`io.modelcontextprotocol/rendering`: on a tool, the hints `verbatimHint` and
`summarizeOkHint`; on a result, a directive (`mode`, `guidance`, `nullDisplay`,
`complete`). See SEP-2133 for the extension framework.

A server opts in by passing a `Rendering` instance to `MCPServer(extensions=[...])`:

    rendering = Rendering()

    @rendering.tool(verbatim_hint=True, directive=Directive(mode="verbatim", complete=True))
    def balance_sheet() -> str:
        return BALANCE_SHEET

    mcp = MCPServer("ledger", extensions=[rendering])

A tool that decides its directive per call (a bounded part is `complete=False`)
returns `with_directive(result, Directive(...))`. The carriers are plain `_meta`
data: a client that does not know the extension ignores them, so a server sends
them to every client.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar

from mcp_types import CallToolRequestParams, CallToolResult
from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, ToolBinding
from mcp.server.mcpserver.context import Context
from mcp.shared._rendering import EXTENSION_ID, GUIDANCE_MAX_LENGTH, usable_null_text

__all__ = ["EXTENSION_ID", "Directive", "Rendering", "client_supports_rendering", "with_directive"]

_CallableT = TypeVar("_CallableT", bound=Callable[..., Any])


class Directive(BaseModel):
    """How a host is asked to present one tool result (`_meta` of a `CallToolResult`).

    Validated when built, so a server sends only well-formed values.
    """

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True, extra="forbid", strict=True)

    mode: Literal["verbatim", "summarizable"] | None = None
    """`"verbatim"`: every record, in order, unchanged. Unset: the tool's hints decide."""
    guidance: str | None = Field(default=None, max_length=GUIDANCE_MAX_LENGTH)
    """Brief presentation advice for the host and its model; advisory."""
    null_display: str | None = None
    """What a null value shows as (`"-"`, `"n/a"`); hosts default to `"n/a"`."""
    complete: bool
    """`True` when the result holds every record, `False` for a bounded part."""

    @field_validator("null_display")
    @classmethod
    def _null_display_is_usable(cls, value: str | None) -> str | None:
        if value is not None and not usable_null_text(value):
            raise ValueError(
                "null_display must be 1 to 16 characters, not only white space, "
                "with no control, format or numeric character"
            )
        return value


def with_directive(result: CallToolResult, directive: Directive) -> CallToolResult:
    """A copy of `result` carrying `directive`; other `_meta` keys are kept."""
    wire = directive.model_dump(by_alias=True, exclude_none=True)
    return result.model_copy(update={"meta": {**(result.meta or {}), EXTENSION_ID: wire}})


class Rendering(Extension):
    """The rendering extension: tool hints, and a default directive per tool.

    Register tools with `@rendering.tool(...)`, then pass the instance to
    `MCPServer(extensions=[rendering])`.
    """

    identifier = EXTENSION_ID

    def __init__(self) -> None:
        self._tools: list[ToolBinding] = []
        self._directives: dict[str, Directive] = {}

    def tool(
        self,
        *,
        verbatim_hint: bool | None = None,
        summarize_ok_hint: bool | None = None,
        directive: Directive | None = None,
        meta: dict[str, Any] | None = None,
        **tool_kwargs: Any,
    ) -> Callable[[_CallableT], _CallableT]:
        """Decorator registering a tool with rendering hints.

        Stamps the given hints on the tool's `_meta["io.modelcontextprotocol/rendering"]`.
        `tool_kwargs` are forwarded to `MCPServer.add_tool` (name, title,
        description, annotations, ...); pass `meta=` to merge other `_meta` keys.

        Args:
            verbatim_hint: The tool's results are meant to reach the user verbatim.
            summarize_ok_hint: The tool's results may be summarized.
            directive: Stamped on each successful result that carries no directive
                of its own (see `with_directive`).
            meta: Additional `_meta` keys to merge with the rendering entry.

        Raises:
            ValueError: If `meta` carries the extension's key (the decorator owns it).
        """
        if meta and EXTENSION_ID in meta:
            raise ValueError(f"Rendering.tool() owns _meta[{EXTENSION_ID!r}]; pass the hints as arguments instead")
        hints = {"verbatimHint": verbatim_hint, "summarizeOkHint": summarize_ok_hint}
        carrier = {name: value for name, value in hints.items() if value is not None}

        def decorator(fn: _CallableT) -> _CallableT:
            self._tools.append(ToolBinding(fn=fn, meta={**(meta or {}), EXTENSION_ID: carrier}, kwargs=tool_kwargs))
            if directive is not None:
                self._directives[tool_kwargs.get("name") or fn.__name__] = directive
            return fn

        return decorator

    def tools(self) -> Sequence[ToolBinding]:
        return self._tools

    async def intercept_tool_call(
        self,
        params: CallToolRequestParams,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> HandlerResult:
        """Stamp the tool's default directive on a successful result that has none.

        An error result is not the tool's data, and an interim result (input
        required) is not its result: neither gets the directive.
        """
        result = await call_next(ctx)
        directive = self._directives.get(params.name)
        if (
            directive is None
            or not isinstance(result, CallToolResult)
            or result.is_error
            or EXTENSION_ID in (result.meta or {})
        ):
            return result
        return with_directive(result, directive)


def client_supports_rendering(ctx: Context[Any] | ServerRequestContext[Any, Any]) -> bool:
    """Whether the connected client declared the rendering extension.

    The extension defines no client settings. A server sends its hints and
    directives either way; a tool may add a human-readable note for a client
    that did not declare it.
    """
    capabilities = ctx.client_capabilities if isinstance(ctx, Context) else ctx.session.client_capabilities
    return capabilities is not None and EXTENSION_ID in (capabilities.extensions or {})
