"""Measures what the BeeAI Framework (`beeai-framework[mcp]`) hands the model for one call of the financial tool.

No model is involved: the `MCPTool` built by `MCPTool.from_session` is run, and the `get_text_content()` of the
output it returned is reported: the text a `RequirementAgent` puts in the tool message.
"""

from __future__ import annotations

from typing import Any

from _common import failure, run, text_parts
from beeai_framework.tools.mcp import MCPTool  # pyright: ignore[reportMissingImports]
from mcp import ClientSession, StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]
from mcp.client.stdio import stdio_client


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    params = StdioServerParameters(command=job["command"], args=job["args"], cwd=job.get("cwd"))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tool = next(tool for tool in await MCPTool.from_session(session) if tool.name == tool_name)
        try:
            output = await tool.run({})
        except Exception as error:  # the agent hands the model the error's text instead
            return failure(error)
    text = output.get_text_content()
    return {"payload": text, "parts": text_parts(text)}


if __name__ == "__main__":
    run(_observe, "beeai-framework", "mcp")
