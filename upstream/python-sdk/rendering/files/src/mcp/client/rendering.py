"""A host's reading of the rendering extension (`io.modelcontextprotocol/rendering`).

Provisional: the extension is a proposal under review, so this module's names
and behaviour may change in a 2.x minor release.

`read_rendering(tool, result)` reads the tool's hints and the result's directive
as the extension's reading tables give. It never raises on what a server sent,
and fails safe: only a literal `true` reads complete or summarizable, so a
misspelled, mistyped or missing member moves a reading towards verbatim and
partial, never away. Unknown members are ignored and reported.

    async with Client(url, extensions=[RENDERING_SUPPORT]) as client:
        reading = read_rendering(tool, await client.call_tool(tool.name, {}))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, cast

from mcp_types import CallToolResult, Tool

from mcp.client.extension import advertise
from mcp.shared._rendering import DEFAULT_NULL_DISPLAY, EXTENSION_ID, GUIDANCE_MAX_LENGTH, usable_null_text

__all__ = ["RENDERING_SUPPORT", "RenderingReading", "read_rendering"]

RENDERING_SUPPORT = advertise(EXTENSION_ID)
"""The client's declaration, for `Client(extensions=[...])`."""

_MEMBERS: dict[str, dict[str, Callable[[Any], bool]]] = {
    "tool": {"verbatimHint": lambda v: isinstance(v, bool), "summarizeOkHint": lambda v: isinstance(v, bool)},
    "result": {
        "mode": lambda v: isinstance(v, str),
        "guidance": lambda v: isinstance(v, str) and len(v) <= GUIDANCE_MAX_LENGTH,
        "nullDisplay": lambda v: isinstance(v, str) and usable_null_text(v),
        "complete": lambda v: isinstance(v, bool),
    },
}
"""Each carrier's members, with the test of a well-formed value."""


@dataclass(frozen=True, kw_only=True)
class RenderingReading:
    """How a host presents one result.

    `mode` is `None` when nothing states it (the host keeps its default);
    `complete` is `None` when completeness is not stated. `guidance` is text the
    server wrote: show it as the server's advice, never follow it as an instruction.
    """

    mode: Literal["verbatim", "summarizable"] | None
    complete: bool | None
    guidance: str | None
    null_display: str
    problems: tuple[str, ...]

    @property
    def partial(self) -> bool:
        """Whether the host must not present the result as complete."""
        return self.complete is not True


def read_rendering(tool: Tool, result: CallToolResult) -> RenderingReading | None:
    """Read `result` of `tool`; `None` when neither carries the extension."""
    problems: list[str] = []
    hints = _carrier(tool.meta, "tool", problems)
    directive = _carrier(result.meta, "result", problems)
    if hints is None and directive is None:
        return None
    members, unclean = hints or ({}, False)
    # A malformed member makes its carrier unclean: it reads towards verbatim, whatever else it says.
    verbatim_hint = unclean or members.get("verbatimHint") is True
    summarize_ok_hint = not unclean and members.get("summarizeOkHint") is True
    mode: str | None = None
    complete: bool | None = None
    guidance: str | None = None
    null_display = DEFAULT_NULL_DISPLAY
    if directive is not None:
        members, unclean = directive
        mode = "verbatim" if unclean else members.get("mode")
        if mode not in (None, "verbatim", "summarizable"):
            problems.append(f"result: mode {mode!r} is unknown; read as 'verbatim'")
            mode = "verbatim"
        complete = None if unclean and members.get("complete") is True else members.get("complete")
        guidance = members.get("guidance")
        null_display = members.get("nullDisplay", DEFAULT_NULL_DISPLAY)
    if mode is None:
        mode = "verbatim" if verbatim_hint else "summarizable" if summarize_ok_hint else None
    elif result.is_error and verbatim_hint:
        mode = "verbatim"
    return RenderingReading(
        mode=mode, complete=complete, guidance=guidance, null_display=null_display, problems=tuple(problems)
    )


def _carrier(meta: dict[str, Any] | None, where: str, problems: list[str]) -> tuple[dict[str, Any], bool] | None:
    """A carrier's well-formed members and whether it is unclean; `None` when it is absent."""
    carrier = (meta or {}).get(EXTENSION_ID)
    if carrier is None:
        return None
    if not isinstance(carrier, dict):
        problems.append(f"{where}: the carrier is not an object; read as unclean")
        return {}, True
    members: dict[str, Any] = {}
    unclean = False
    for name, value in cast("dict[str, Any]", carrier).items():
        well_formed = _MEMBERS[where].get(name)
        if well_formed is None:
            problems.append(f"{where}: unknown member {name!r} ignored")
        elif value is not None and not well_formed(value):
            problems.append(f"{where}: {name} is malformed; the carrier reads as unclean")
            unclean = True
        elif value is not None:
            members[name] = value
    return members, unclean
