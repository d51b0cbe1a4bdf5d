"""Measures the user's final answer from Haystack's own `Agent`.

A scripted chat generator (a component that calls no provider) calls the financial tool of an `MCPToolset`, then
writes the three-line summary the job gives (a stand-in for a model that summarizes). The final answer is the last
message's ``.text``, where Haystack applications read it (empty when it has none). With ``helped``, the agent takes
the hook of `mcp_rendering.integrations.haystack.direct_answers`.
"""

from __future__ import annotations

from typing import Any

from _common import run
from haystack import component  # pyright: ignore[reportMissingImports]
from haystack.components.agents import Agent  # pyright: ignore[reportMissingImports]
from haystack.dataclasses import ChatMessage, ToolCall  # pyright: ignore[reportMissingImports]
from haystack_integrations.tools.mcp import MCPToolset, StdioServerInfo  # pyright: ignore[reportMissingImports]


@component
class ScriptedGenerator:
    """Calls `tool` once; once it has a tool result, writes `summary`."""

    def __init__(self, tool: str, summary: str) -> None:
        self.tool = tool
        self.summary = summary

    @component.output_types(replies=list[ChatMessage])
    def run(self, messages: list[ChatMessage], tools: Any = None) -> dict[str, Any]:
        del tools
        if any(message.tool_call_result is not None for message in messages):
            return {"replies": [ChatMessage.from_assistant(self.summary)]}
        call = ToolCall(tool_name=self.tool, arguments={}, id="call-1")
        return {"replies": [ChatMessage.from_assistant(tool_calls=[call])]}


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    toolset = MCPToolset(StdioServerInfo(command=job["command"], args=job["args"]), invocation_timeout=60)
    hooks: dict[str, Any] | None = None
    if job["helped"]:
        from mcp_rendering.integrations.haystack import direct_answers

        hooks = direct_answers(toolset, server="example-financial")
    agent = Agent(chat_generator=ScriptedGenerator(tool_name, job["options"]["summary"]), tools=toolset, hooks=hooks)
    try:
        output = await agent.run_async(messages=[ChatMessage.from_user("Show the annual accounts.")])
    finally:
        toolset.close()
    return {"final": output["last_message"].text or ""}


if __name__ == "__main__":
    run(_observe, "mcp-haystack", "haystack-ai", "mcp")
