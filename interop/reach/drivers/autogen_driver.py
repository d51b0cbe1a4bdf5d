"""Measures what AutoGen (`autogen-ext[mcp]`) hands the model for one call of the financial tool, both ways it
offers: the `McpWorkbench` an `AssistantAgent` takes as its workbench (the default), and the tool adapters of
`mcp_server_tools` (option ``adapters``).

No model is involved. The text is built as `AssistantAgent` builds its `FunctionExecutionResult`: the workbench's
`ToolResult.to_text()`, or the adapter's `return_value_as_string()` of what `run_json` returned.
"""

from __future__ import annotations

from typing import Any

from _common import failure, run, text_parts
from autogen_core import CancellationToken  # pyright: ignore[reportMissingImports]
from autogen_ext.tools.mcp import McpWorkbench, StdioServerParams, mcp_server_tools  # pyright: ignore[reportMissingImports]


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    params = StdioServerParams(command=job["command"], args=job["args"], cwd=job.get("cwd"), read_timeout_seconds=60)
    if job["options"].get("adapters"):
        tool = next(tool for tool in await mcp_server_tools(params) if tool.name == tool_name)
        try:
            text = tool.return_value_as_string(await tool.run_json({}, CancellationToken()))
        except Exception as error:  # the agent hands the model the error's text instead
            return failure(error)
        return {"payload": text, "parts": text_parts(text)}
    async with McpWorkbench(params) as workbench:
        result = await workbench.call_tool(tool_name, {})
    text = result.to_text()
    if result.is_error:
        return {"payload": text, "parts": [{"kind": "error", "text": text}]}
    return {"payload": text, "parts": text_parts(text)}


if __name__ == "__main__":
    run(_observe, "autogen-ext", "autogen-core", "mcp")
