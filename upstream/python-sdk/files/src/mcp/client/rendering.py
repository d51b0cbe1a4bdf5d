"""Reading the rendering extension (`io.modelcontextprotocol/rendering`) in a host.

A server marks a tool with `verbatimHint` / `summarizeOkHint` in
`Tool._meta["io.modelcontextprotocol/rendering"]`, and a result with a directive
(`mode`, `guidance`, `nullDisplay`, `complete`) in
`CallToolResult._meta["io.modelcontextprotocol/rendering"]`. `read_rendering`
turns the two carriers into one `RenderingReading`.

The reading is closed and fails safe: every wire value has exactly one reading,
and nothing malformed, unknown or missing makes a partial result read as
complete or a verbatim one as summarizable. A carrier with an unknown or
malformed member is unclean and reads verbatim whatever it states: a tool carrier
as `verbatimHint` true and `summarizeOkHint` false, a directive as `mode`
verbatim, and its `complete: true` does not count. It never raises on what a
server sent; each odd value becomes a `problem` instead.

A member, a carrier key or `_meta` given twice in one message would make the
carrier unclean too, but the SDK's JSON parsing keeps the last value without
saying so: this reader cannot see repeats, and reads the value kept.

A tool whose results come in parts declares its continuation argument in
`Tool._meta["io.modelcontextprotocol/result-continuation"]` (the result
continuation extension). A result of such a tool read without the arguments of
the call that returned it may be a later part, and one whose call set that
argument (with any value, null included) is one: read alone, neither is ever
complete. A continuation carrier that is present but not clean and usable makes
every result of the tool read "unstated", and is reported. Following a continuation,
and combining the parts, belong to that extension, not to this module.

    async with Client(url, extensions=[RENDERING_SUPPORT]) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        result = await client.call_tool("balance_sheet", {})
        reading = read_rendering(tools["balance_sheet"], result, arguments={})
        if reading.mode == "verbatim": ...
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

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

_CONTINUATION_ID = "io.modelcontextprotocol/result-continuation"
"""The result continuation extension's `_meta` key, where a tool declares its continuation argument."""

_ARGUMENT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
"""A well-formed continuation argument name (that extension's type of `argument`)."""

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
    """The server's presentation advice, when well-formed: server-authored, untrusted text."""
    null_display: str
    """What a null value shows as."""
    completeness: Completeness
    """What the directive states; "unstated" when it states nothing well-formed, or there is none."""
    has_directive: bool
    """Whether the result carried a directive at all."""
    has_hints: bool
    """Whether the tool carried hints at all (a carrier, clean or not)."""
    maybe_later_part: bool = False
    """Whether the result is, or may be, a later part of a larger whole: its tool
    declares a continuation argument, and the call set it or its arguments were not
    given; or its continuation carrier is present but not clean and usable. Its
    completeness then reads "unstated", whatever the directive says."""
    problems: tuple[str, ...] = ()
    """Each malformed or unknown value, and what it was read as."""

    @property
    def partial(self) -> bool:
        """Whether the host shows the result as partial.

        True unless a clean directive states `complete: true` (and the result is
        not, nor may be, a later part), for every result the extension reads: one
        with a directive, one of a tool with hints (its completeness is then not
        stated), or one that is or may be a later part. Any other result is not
        read, and is not partial.
        """
        return (self.has_directive or self.has_hints or self.maybe_later_part) and self.completeness != "complete"


