"""Measures the user's final answer from Semantic Kernel's own agent loop (`ChatCompletionAgent.get_response`).

A scripted chat completion service (a `ChatCompletionClientBase` that calls no service) calls the financial tool
of an `MCPStdioPlugin` through SK's auto function invocation, then writes the three-line summary the job gives (a
stand-in for a model that summarizes). The final answer is ``str()`` of the response's message, where SK
applications read it. With ``helped``, the agent's service is wrapped by
`mcp_rendering.integrations.semantic_kernel.direct_answers`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from _common import run
from semantic_kernel.agents import ChatCompletionAgent  # pyright: ignore[reportMissingImports]
from semantic_kernel.connectors.ai.chat_completion_client_base import ChatCompletionClientBase  # pyright: ignore[reportMissingImports]
from semantic_kernel.connectors.mcp import MCPStdioPlugin  # pyright: ignore[reportMissingImports]
from semantic_kernel.contents import (  # pyright: ignore[reportMissingImports]
    AuthorRole,
    ChatMessageContent,
    FunctionCallContent,
    FunctionResultContent,
)

PLUGIN = "financial"


class ScriptedService(ChatCompletionClientBase):  # pyright: ignore[reportUntypedBaseClass]
    """Calls `tool` once; once it has a function result, writes `summary`."""

    SUPPORTS_FUNCTION_CALLING: ClassVar[bool] = True
    tool: str
    summary: str

    async def _inner_get_chat_message_contents(self, chat_history: Any, settings: Any) -> list[Any]:
        del settings
        answered = any(
            isinstance(item, FunctionResultContent) for message in chat_history.messages for item in message.items
        )
        if answered:
            return [ChatMessageContent(role=AuthorRole.ASSISTANT, content=self.summary)]
        call = FunctionCallContent(id="call-1", function_name=self.tool, plugin_name=PLUGIN, arguments={})
        return [ChatMessageContent(role=AuthorRole.ASSISTANT, items=[call])]


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    service: Any = ScriptedService(
        service_id="scripted", ai_model_id="scripted", tool=tool_name, summary=job["options"]["summary"]
    )
    async with MCPStdioPlugin(name=PLUGIN, command=job["command"], args=job["args"]) as plugin:
        if job["helped"]:
            from mcp_rendering.integrations.semantic_kernel import direct_answers

            service = direct_answers(service, [plugin], server="example-financial")
        agent = ChatCompletionAgent(name="reach", service=service, plugins=[plugin])
        response = await agent.get_response(messages="Show the annual accounts.")
    return {"final": str(response.message)}


if __name__ == "__main__":
    run(_observe, "semantic-kernel", "mcp")
