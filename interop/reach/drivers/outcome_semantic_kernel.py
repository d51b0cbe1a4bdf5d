"""Measures the user's final answer from Semantic Kernel's own agent loop (`ChatCompletionAgent.get_response`).

A scripted chat completion service (a `ChatCompletionClientBase` that calls no service) calls the job's tools of an
`MCPStdioPlugin` through SK's auto function invocation (`_common.script`: by default the financial tool), then
writes the three-line summary the job gives (a stand-in for a model that summarizes). The final answer is ``str()``
of the response's message, where SK applications read it; the outputs, each function result of the agent's
thread. With ``helped``, the plugin is the adapter's `DirectAnswerMCPStdioPlugin` (SK's `MCPStdioPlugin`, which also
records each result as the server sent it) and the agent's service and kernel are those
`mcp_rendering.integrations.semantic_kernel.direct_answers` returns.
"""

from __future__ import annotations

from typing import Any, ClassVar

from _common import run, script, server_name
from semantic_kernel.agents import ChatCompletionAgent  # pyright: ignore[reportMissingImports]
from semantic_kernel.connectors.ai.chat_completion_client_base import ChatCompletionClientBase  # pyright: ignore[reportMissingImports]
from semantic_kernel.connectors.mcp import MCPStdioPlugin  # pyright: ignore[reportMissingImports]
from semantic_kernel.contents import (  # pyright: ignore[reportMissingImports]
    AuthorRole,
    ChatMessageContent,
    FunctionCallContent,
    FunctionResultContent,
)

PLUGIN = "example"


class ScriptedService(ChatCompletionClientBase):  # pyright: ignore[reportUntypedBaseClass]
    """Makes the calls of each turn of `turns` in order (one turn per round of function results it has read), then
    writes `summary`."""

    SUPPORTS_FUNCTION_CALLING: ClassVar[bool] = True
    turns: list[list[dict[str, Any]]]
    summary: str

    async def _inner_get_chat_message_contents(self, chat_history: Any, settings: Any) -> list[Any]:
        del settings
        rounds = sum(
            any(isinstance(item, FunctionCallContent) for item in message.items) for message in chat_history.messages
        )
        if rounds >= len(self.turns):
            return [ChatMessageContent(role=AuthorRole.ASSISTANT, content=self.summary)]
        calls = [
            FunctionCallContent(
                id=f"call-{rounds}-{n}", function_name=call["name"], plugin_name=PLUGIN, arguments=call["args"]
            )
            for n, call in enumerate(self.turns[rounds])
        ]
        return [ChatMessageContent(role=AuthorRole.ASSISTANT, items=calls)]


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    service = ScriptedService(
        service_id="scripted", ai_model_id="scripted", turns=script(job, tool_name), summary=job["options"]["summary"]
    )
    plugin_class: Any = MCPStdioPlugin
    if job["helped"]:
        from mcp_rendering.integrations.semantic_kernel import DirectAnswerMCPStdioPlugin

        plugin_class = DirectAnswerMCPStdioPlugin
    async with plugin_class(name=PLUGIN, command=job["command"], args=job["args"]) as plugin:
        answers: Any = {"service": service}
        if job["helped"]:
            from mcp_rendering.integrations.semantic_kernel import direct_answers

            answers = direct_answers(service, {server_name(job): plugin})
        agent = ChatCompletionAgent(name="reach", plugins=[plugin], **answers)
        response = await agent.get_response(messages="Show the annual accounts.")
        outputs = [
            str(item.result)
            async for message in response.thread.get_messages()
            for item in message.items
            if isinstance(item, FunctionResultContent)
        ]
    return {"final": str(response.message), "outputs": outputs}


if __name__ == "__main__":
    run(_observe, "semantic-kernel", "mcp")
