"""Measures what DSPy hands the model for one call of the financial tool, with `dspy.Tool.from_mcp_tool` in its
default ``result_mode="text"`` and (option ``structured``) in ``result_mode="structured"``.

No model is involved: the tool is called as `dspy.ReAct` calls it, and the observation it returned is reported as
the chat adapter writes it into the prompt: a string as is, anything else as JSON.
"""

from __future__ import annotations

import json
from typing import Any

import dspy  # pyright: ignore[reportMissingImports]
from _common import failure, run, text_parts
from mcp import ClientSession, StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]
from mcp.client.stdio import stdio_client


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    params = StdioServerParameters(command=job["command"], args=job["args"], cwd=job.get("cwd"))
    mode = "structured" if job["options"].get("structured") else "text"
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = next(tool for tool in (await session.list_tools()).tools if tool.name == tool_name)
        tool = dspy.Tool.from_mcp_tool(session, listed, result_mode=mode)
        try:
            observation = await tool.acall()
        except Exception as error:  # ReAct writes the error's text as the observation instead
            return failure(error)
    if isinstance(observation, str):
        return {"payload": observation, "parts": text_parts(observation)}
    written = json.dumps(observation, ensure_ascii=False, default=str)
    return {"payload": written, "parts": text_parts(written)}


if __name__ == "__main__":
    run(_observe, "dspy", "mcp")
