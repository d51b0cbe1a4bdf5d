"""Measures what Agno (`agno.tools.mcp.MCPTools`) hands the model for one call of the financial tool.

No model is involved: the entrypoint of the toolkit's `Function` for the tool is called as the agent calls it,
and the `content` of the `ToolResult` it returned is reported: the text of the tool message the model receives.
"""

from __future__ import annotations

from typing import Any

from _common import failure, run, text_parts
from agno.tools.mcp import MCPTools  # pyright: ignore[reportMissingImports]
from mcp import StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    params = StdioServerParameters(command=job["command"], args=job["args"], cwd=job.get("cwd"))
    async with MCPTools(server_params=params, timeout_seconds=60) as toolkit:
        entrypoint = toolkit.functions[tool_name].entrypoint
        try:
            result = await entrypoint()
        except Exception as error:  # the agent hands the model the error's text instead
            return failure(error)
    text = str(result.content)
    if text.startswith(f"Error from MCP tool '{tool_name}'"):
        return {"payload": text, "parts": [{"kind": "error", "text": text}]}
    return {"payload": text, "parts": text_parts(text)}


if __name__ == "__main__":
    run(_observe, "agno", "fastmcp", "mcp")
