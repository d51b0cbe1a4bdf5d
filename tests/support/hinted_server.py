# pyright: reportCallIssue=false, reportAttributeAccessIssue=false
# (the rendering fields are added to the SDK's models at run time by install(); static analysis cannot see them)
"""A small MCPServer with the rendering extension, used by the end-to-end tests in-process and over stdio."""

from __future__ import annotations

import sys

import mcp_types
from mcp.server.mcpserver import MCPServer

from mcp_rendering import RenderingExtension
from mcp_rendering.types import Rendering

GUIDANCE = "Show every row of every section in order; show null values as '-'."


def build_server() -> MCPServer:
    """Build the server. The patch is installed by the extension before any tool is declared."""
    rendering = RenderingExtension()
    server = MCPServer("hinted", extensions=[rendering], middleware=[rendering])

    @server.tool(annotations=mcp_types.ToolAnnotations(verbatim_hint=True, summarize_ok_hint=False))
    def balance_sheet() -> mcp_types.CallToolResult:
        """The balance sheet, every line."""
        return mcp_types.CallToolResult(
            content=[mcp_types.TextContent(type="text", text="Total assets | 1200\nTotal liabilities | -")],
            structured_content={"lines": [["Total assets", 1200], ["Total liabilities", None]]},
            rendering=Rendering(mode="verbatim", guidance=GUIDANCE, null_display="-"),
        )

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
    build_server().run("stdio")
    sys.exit(0)
