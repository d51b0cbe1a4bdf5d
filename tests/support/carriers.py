"""Test fixtures written in one directive dictionary, sent as the two extensions' carriers.

A fixture's `continuation` goes to the result continuation carrier; a fixture that says nothing of completeness
states `complete: true`, as every directive on the wire must.
"""

from __future__ import annotations

from typing import Any

from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID

CONTINUATION_TOOL_META = {CONTINUATION_ID: {"argument": "cursor"}}
"""The `_meta` of a tool whose continuation argument is `cursor`."""


def cursor_schema() -> dict[str, Any]:
    """A new input schema of a year and `cursor`, an optional string (a test may change it in place)."""
    return {"type": "object", "properties": {"year": {"type": "integer"}, "cursor": {"type": "string"}}}


def cursor_tool(hints: Any = None, *, declaration: Any = None) -> dict[str, Any]:
    """A tool definition whose continuation argument is `cursor` (`declaration` replaces that carrier), with
    `hints` as its rendering hints carrier when given."""
    meta: dict[str, Any] = {CONTINUATION_ID: {"argument": "cursor"} if declaration is None else declaration}
    if hints is not None:
        meta[EXTENSION_ID] = hints
    return {"name": "ledger", "inputSchema": cursor_schema(), "_meta": meta}


def meta_carriers(directive: dict[str, Any]) -> dict[str, Any]:
    """The `_meta` of a result that carries `directive`."""
    members = dict(directive)
    continuation = members.pop("continuation", None)
    if "complete" not in members and continuation is None:
        members["complete"] = True
    meta: dict[str, Any] = {EXTENSION_ID: members}
    if continuation is not None:
        meta[CONTINUATION_ID] = continuation
    return meta
