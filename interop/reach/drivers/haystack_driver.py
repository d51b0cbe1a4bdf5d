"""Measures what Haystack (`mcp-haystack`) hands the model for one call of the financial tool.

No model is involved: the `MCPTool` is invoked as `ToolInvoker` invokes it, and the string it returned is
reported: `ToolInvoker` puts a string result in the `ToolCallResult` the chat generator sends as is.
"""

from __future__ import annotations

import asyncio
from typing import Any

from _common import failure, run, text_parts
from haystack_integrations.tools.mcp import MCPTool, StdioServerInfo  # pyright: ignore[reportMissingImports]


def _call(job: dict[str, Any], tool_name: str) -> Any:
    tool = MCPTool(name=tool_name, server_info=StdioServerInfo(command=job["command"], args=job["args"]))
    try:
        return tool.invoke()
    finally:
        tool.close()


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    try:
        output = await asyncio.to_thread(_call, job, tool_name)  # a synchronous tool, with its own event loop
    except Exception as error:  # the invoker hands the model the error's text instead
        return failure(error)
    return {"payload": output, "parts": text_parts(output)}


if __name__ == "__main__":
    run(_observe, "mcp-haystack", "haystack-ai", "mcp")
