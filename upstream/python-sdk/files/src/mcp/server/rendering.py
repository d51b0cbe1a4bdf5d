"""Rendering extension (`io.modelcontextprotocol/rendering`).

Some tool results only have value whole: a balance sheet with every line, every
hit of a screening. The rendering extension lets a server say so. A tool carries
hints in `_meta["io.modelcontextprotocol/rendering"]` (`verbatimHint`,
`summarizeOkHint`), and a result carries a directive under the same key
(`mode`, `guidance`, `nullDisplay`, `complete`). See the extension's
specification in the Tool Annotations Interest Group repository
(modelcontextprotocol/experimental-ext-tool-annotations) and SEP-2133 for the
extension framework.

This is an opt-in `Extension`: nothing is advertised or stamped unless the
server passes a `Rendering` instance to `MCPServer(extensions=[...])`.

    rendering = Rendering()

    @rendering.tool(verbatim_hint=True, directive=Directive(mode="verbatim", complete=True))
    def balance_sheet() -> str:
        return BALANCE_SHEET

    mcp = MCPServer("ledger", extensions=[rendering])

A tool that decides its directive per call (a bounded page is `complete=False`)
returns `with_directive(result, Directive(...))`. The host side lives in
`mcp.client.rendering`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, cast

from mcp_types import CallToolRequestParams, CallToolResult
from pydantic import BaseModel, ConfigDict, field_validator
from pydantic.alias_generators import to_camel

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, ToolBinding
from mcp.server.mcpserver.context import Context
from mcp.shared.rendering import EXTENSION_ID, guidance_problem, null_display_problem

__all__ = ["EXTENSION_ID", "Directive", "Rendering", "client_supports_rendering", "with_directive"]

_CallableT = TypeVar("_CallableT", bound=Callable[..., Any])


class Directive(BaseModel):
    """A result directive: how the host is asked to present one result.

    Validated when built, so a server only ever sends well-formed values; hosts
    read leniently (`mcp.client.rendering`).
    """

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True, extra="forbid", strict=True)

    mode: str | None = None
    """"verbatim" (every record, in order, unchanged), "summarizable", or another string (read as verbatim)."""
    guidance: str | None = None
    """Brief presentation advice for the host and its model; advisory."""
    null_display: str | None = None
    """What a null value shows as: not blank, no digit, a letter that resembles no digit (not "0", "-" or "O.OO")."""
    complete: bool
    """`True` when the result holds every record; `False` for one bounded part. Always stated."""

    @field_validator("guidance")
    @classmethod
    def _check_guidance(cls, value: str | None) -> str | None:
        return _checked(value, guidance_problem, "guidance")

    @field_validator("null_display")
    @classmethod
    def _check_null_display(cls, value: str | None) -> str | None:
        return _checked(value, null_display_problem, "null_display")

    def to_wire(self) -> dict[str, Any]:
        """The carrier value: the set members under their wire names."""
        return self.model_dump(by_alias=True, exclude_none=True)


def _checked(value: str | None, check: Callable[[str], str | None], name: str) -> str | None:
    problem = check(value) if value is not None else None
    if problem is not None:
        raise ValueError(f"{name}: {problem}")
    return value


def with_directive(result: CallToolResult, directive: Directive) -> CallToolResult:
    """A copy of `result` carrying `directive` in `_meta["io.modelcontextprotocol/rendering"]`.

    Other `_meta` keys are kept; a directive already there is replaced.
    """
    return result.model_copy(update={"meta": {**(result.meta or {}), EXTENSION_ID: directive.to_wire()}})


class Rendering(Extension):
    """The rendering extension: tool hints and result directives.

    Register tools with `@rendering.tool(...)`, then pass the instance to
    `MCPServer(extensions=[rendering])`. The server then advertises
    `io.modelcontextprotocol/rendering` under `capabilities.extensions`.
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

        Stamps the hints given on the tool's `_meta["io.modelcontextprotocol/rendering"]`.
        `tool_kwargs` are forwarded to `MCPServer.add_tool` (name, title,
        description, annotations, ...); pass `meta=` to merge other `_meta` keys.

        Args:
            verbatim_hint: The tool's results are meant to reach the user verbatim.
            summarize_ok_hint: The tool's results may be summarized (`verbatim_hint` wins).
            directive: Stamped on every successful result of the tool that does
                not carry a directive of its own (see `with_directive`).
            meta: Additional `_meta` keys to merge with the rendering entry.

        Raises:
            ValueError: If `meta` carries the extension's key (the decorator owns it).
        """
        if meta and EXTENSION_ID in meta:
            raise ValueError(f"Rendering.tool() owns _meta[{EXTENSION_ID!r}]; pass the hints as arguments instead")
        hints = {
            name: value
            for name, value in (("verbatimHint", verbatim_hint), ("summarizeOkHint", summarize_ok_hint))
            if value is not None
        }

        def decorator(fn: _CallableT) -> _CallableT:
            tool_meta = {**(meta or {}), EXTENSION_ID: hints} if hints else meta
            self._tools.append(ToolBinding(fn=fn, meta=tool_meta, kwargs=tool_kwargs))
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
        """Stamp the tool's default directive on a successful result that has none."""
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
    """Whether the client declared the rendering extension.

    Only an object under `capabilities.extensions["io.modelcontextprotocol/rendering"]`
    declares it, whatever settings it holds (none are defined; unknown ones are
    ignored); any other value (`null`, `false`, `true`, a string) declares nothing.

    A server sends its hints and directives either way, and never changes a
    result's records because of the answer (the carriers are ignored by clients
    that do not know them); a tool may add a human-readable note for a client
    that did not declare it.
    """
    capabilities = ctx.client_capabilities if isinstance(ctx, Context) else ctx.session.client_capabilities
    extensions: Any = capabilities.extensions if capabilities else None
    if not isinstance(extensions, Mapping):
        return False
    return isinstance(cast("Mapping[str, Any]", extensions).get(EXTENSION_ID), Mapping)
