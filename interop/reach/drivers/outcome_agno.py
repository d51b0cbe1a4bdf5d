"""Measures the user's final answer from Agno's own agent loop (`Agent.arun`).

A scripted model (a `Model` that calls no provider) makes the job's tool calls (by default the financial tool once)
through an `MCPTools` toolkit, then writes the three-line summary the job gives (a stand-in for a model that
summarizes). The final answer is the run's `RunOutput.content`, where Agno applications read it; the outputs are
the text of each tool message. With ``helped``, the toolkit is the adapter's
`mcp_rendering.integrations.agno.DirectAnswerMCPTools` and the agent takes its post-hook.
"""

from __future__ import annotations

import json
from typing import Any

from _common import run, script, server_name
from agno.agent import Agent  # pyright: ignore[reportMissingImports]
from agno.models.base import Model  # pyright: ignore[reportMissingImports]
from agno.models.response import ModelResponse  # pyright: ignore[reportMissingImports]
from agno.tools.mcp import MCPTools  # pyright: ignore[reportMissingImports]
from mcp import StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]


class ScriptedModel(Model):  # pyright: ignore[reportUntypedBaseClass]
    """Makes the calls of each turn of `turns` in order (one turn per model turn that called tools so far), then
    writes `summary`."""

    def __init__(self, turns: list[list[dict[str, Any]]], summary: str) -> None:
        super().__init__(id="scripted")
        self.turns = turns
        self.summary = summary

    def _respond(self, messages: list[Any]) -> Any:
        done = sum(1 for message in messages if message.role == "assistant" and message.tool_calls)
        if done >= len(self.turns):
            return ModelResponse(role="assistant", content=self.summary)
        calls = [
            {
                "id": f"call-{done}-{n}",
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c["args"])},
            }
            for n, c in enumerate(self.turns[done])
        ]
        return ModelResponse(role="assistant", tool_calls=calls)

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
    model = ScriptedModel(script(job, tool_name), job["options"]["summary"])
    if job["helped"]:
        from mcp_rendering.integrations.agno import DirectAnswerMCPTools

        toolkit: Any = DirectAnswerMCPTools(server_params=params, timeout_seconds=60, server=server_name(job))
    else:
        toolkit = MCPTools(server_params=params, timeout_seconds=60)
    async with toolkit:
        hooks = [toolkit.final_answer_hook] if job["helped"] else None
        agent = Agent(model=model, tools=[toolkit], post_hooks=hooks)
        output = await agent.arun("Show the annual accounts.")
    outputs = [str(message.content) for message in output.messages or [] if message.role == "tool"]
    return {"final": str(output.content or ""), "outputs": outputs}


if __name__ == "__main__":
    run(_observe, "agno", "fastmcp", "mcp")
