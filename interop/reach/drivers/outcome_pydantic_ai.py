"""Measures the user's final answer from Pydantic AI's own agent loop (`Agent.run`).

Its `FunctionModel` (no model, no network) calls the financial tool of an `MCPToolset`, then writes the three-line
summary the job gives (a stand-in for a model that summarizes). The final answer is the run's `output`. With
``helped``, the agent takes the capability `mcp_rendering.integrations.pydantic_ai.DirectAnswers`.
"""

from __future__ import annotations

from typing import Any

from _common import run
from fastmcp.client.transports import StdioTransport  # pyright: ignore[reportMissingImports]
from pydantic_ai import Agent  # pyright: ignore[reportMissingImports]
from pydantic_ai.mcp import MCPToolset  # pyright: ignore[reportMissingImports]
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart  # pyright: ignore[reportMissingImports]
from pydantic_ai.models.function import AgentInfo, FunctionModel  # pyright: ignore[reportMissingImports]


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    def respond(messages: list[Any], info: AgentInfo) -> ModelResponse:
        del info
        parts = [part for message in messages for part in getattr(message, "parts", [])]
        if any(isinstance(part, ToolReturnPart) for part in parts):
            return ModelResponse(parts=[TextPart(job["options"]["summary"])])
        return ModelResponse(parts=[ToolCallPart(tool_name=tool_name, args={}, tool_call_id="call-1")])

    toolset = MCPToolset(StdioTransport(command=job["command"], args=job["args"], cwd=job.get("cwd")))
    capabilities: list[Any] = []
    if job["helped"]:
        from mcp_rendering.integrations.pydantic_ai import DirectAnswers

        capabilities.append(DirectAnswers(server="example-financial"))
    agent = Agent(FunctionModel(respond), toolsets=[toolset], capabilities=capabilities)
    async with agent:
        result = await agent.run("Show the annual accounts.")
    return {"final": str(result.output)}


if __name__ == "__main__":
    run(_observe, "pydantic-ai-slim", "fastmcp-slim", "mcp")
