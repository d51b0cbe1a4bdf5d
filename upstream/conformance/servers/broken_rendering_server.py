"""A server that breaks the rendering extension's server rules, over streamable HTTP, on the patched SDK.

It does not declare the extension, sends a tool hint of the wrong type and an unknown tool member, and a directive
with a number-like `nullDisplay` and a misspelled `complete`. upstream/conformance/check.sh requires the
rendering-server scenario to fail it: python broken_rendering_server.py PORT
"""

import sys

import uvicorn

from mcp.server.mcpserver import MCPServer
from mcp.server.rendering import EXTENSION_ID
from mcp.types import CallToolResult, TextContent

mcp = MCPServer("broken")


@mcp.tool(meta={EXTENSION_ID: {"verbatimHint": "yes", "complete": True}})
def ledger() -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text="Assets 1,200")],
        _meta={EXTENSION_ID: {"nullDisplay": "0", "completed": True}},
    )


if __name__ == "__main__":
    uvicorn.run(mcp.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
