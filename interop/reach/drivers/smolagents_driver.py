"""Measures what smolagents (`smolagents[mcp]`) hands the model for one call of the financial tool, with the
`ToolCollection.from_mcp` default and (option ``structured``) with ``structured_output=True``.

No model is involved: the tool is called, and its output is reported as `ToolCallingAgent` writes the observation
into the model's next input: ``str(output).strip()``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from _common import failure, run, text_parts
from mcp import StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]
from smolagents import ToolCollection  # pyright: ignore[reportMissingImports]


def _call(job: dict[str, Any], tool_name: str) -> str:
    params = StdioServerParameters(command=job["command"], args=job["args"], cwd=job.get("cwd"))
    structured = True if job["options"].get("structured") else None
    with ToolCollection.from_mcp(params, trust_remote_code=True, structured_output=structured) as collection:
        tool = next(tool for tool in collection.tools if tool.name == tool_name)
        return str(tool()).strip()


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    try:
        observation = await asyncio.to_thread(_call, job, tool_name)  # the collection runs its own event loop
    except Exception as error:  # the agent writes the error's text as the observation instead
        return failure(error)
    return {"payload": observation, "parts": text_parts(observation)}


if __name__ == "__main__":
    run(_observe, "smolagents", "mcpadapt", "mcp")
