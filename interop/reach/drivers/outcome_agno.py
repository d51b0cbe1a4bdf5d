"""Measures the user's final answer from Agno's own agent loop (`Agent.arun`).

A scripted model (a `Model` that calls no provider) calls the financial tool of an `MCPTools` toolkit, then writes
the three-line summary the job gives (a stand-in for a model that summarizes). The final answer is the run's
`RunOutput.content`, where Agno applications read it. With ``helped``, the toolkit is the adapter's
`mcp_rendering.integrations.agno.DirectAnswerMCPTools` and the agent takes its post-hook.
"""

from __future__ import annotations

from typing import Any

from _common import run
from agno.agent import Agent  # pyright: ignore[reportMissingImports]
from agno.models.base import Model  # pyright: ignore[reportMissingImports]
from agno.models.response import ModelResponse  # pyright: ignore[reportMissingImports]
from agno.tools.mcp import MCPTools  # pyright: ignore[reportMissingImports]
from mcp import StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]


class ScriptedModel(Model):  # pyright: ignore[reportUntypedBaseClass]
    """Calls `tool` once; once it has a tool result, writes `summary`."""

    def __init__(self, tool: str, summary: str) -> None:
        super().__init__(id="scripted")
        self.tool = tool
        self.summary = summary

    def _respond(self, messages: list[Any]) -> Any:
        if any(message.role == "tool" for message in messages):
            return ModelResponse(role="assistant", content=self.summary)
        call = {"id": "call-1", "type": "function", "function": {"name": self.tool, "arguments": "{}"}}
        return ModelResponse(role="assistant", tool_calls=[call])

    def invoke(self, messages: list[Any], **kwargs: Any) -> Any:
        return self._respond(messages)

    async def ainvoke(self, messages: list[Any], **kwargs: Any) -> Any:
        return self._respond(messages)

    def invoke_stream(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def ainvoke_stream(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def _parse_provider_response(self, response: Any, **kwargs: Any) -> Any:
        return response

    def _parse_provider_response_delta(self, response: Any) -> Any:
        return response


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    params = StdioServerParameters(command=job["command"], args=job["args"], cwd=job.get("cwd"))
    model = ScriptedModel(tool_name, job["options"]["summary"])
    if job["helped"]:
        from mcp_rendering.integrations.agno import DirectAnswerMCPTools

        toolkit: Any = DirectAnswerMCPTools(
            server_params=params, timeout_seconds=60, rendering_server_name="example-financial"
        )
    else:
        toolkit = MCPTools(server_params=params, timeout_seconds=60)
    async with toolkit:
        hooks = [toolkit.final_answer_hook] if job["helped"] else None
        agent = Agent(model=model, tools=[toolkit], post_hooks=hooks)
        output = await agent.arun("Show the annual accounts.")
    return {"final": str(output.content or "")}


if __name__ == "__main__":
    run(_observe, "agno", "fastmcp", "mcp")
