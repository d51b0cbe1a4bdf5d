# pyright: reportCallIssue=false, reportAttributeAccessIssue=false
# (the rendering fields are added to the SDK's models at run time by install(); static analysis cannot see them)
"""A small MCPServer with the rendering extension, used by the end-to-end tests in process and over stdio.

`python -m tests.support.hinted_server [core|core-kept|meta|both]` chooses the carriers its verbatim tool and result
use:

- `core`: the core form only (`ToolAnnotations.verbatimHint`, `CallToolResult._rendering`); the extension's
  middleware moves it into the `_meta` carrier on the way out;
- `core-kept`: the same, with `RenderingExtension(core_form=True)`, which keeps the core form on the wire beside the
  carrier it fills in;
- `meta`: the normative `_meta` carrier only (no SDK patch needed on either side);
- `both`: both, disagreeing (`DISAGREEING_CORE` against `META`), kept on the wire (`core_form=True`), so that a test
  can see which one a reader takes.
"""

from __future__ import annotations

import sys
from typing import Any, Literal

import mcp_types
from mcp.server.mcpserver import MCPServer

from mcp_rendering import RenderingExtension
from mcp_rendering.extension import ResultContinuationExtension
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID, Rendering

GUIDANCE = "Show every row of every section in order; show null values as 'n/a'."
LINES = {"lines": [["Total assets", 1200], ["Total liabilities", None]]}
META = {"mode": "verbatim", "nullDisplay": "n/a", "complete": False}
"""The `_meta` directive of the `meta` and `both` servers."""
CONTINUATION = {"argument": "cursor", "token": "meta.1"}
"""The result continuation carrier of the `meta` and `both` servers."""
DISAGREEING_CORE = {"mode": "summarizable", "nullDisplay": "n/a", "guidance": GUIDANCE, "complete": True}
"""The core form the `both` server sends beside `META`: a reader reads the carrier, never the core form behind it."""

Carriers = Literal["core", "core-kept", "meta", "both"]


def build_server(carriers: Carriers = "core") -> MCPServer:
    """Build the server. The patch is installed by the extension before any tool is declared."""
    rendering = RenderingExtension(core_form=carriers in ("core-kept", "both"))
    continuation = ResultContinuationExtension()
    server = MCPServer("hinted", extensions=[rendering, continuation], middleware=[rendering, continuation])
    tool_meta = {
        EXTENSION_ID: {"verbatimHint": True, "summarizeOkHint": False},
        CONTINUATION_ID: {"argument": "cursor"},
    }

    if carriers in ("core", "core-kept"):
        annotations = mcp_types.ToolAnnotations(verbatim_hint=True, summarize_ok_hint=False)
        decorated = server.tool(annotations=annotations)
    elif carriers == "meta":
        decorated = server.tool(annotations=mcp_types.ToolAnnotations(read_only_hint=True), meta=tool_meta)
    else:
        annotations = mcp_types.ToolAnnotations(verbatim_hint=False, summarize_ok_hint=True)
        decorated = server.tool(annotations=annotations, meta=tool_meta)

    @decorated
    def balance_sheet(cursor: str | None = None) -> mcp_types.CallToolResult:  # declared, as the tool carrier says
        """The balance sheet, every line."""
        del cursor  # one part only here: the tests follow the continuation no further
        wire: dict[str, Any] = {
            "content": [{"type": "text", "text": "Total assets | 1200\nTotal liabilities | -"}],
            "structuredContent": LINES,
        }
        if carriers in ("core", "core-kept"):
            wire["_rendering"] = Rendering(
                mode="verbatim", guidance=GUIDANCE, null_display="n/a", complete=True
            ).model_dump(by_alias=True, exclude_none=True)
        else:
            wire["_meta"] = {EXTENSION_ID: META, CONTINUATION_ID: CONTINUATION}
            if carriers == "both":
                wire["_rendering"] = DISAGREEING_CORE
        return mcp_types.CallToolResult.model_validate(wire)

    @server.tool(annotations=mcp_types.ToolAnnotations(summarize_ok_hint=True, read_only_hint=True))
    def headline() -> str:
        """A one-line headline, fine to summarize."""
        return "Revenue up 4%"

    @server.tool()
    def plain() -> str:
        """A tool that says nothing about rendering."""
        return "plain"

    return server


if __name__ == "__main__":
    choice = sys.argv[1] if len(sys.argv) > 1 else "core"
    if choice not in ("core", "core-kept", "meta", "both"):
        sys.exit(f"unknown carriers {choice!r}: choose core, core-kept, meta or both")
    build_server(choice).run("stdio")  # pyright: ignore[reportArgumentType]
