"""Reading the rendering extension (`io.modelcontextprotocol/rendering`) in a host.

A server marks a tool with `verbatimHint` / `summarizeOkHint` in
`Tool._meta["io.modelcontextprotocol/rendering"]`, and a result with a directive
(`mode`, `guidance`, `nullDisplay`, `complete`) in
`CallToolResult._meta["io.modelcontextprotocol/rendering"]`. `read_rendering`
turns the two carriers into one `RenderingReading`.

The reading is closed and fails safe: every wire value has exactly one reading,
and nothing malformed, unknown or missing makes a partial result read as
complete or a verbatim one as summarizable. It never raises on what a server
sent; each odd value becomes a `problem` instead.

    async with Client(url, extensions=[RENDERING_SUPPORT]) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        result = await client.call_tool("balance_sheet", {})
        reading = read_rendering(tools["balance_sheet"], result)
        if reading.mode == "verbatim": ...
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from mcp_types import CallToolResult, Tool

from mcp.client.extension import ClientExtension, advertise
from mcp.shared.rendering import (
    DEFAULT_NULL_DISPLAY,
    EXTENSION_ID,
    RESULT_MEMBERS,
    TOOL_MEMBERS,
    guidance_problem,
    null_display_problem,
)

__all__ = ["EXTENSION_ID", "RENDERING_SUPPORT", "Completeness", "Mode", "RenderingReading", "read_rendering"]

Mode = Literal["verbatim", "summarizable", "unspecified"]
"""How a host presents a result; "unspecified" leaves it to the host's default."""

Completeness = Literal["complete", "incomplete", "unstated"]
"""What the directive says of completeness; only a well-formed `complete: true` reads "complete"."""

RENDERING_SUPPORT: ClientExtension = advertise(EXTENSION_ID)
"""The client's declaration of the extension (no settings), for `Client(extensions=[...])`."""


@dataclass(frozen=True)
class RenderingReading:
    """What a host makes of one tool result under the rendering extension."""

    mode: Mode
    """The presentation: the result's `mode` decides, else the tool's hints."""
    guidance: str | None
    """The server's presentation advice, when well-formed."""
    null_display: str
    """What a null value shows as."""
    completeness: Completeness
    """What the directive states; "unstated" when it states nothing well-formed."""
    has_directive: bool
    """Whether the result carried a directive at all."""
    problems: tuple[str, ...] = ()
    """Each malformed or unknown value, and what it was read as."""

    @property
    def partial(self) -> bool:
        """Whether the host shows the result as partial.

        True for a directive that does not state `complete: true` well-formed;
        a result without a directive makes no claim either way.
        """
        return self.has_directive and self.completeness != "complete"


def read_rendering(tool: Tool | None, result: CallToolResult) -> RenderingReading:
    """Read the tool's hints and the result's directive.

    Args:
        tool: The tool as `tools/list` described it, or `None` when the host
            does not know it (its hints then read as absent).
        result: The `tools/call` result.

    Returns:
        The reading; its `problems` name every malformed or unknown value.
    """
    problems: list[str] = []
    tool_carrier = _carrier(tool.meta if tool is not None else None, "tool", TOOL_MEMBERS, problems)
    directive = _carrier(result.meta, "result", RESULT_MEMBERS, problems)

    mode = _result_mode(directive, problems)
    if mode is None:
        mode = _hinted_mode(tool_carrier, result.is_error, problems)
    guidance = _string_member(directive, "guidance", guidance_problem, problems)
    null_display = _string_member(directive, "nullDisplay", null_display_problem, problems)
    return RenderingReading(
        mode=mode,
        guidance=guidance,
        null_display=null_display if null_display is not None else DEFAULT_NULL_DISPLAY,
        completeness=_completeness(directive, problems),
        has_directive=directive is not None,
        problems=tuple(problems),
    )


def _carrier(meta: Mapping[str, Any] | None, where: str, members: frozenset[str], problems: list[str]) -> Any:
    """The carrier's known members as a dict; `None` when the carrier is absent."""
    value = meta.get(EXTENSION_ID) if meta is not None else None
    if value is None:
        return None
    if not isinstance(value, Mapping):
        problems.append(f"{where} carrier is {_json_type(value)}, not an object: every member reads as malformed")
        return dict.fromkeys(members, _NOT_AN_OBJECT)
    carrier: dict[str, Any] = {}
    for name, member in value.items():  # pyright: ignore[reportUnknownVariableType]
        if name in members:
            carrier[name] = member
        else:
            problems.append(f"{where} carrier: unknown member {name!r} ignored")
    return carrier


_NOT_AN_OBJECT: Any = object()
"""Every member of a carrier that is not an object: malformed, and already reported with its carrier."""


def _malformed(name: str, value: Any, detail: str, reads_as: str, problems: list[str]) -> None:
    if value is not _NOT_AN_OBJECT:
        problems.append(f"{name} is malformed ({detail}): {reads_as}")


def _result_mode(directive: dict[str, Any] | None, problems: list[str]) -> Mode | None:
    value = directive.get("mode") if directive is not None else None
    if value is None:
        return None
    if not isinstance(value, str):
        _malformed("mode", value, f"{_json_type(value)}, not a string", "read as 'verbatim'", problems)
        return "verbatim"
    # "verbatim" and every unregistered string read as verbatim.
    return "summarizable" if value == "summarizable" else "verbatim"


def _hinted_mode(tool_carrier: dict[str, Any] | None, is_error: bool, problems: list[str]) -> Mode:
    if tool_carrier is None:
        return "unspecified"
    if _hint(tool_carrier, "verbatimHint", safe=True, problems=problems):
        # A verbatim tool's error result stays verbatim.
        return "verbatim"
    # summarizeOkHint describes the tool's results, not its errors.
    if not is_error and _hint(tool_carrier, "summarizeOkHint", safe=False, problems=problems):
        return "summarizable"
    return "unspecified"


def _hint(tool_carrier: dict[str, Any], name: str, *, safe: bool, problems: list[str]) -> bool:
    value = tool_carrier.get(name)
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    _malformed(name, value, f"{_json_type(value)}, not a boolean", f"read as {str(safe).lower()}", problems)
    return safe


def _string_member(
    directive: dict[str, Any] | None, name: str, check: Callable[[str], str | None], problems: list[str]
) -> str | None:
    value = directive.get(name) if directive is not None else None
    if value is None:
        return None
    detail = check(value) if isinstance(value, str) else f"{_json_type(value)}, not a string"
    if detail is not None:
        _malformed(name, value, detail, "ignored", problems)
        return None
    return value


def _completeness(directive: dict[str, Any] | None, problems: list[str]) -> Completeness:
    value = directive.get("complete") if directive is not None else None
    if value is None:
        return "unstated"
    if isinstance(value, bool):
        return "complete" if value else "incomplete"
    _malformed("complete", value, f"{_json_type(value)}, not a boolean", "completeness unstated", problems)
    return "unstated"


def _json_type(value: Any) -> str:
    if value is _NOT_AN_OBJECT:
        return "in a carrier that is not an object"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "an object"
    # What is left of a JSON value is an array.
    return "an array"
