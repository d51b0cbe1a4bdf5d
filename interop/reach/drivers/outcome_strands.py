"""Measures the user's final answer from the agent loop of Strands Agents (`Agent.invoke_async`).

A scripted model (a `Model` that calls no provider) makes the job's tool calls (by default the financial tool once)
through an `MCPClient`, then writes the three-line summary the job gives (a stand-in for a model that summarizes).
The final answer is the text of the `AgentResult` (``str(result)``), where Strands applications read it; the
outputs are the text of each tool result in the conversation. With ``helped``, the client is the adapter's
`DirectAnswerMCPClient` and the agent takes its hook provider `mcp_rendering.integrations.strands.DirectAnswers`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from _common import run, script, server_name
from mcp import StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]
from mcp.client.stdio import stdio_client
from strands import Agent  # pyright: ignore[reportMissingImports]
from strands.models import Model  # pyright: ignore[reportMissingImports]
from strands.tools.mcp import MCPClient  # pyright: ignore[reportMissingImports]


class ScriptedModel(Model):  # pyright: ignore[reportUntypedBaseClass]
    """Makes the calls of each turn of `turns` in order (one turn per model message that called tools so far), then
    writes `summary`."""

    def __init__(self, turns: list[list[dict[str, Any]]], summary: str) -> None:
        self.turns = turns
        self.summary = summary

    def update_config(self, **model_config: Any) -> None:
        del model_config

    def get_config(self) -> Any:
        return {}

    def structured_output(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def stream(self, messages: list[Any], *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        done = sum(1 for message in messages if any("toolUse" in block for block in message["content"]))
        yield {"messageStart": {"role": "assistant"}}
        if done >= len(self.turns):
            yield {"contentBlockStart": {"start": {}}}
            yield {"contentBlockDelta": {"delta": {"text": self.summary}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}
            return
        for n, call in enumerate(self.turns[done]):
            yield {"contentBlockStart": {"start": {"toolUse": {"toolUseId": f"call-{done}-{n}", "name": call["name"]}}}}
            yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(call["args"])}}}}
            yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "tool_use"}}


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    params = StdioServerParameters(command=job["command"], args=job["args"], cwd=job.get("cwd"))
    hooks: list[Any] = []
    if job["helped"]:
        from mcp_rendering.integrations.strands import DirectAnswerMCPClient, DirectAnswers

        client = DirectAnswerMCPClient(lambda: stdio_client(params), startup_timeout=60)
        hooks.append(DirectAnswers({server_name(job): client}))
    else:
        client = MCPClient(lambda: stdio_client(params), startup_timeout=60)
    model = ScriptedModel(script(job, tool_name), job["options"]["summary"])
    agent = Agent(model=model, tools=[client], hooks=hooks, callback_handler=None)
    try:
        result = await agent.invoke_async("Show the annual accounts.")
    finally:
        agent.cleanup()
    outputs = [
        "\n".join(str(part.get("text", "")) for part in block["toolResult"]["content"] if "text" in part)
        for message in agent.messages
        for block in message["content"]
        if "toolResult" in block
    ]
    return {"final": str(result), "outputs": outputs}


if __name__ == "__main__":
    run(_observe, "strands-agents", "mcp")
