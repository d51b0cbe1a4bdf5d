"""Measures what `langchain-mcp-adapters` hands the model: the `ToolMessage` of one call of the financial tool.

No model is involved: the loaded tool is invoked with a tool call, as an agent would, and the message's content
(the part a chat model receives; the artifact stays with the application) is reported. With ``helped``, the tools
are loaded with `mcp_rendering.integrations.langchain.rendering_interceptor`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from _common import emit, read_request, versions
from langchain_mcp_adapters.tools import load_mcp_tools  # pyright: ignore[reportMissingImports]
from mcp import ClientSession, StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]
from mcp.client.stdio import stdio_client


def _parts(content: Any) -> list[dict[str, Any]]:
    blocks = [content] if isinstance(content, str) else list(content)
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, str):
            parts.append({"kind": "text", "text": block})
        elif block.get("type") == "text":
            parts.append({"kind": "text", "text": block["text"]})
        elif block.get("type") == "file" and "url" in block:
            parts.append({"kind": "file", "url": block["url"]})
        else:
            parts.append({"kind": "json", "value": block})
    return parts


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    params = StdioServerParameters(command=job["command"], args=job["args"], cwd=job.get("cwd"))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        if job["helped"]:
            from mcp_rendering.integrations.langchain import rendering_interceptor

            interceptor = rendering_interceptor(session, server="example-financial")
            tools = await load_mcp_tools(session, tool_interceptors=[interceptor])
        else:
            tools = await load_mcp_tools(session)
        tool = next(tool for tool in tools if tool.name == tool_name)
        message = await tool.ainvoke({"type": "tool_call", "id": "call-1", "name": tool_name, "args": {}})
    return {"payload": message.content, "parts": _parts(message.content)}


async def main() -> None:
    request = read_request()
    observations = {job["id"]: await _observe(job, request["tool"]) for job in request["jobs"]}
    emit({"versions": versions("langchain-mcp-adapters", "langchain-core", "mcp"), "observations": observations})


if __name__ == "__main__":
    asyncio.run(main())
