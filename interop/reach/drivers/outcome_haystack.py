"""Measures the user's final answer from Haystack's own `Agent`.

A scripted chat generator (a component that calls no provider) makes the job's tool calls (by default the financial
tool once) through an `MCPToolset`, then writes the three-line summary the job gives (a stand-in for a model that
summarizes). The final answer is the last message's ``.text``, where Haystack applications read it (empty when it
has none); the outputs are the result string of each tool message. With ``helped``, the agent takes
the hook of `mcp_rendering.integrations.haystack.direct_answers`, given the tools the server lists (read with
`mcp-haystack`'s own client), as its docs page says.
"""

from __future__ import annotations

from typing import Any

from _common import run, script, server_name
from haystack import component  # pyright: ignore[reportMissingImports]
from haystack.components.agents import Agent  # pyright: ignore[reportMissingImports]
from haystack.dataclasses import ChatMessage, ToolCall  # pyright: ignore[reportMissingImports]
from haystack_integrations.tools.mcp import MCPToolset, StdioServerInfo  # pyright: ignore[reportMissingImports]


@component
class ScriptedGenerator:
    """Makes the calls of each turn of `turns` in order (one turn per model message that called tools so far), then
    writes `summary`."""

    def __init__(self, turns: list[list[dict[str, Any]]], summary: str) -> None:
        self.turns = turns
        self.summary = summary

    @component.output_types(replies=list[ChatMessage])
    def run(self, messages: list[ChatMessage], tools: Any = None) -> dict[str, Any]:
        del tools
        done = sum(1 for message in messages if message.tool_calls)
        if done >= len(self.turns):
            return {"replies": [ChatMessage.from_assistant(self.summary)]}
        calls = [
            ToolCall(tool_name=call["name"], arguments=call["args"], id=f"call-{done}-{n}")
            for n, call in enumerate(self.turns[done])
        ]
        return {"replies": [ChatMessage.from_assistant(tool_calls=calls)]}


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    server_info = StdioServerInfo(command=job["command"], args=job["args"])
    toolset = MCPToolset(server_info, invocation_timeout=60)
    hooks: dict[str, Any] | None = None
    if job["helped"]:
        from mcp_rendering.integrations.haystack import direct_answers

        hooks = direct_answers({server_name(job): toolset})
    generator = ScriptedGenerator(script(job, tool_name), job["options"]["summary"])
    agent = Agent(chat_generator=generator, tools=toolset, hooks=hooks)
    try:
        output = await agent.run_async(messages=[ChatMessage.from_user("Show the annual accounts.")])
    finally:
        toolset.close()
    outputs = [
        str(message.tool_call_result.result) for message in output["messages"] if message.tool_call_result is not None
    ]
    return {"final": output["last_message"].text or "", "outputs": outputs}


if __name__ == "__main__":
    run(_observe, "mcp-haystack", "haystack-ai", "mcp")
