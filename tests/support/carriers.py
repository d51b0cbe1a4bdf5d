"""Test fixtures written in one directive dictionary, sent as the two extensions' carriers.

A fixture's `continuation` goes to the result continuation carrier; a fixture that says nothing of completeness
states `complete: true`, as every directive on the wire must.
"""

from __future__ import annotations

from typing import Any

from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID

CONTINUATION_TOOL_META = {CONTINUATION_ID: {"argument": "cursor"}}
"""The `_meta` of a tool whose continuation argument is `cursor`."""


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