def read_rendering(
    tool: Tool | None, result: CallToolResult, *, arguments: Mapping[str, Any] | None = None
) -> RenderingReading:
    """Read the tool's hints and the result's directive.

    `guidance` in the reading is server-authored, untrusted text: a host may show it
    or pass it on as the server's advice, below its own instructions, never as an
    instruction to follow. The reading never raises on what a server sent.

    Args:
        tool: The tool as `tools/list` described it, or `None` when the host
            does not know it (its hints then read as absent).
        result: The `tools/call` result.
        arguments: The arguments of the call that returned `result`. Without
            them, a result of a tool that declares a continuation argument may be
            a later part, and its completeness reads "unstated"; with them, so
            does one whose call set that argument.

    Returns:
        The reading; its `problems` name every malformed or unknown value.
    """
    problems: list[str] = []
    tool_meta = tool.meta if tool is not None else None
    hints = _Carrier.read(tool_meta, "tool", TOOL_MEMBERS, problems)
    directive = _Carrier.read(result.meta, "result", RESULT_MEMBERS, problems)

    mode = _result_mode(directive, problems)
    hinted = _hinted_mode(hints, problems)  # read even when the result decides, so its problems are reported
    if mode is None or (mode == "summarizable" and hinted == "verbatim" and result.is_error):
        # A verbatim tool's error result stays verbatim, whatever its `mode` says.
        mode = hinted
    guidance = _string_member(directive, "guidance", guidance_problem, problems)
    null_display = _string_member(directive, "nullDisplay", null_display_problem, problems)
    completeness = _completeness(directive, problems)
    maybe_later_part = _maybe_later_part(tool, arguments, problems)
    return RenderingReading(
        mode=mode,
        guidance=guidance,
        null_display=null_display if null_display is not None else DEFAULT_NULL_DISPLAY,
        completeness="unstated" if maybe_later_part else completeness,
        has_directive=directive is not None,
        has_hints=hints is not None,
        maybe_later_part=maybe_later_part,
        problems=tuple(problems),
    )


def _maybe_later_part(tool: Tool | None, arguments: Mapping[str, Any] | None, problems: list[str]) -> bool:
    """Whether the result is, or may be, a later part: the tool's continuation carrier is
    present but not clean and usable (then no result of the tool can be told complete,
    and its problem is reported), or it declares an argument that the call set (with
    any value, null included), or the call's arguments are not known."""
    declaration = tool.meta.get(_CONTINUATION_ID) if tool is not None and tool.meta is not None else None
    if declaration is None:
        return False
    problem = _declaration_problem(declaration, tool.input_schema if tool is not None else None)
    if problem is not None:
        problems.append(f"tool continuation carrier: {problem}: every result reads as unstated")
        return True
    return arguments is None or declaration["argument"] in arguments


def _declaration_problem(declaration: Any, input_schema: Any) -> str | None:
    """Why a present continuation carrier is not clean and usable; None when it is: an
    object whose only member, `argument`, is a well-formed name that the `inputSchema`
    declares as an optional string property."""
    if not isinstance(declaration, Mapping):
        return f"{_json_type(declaration)}, not an object"
    carrier = cast("Mapping[str, Any]", declaration)
    unknown = sorted(str(name) for name in carrier if name != "argument")
    if unknown:
        return f"unknown member {unknown[0]!r}"
    argument = carrier.get("argument")
    if not isinstance(argument, str) or _ARGUMENT_NAME.fullmatch(argument) is None:
        return "argument is not a well-formed name"
    schema = cast("Mapping[str, Any]", input_schema if isinstance(input_schema, Mapping) else {})
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or argument not in properties:
        return f"{argument!r} is not a property of the inputSchema"
    types = _schema_types(cast("Mapping[str, Any]", properties)[argument])
    if "string" not in types or not types <= {"string", "null"}:
        return f"{argument!r} is not of type string in the inputSchema"
    required = schema.get("required", [])
    if not isinstance(required, list) or argument in cast("list[Any]", required):
        return f"{argument!r} is required in the inputSchema"
    return None


def _schema_types(schema: Any, *, branch: bool = False) -> set[str]:
    """The JSON types a property's schema names: its `type` (a string or an array), or
    else the `type` of every branch of its `anyOf` (one level); empty when a branch names none."""
    if not isinstance(schema, Mapping):
        return set()
    wire = cast("Mapping[str, Any]", schema)
    named = wire.get("type")
    if isinstance(named, str):
        return {named}
    if isinstance(named, list):
        return {str(name) for name in cast("list[Any]", named)}
    branches = wire.get("anyOf")
    if branch or named is not None or not isinstance(branches, list) or not branches:
        return set()
    found: set[str] = set()
    for each in cast("list[Any]", branches):
        types = _schema_types(each, branch=True)
        if not types:
            return set()
        found |= types
    return found


