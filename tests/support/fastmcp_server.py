# pyright: reportCallIssue=false, reportAttributeAccessIssue=false
# (the rendering fields are added to the SDK's models at run time by install(); static analysis cannot see them)
"""A FastMCP 4 server declaring the hints through FastMCP's own decorator, for the FastMCP end-to-end test."""

from __future__ import annotations

import mcp_types
from fastmcp import FastMCP

import mcp_rendering
from mcp_rendering import Rendering

mcp_rendering.install()  # after FastMCP is imported, before any tool is declared

app = FastMCP("fastmcp-hinted")


@app.tool(annotations=mcp_types.ToolAnnotations(verbatim_hint=True, read_only_hint=True))
def screening() -> mcp_types.CallToolResult:
    """Every flagged name of a screening batch."""
    return mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text="1. Ilse Varkonen (fictional) - 92%")],
        rendering=Rendering(mode="verbatim", guidance="List every flagged name."),
    )


@app.tool(annotations=mcp_types.ToolAnnotations(summarize_ok_hint=True))
def overview() -> str:
    """A short overview, fine to summarize."""
    return "3 batches screened"


if __name__ == "__main__":
    app.run("stdio", show_banner=False, log_level="ERROR")
