"""Measures the user's final answer from Pydantic AI's own agent loop (`Agent.run`).

Its `FunctionModel` (no model, no network) calls the job's tools of an `MCPToolset` (`_common.script`: by default
the financial tool), then writes the three-line summary the job gives (a stand-in for a model that summarizes).
The final answer is the run's `output`; the outputs, what the model read of each call (each tool return, or the
retry prompt of a failed call). With ``helped``, the agent takes the capability
`mcp_rendering.integrations.pydantic_ai.DirectAnswers`.
"""

from __future__ import annotations

from typing import Any

from _common import run, script, server_name
from fastmcp.client.transports import StdioTransport  # pyright: ignore[reportMissingImports]
from pydantic_ai import Agent  # pyright: ignore[reportMissingImports]
from pydantic_ai.mcp import MCPToolset  # pyright: ignore[reportMissingImports]
from pydantic_ai.messages import (  # pyright: ignore[reportMissingImports]
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel  # pyright: ignore[reportMissingImports]


def _answered(message: Any) -> bool:
    return isinstance(message, ModelRequest) and any(
        isinstance(part, (ToolReturnPart, RetryPromptPart)) for part in message.parts
    )


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    turns = script(job, tool_name)

    def respond(messages: list[Any], info: AgentInfo) -> ModelResponse:
        del info
        rounds = sum(_answered(message) for message in messages)
        if rounds >= len(turns):
            return ModelResponse(parts=[TextPart(job["options"]["summary"])])
        calls = [
            ToolCallPart(tool_name=call["name"], args=call["args"], tool_call_id=f"call-{rounds}-{n}")
            for n, call in enumerate(turns[rounds])
        ]
        return ModelResponse(parts=calls)

    transport = StdioTransport(command=job["command"], args=job["args"], cwd=job.get("cwd"))
    toolset = MCPToolset(transport, id=server_name(job), init_timeout=60)
    capabilities: list[Any] = []
    if job["helped"]:
        from mcp_rendering.integrations.pydantic_ai import DirectAnswers

        capabilities.append(DirectAnswers())
    agent = Agent(FunctionModel(respond), toolsets=[toolset], capabilities=capabilities)
    async with agent:
        result = await agent.run("Show the annual accounts.")
    outputs = [
        part.model_response_str() if isinstance(part, ToolReturnPart) else part.model_response()
        for message in result.all_messages()
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, (ToolReturnPart, RetryPromptPart))
    ]
    return {"final": str(result.output), "outputs": outputs}


if __name__ == "__main__":
    run(_observe, "pydantic-ai-slim", "fastmcp-slim", "mcp")