@dataclass
class _Carrier:
    """The known members of one carrier, and whether it is unclean (an unknown or malformed member)."""

    members: dict[str, Any]
    unclean: bool

    @classmethod
    def read(
        cls, meta: Mapping[str, Any] | None, where: str, names: frozenset[str], problems: list[str]
    ) -> _Carrier | None:
        value = meta.get(EXTENSION_ID) if meta is not None else None
        if value is None:
            return None
        if not isinstance(value, Mapping):
            problems.append(f"{where} carrier is {_json_type(value)}, not an object: every member reads as malformed")
            return cls(dict.fromkeys(names, _NOT_AN_OBJECT), unclean=True)
        carrier = cls({}, unclean=False)
        for name, member in value.items():  # pyright: ignore[reportUnknownVariableType]
            if name in names:
                carrier.members[name] = member
            else:
                carrier.unclean = True
                problems.append(f"{where} carrier: unknown member {name!r} ignored")
        carrier.unclean |= any(not _well_formed(name, member) for name, member in carrier.members.items())
        return carrier

    def get(self, name: str) -> Any:
        return self.members.get(name)


_NOT_AN_OBJECT: Any = object()
"""Every member of a carrier that is not an object: malformed, and already reported with its carrier."""


def _well_formed(name: str, value: Any) -> bool:
    if value is None:
        return True
    if name in ("verbatimHint", "summarizeOkHint", "complete"):
        return isinstance(value, bool)
    if not isinstance(value, str):
        return False
    if name == "guidance":
        return guidance_problem(value) is None
    if name == "nullDisplay":
        return null_display_problem(value) is None
    return True


def _malformed(name: str, value: Any, detail: str, reads_as: str, problems: list[str]) -> None:
    if value is not _NOT_AN_OBJECT:
        problems.append(f"{name} is malformed ({detail}): {reads_as}")


def _result_mode(directive: _Carrier | None, problems: list[str]) -> Mode | None:
    if directive is None:
        return None
    value = directive.get("mode")
    if value is not None and not isinstance(value, str):
        _malformed("mode", value, f"{_json_type(value)}, not a string", "read as 'verbatim'", problems)
    if directive.unclean:
        # A misspelled member may have meant verbatim: an unclean directive reads verbatim, stated mode or not.
        return "verbatim"
    if value is None:
        return None
    # "verbatim" and every unregistered string read as verbatim.
    return "summarizable" if value == "summarizable" else "verbatim"


def _hinted_mode(hints: _Carrier | None, problems: list[str]) -> Mode:
    if hints is None:
        return "unspecified"
    verbatim = _hint(hints, "verbatimHint", safe=True, problems=problems)
    summarize = _hint(hints, "summarizeOkHint", safe=False, problems=problems)
    # The same table for every result: a verbatim tool's error result stays verbatim. An unclean carrier reads
    # `verbatimHint` true and `summarizeOkHint` false, whatever it states.
    if verbatim or hints.unclean:
        return "verbatim"
    return "summarizable" if summarize else "unspecified"


def _hint(hints: _Carrier, name: str, *, safe: bool, problems: list[str]) -> bool:
    value = hints.get(name)
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    _malformed(name, value, f"{_json_type(value)}, not a boolean", f"read as {str(safe).lower()}", problems)
    return safe


def _string_member(
    directive: _Carrier | None, name: str, check: Callable[[str], str | None], problems: list[str]
) -> str | None:
    value = directive.get(name) if directive is not None else None
    if value is None:
        return None
    detail = check(value) if isinstance(value, str) else f"{_json_type(value)}, not a string"
    if detail is not None:
        _malformed(name, value, detail, "ignored", problems)
        return None
    return value


def _completeness(directive: _Carrier | None, problems: list[str]) -> Completeness:
    value = directive.get("complete") if directive is not None else None
    if value is None:
        return "unstated"
    if not isinstance(value, bool):
        _malformed("complete", value, f"{_json_type(value)}, not a boolean", "completeness unstated", problems)
        return "unstated"
    if not value:
        return "incomplete"
    # An unclean carrier can ask to show more, never less.
    return "unstated" if directive is not None and directive.unclean else "complete"


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
