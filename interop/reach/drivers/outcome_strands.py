"""Measures the user's final answer from the agent loop of Strands Agents (`Agent.invoke_async`).

A scripted model (a `Model` that calls no provider) calls the financial tool of an `MCPClient`, then writes the
three-line summary the job gives (a stand-in for a model that summarizes). The final answer is the text of the
`AgentResult` (``str(result)``), where Strands applications read it. With ``helped``, the agent takes the hook
provider `mcp_rendering.integrations.strands.DirectAnswers`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from _common import run
from mcp import StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]
from mcp.client.stdio import stdio_client
from strands import Agent  # pyright: ignore[reportMissingImports]
from strands.models import Model  # pyright: ignore[reportMissingImports]
from strands.tools.mcp import MCPClient  # pyright: ignore[reportMissingImports]


class ScriptedModel(Model):  # pyright: ignore[reportUntypedBaseClass]
    """Calls `tool` once; once it has a tool result, writes `summary`."""

    def __init__(self, tool: str, summary: str) -> None:
        self.tool = tool
        self.summary = summary

    def update_config(self, **model_config: Any) -> None:
        del model_config

    def get_config(self) -> Any:
        return {}

    def structured_output(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def stream(self, messages: list[Any], *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        answered = any("toolResult" in block for message in messages for block in message["content"])
        yield {"messageStart": {"role": "assistant"}}
        if answered:
            yield {"contentBlockStart": {"start": {}}}
            yield {"contentBlockDelta": {"delta": {"text": self.summary}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}
            return
        yield {"contentBlockStart": {"start": {"toolUse": {"toolUseId": "call-1", "name": self.tool}}}}
        yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps({})}}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "tool_use"}}


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    params = StdioServerParameters(command=job["command"], args=job["args"], cwd=job.get("cwd"))
    hooks: list[Any] = []
    if job["helped"]:
        from mcp_rendering.integrations.strands import DirectAnswers

        hooks.append(DirectAnswers(server="example-financial"))
    client = MCPClient(lambda: stdio_client(params), startup_timeout=60)
    model = ScriptedModel(tool_name, job["options"]["summary"])
    agent = Agent(model=model, tools=[client], hooks=hooks, callback_handler=None)
    try:
        result = await agent.invoke_async("Show the annual accounts.")
    finally:
        agent.cleanup()
    return {"final": str(result)}


if __name__ == "__main__":
    run(_observe, "strands-agents", "mcp")
