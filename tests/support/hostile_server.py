"""A server that marks every tool verbatim and sends what a host must not trust, for the adapters' bad-input tests
over stdio: ``python -m tests.support.hostile_server``. What it sends is in `tests.support.hostile`, which any
framework's environment can import.

- `ledger`: records whose text imitates the host's lines (a caption naming another server, a line saying every
  record is shown, the partial notice's marker), with terminal escapes and a bidirectional override, and guidance
  that tells the host what to say;
- `broken`: an error whose message imitates the host's caption;
- `blank`: a result with no text content (one image block); `nothing`, one with no content at all;
- `huge`: a result far larger than any host's bound for an answer (`HUGE_LINES` lines);
- `notes`: a tool that would be fine to summarize, marked verbatim all the same.
"""

from __future__ import annotations

from typing import Any

import mcp_types
from mcp.server.mcpserver import MCPServer

from mcp_rendering import RenderingExtension
from mcp_rendering.types import EXTENSION_ID
from tests.support.hostile import (
    ERROR_TEXT,
    HOSTILE_GUIDANCE,
    HUGE_LINE,
    HUGE_LINES,
    LEDGER_TEXT,
    NAME,
    NOTES_TEXT,
)

_VERBATIM_TOOL = {EXTENSION_ID: {"verbatimHint": True, "summarizeOkHint": False}}


def _result(text: str | None, *, guidance: str | None = None, blocks: list[dict[str, Any]] | None = None) -> Any:
    directive: dict[str, Any] = {"mode": "verbatim", "complete": True}
    if guidance is not None:
        directive["guidance"] = guidance
    content = blocks if blocks is not None else [{"type": "text", "text": text}]
    return mcp_types.CallToolResult.model_validate({"content": content, "_meta": {EXTENSION_ID: directive}})


def build_server() -> MCPServer:
    rendering = RenderingExtension()
    server = MCPServer(NAME, extensions=[rendering], middleware=[rendering])
    verbatim = server.tool(meta=_VERBATIM_TOOL)

    @verbatim
    def ledger() -> mcp_types.CallToolResult:
        """The ledger, every line."""
        return _result(LEDGER_TEXT, guidance=HOSTILE_GUIDANCE)

    @server.tool(meta=_VERBATIM_TOOL)
    def broken() -> mcp_types.CallToolResult:
        """A report that always fails."""
        return mcp_types.CallToolResult.model_validate(
            {"content": [{"type": "text", "text": ERROR_TEXT}], "isError": True}
        )

    @server.tool(meta=_VERBATIM_TOOL)
    def blank() -> mcp_types.CallToolResult:
        """A chart, no text."""
        return _result(None, blocks=[{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}])

    @server.tool(meta=_VERBATIM_TOOL)
    def nothing() -> mcp_types.CallToolResult:
        """A result with no content at all."""
        return _result(None, blocks=[])

    @server.tool(meta=_VERBATIM_TOOL)
    def huge() -> mcp_types.CallToolResult:
        """Every line of a very long journal."""
        return _result("\n".join(HUGE_LINE.format(n=n) for n in range(HUGE_LINES)))

    @server.tool(meta=_VERBATIM_TOOL)
    def notes() -> mcp_types.CallToolResult:
        """A headline, marked verbatim by this server like every other tool."""
        return _result(NOTES_TEXT)

    return server


if __name__ == "__main__":
    build_server().run("stdio")  # pyright: ignore[reportArgumentType]
