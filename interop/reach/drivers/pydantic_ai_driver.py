"""Measures what Pydantic AI's `MCPToolset` hands the model for one call of the financial tool.

The agent runs with `FunctionModel`: its first turn calls the tool, its second records the `ToolReturnPart` it
received and answers. The part's content is what the toolset mapped from the result; `model_response_str()` is
the text a provider sends for it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from _common import emit, read_request, versions
from fastmcp.client.transports import StdioTransport  # pyright: ignore[reportMissingImports]
from pydantic_ai import Agent  # pyright: ignore[reportMissingImports]
from pydantic_ai.mcp import MCPToolset  # pyright: ignore[reportMissingImports]
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart  # pyright: ignore[reportMissingImports]
from pydantic_ai.models.function import AgentInfo, FunctionModel  # pyright: ignore[reportMissingImports]


def _parts(content: Any) -> list[dict[str, Any]]:
    items = content if isinstance(content, list) else [content]
    parts: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, str):
            kind = "uri" if "://" in item and "\n" not in item and " " not in item else "text"
            parts.append({"kind": kind, "uri": item} if kind == "uri" else {"kind": "text", "text": item})
        else:
            parts.append({"kind": "json", "value": item})
    return parts


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    returned: list[ToolReturnPart] = []

    def respond(messages: list[Any], info: AgentInfo) -> ModelResponse:
        del info
        parts = [part for message in messages for part in getattr(message, "parts", [])]
        returns = [part for part in parts if isinstance(part, ToolReturnPart)]
        if not returns:
            return ModelResponse(parts=[ToolCallPart(tool_name=tool_name, args={}, tool_call_id="call-1")])
        returned.extend(returns)
        return ModelResponse(parts=[TextPart("done")])

    toolset = MCPToolset(StdioTransport(command=job["command"], args=job["args"], cwd=job.get("cwd")), init_timeout=60)
    agent = Agent(FunctionModel(respond), toolsets=[toolset])
    async with agent:
        await agent.run("Show the annual accounts.")
    part = returned[0]
    return {"payload": part.content, "parts": _parts(part.content), "model_text": part.model_response_str()}


async def main() -> None:
    request = read_request()
    observations = {job["id"]: await _observe(job, request["tool"]) for job in request["jobs"]}
    emit({"versions": versions("pydantic-ai-slim", "fastmcp-slim", "mcp"), "observations": observations})


if __name__ == "__main__":
    asyncio.run(main())
