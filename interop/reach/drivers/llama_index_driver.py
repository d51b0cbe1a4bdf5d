"""Measures what LlamaIndex (`llama-index-tools-mcp`) hands the model for one call of the financial tool.

No model is involved: the `FunctionTool` that `McpToolSpec.to_tool_list_async()` made is called as an agent calls
it, and the `ToolOutput.content` it returned is reported: the text `FunctionAgent` puts in the tool message.
"""

from __future__ import annotations

from typing import Any

from _common import failure, run, text_parts
from llama_index.tools.mcp import BasicMCPClient, McpToolSpec  # pyright: ignore[reportMissingImports]


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    # The client takes no working directory: the example server is importable from any (the project is installed).
    client = BasicMCPClient(job["command"], args=job["args"], timeout=60)
    tools = await McpToolSpec(client=client).to_tool_list_async()
    tool = next(tool for tool in tools if tool.metadata.name == tool_name)
    try:
        output = await tool.acall()
    except Exception as error:  # the agent hands the model the error's text instead
        return failure(error)
    if output.is_error:
        return {"payload": output.content, "parts": [{"kind": "error", "text": output.content}]}
    return {"payload": output.content, "parts": text_parts(output.content)}


if __name__ == "__main__":
    run(_observe, "llama-index-tools-mcp", "llama-index-core", "mcp")
