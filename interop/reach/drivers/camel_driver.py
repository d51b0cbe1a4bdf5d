"""Measures what CAMEL (`camel-ai`) hands the model for one call of the financial tool, in its own agent loop.

The tools come from CAMEL's `MCPToolkit` (one `MCPClient` over stdio); a `ChatAgent` runs its own loop with
CAMEL's `StubModel` scripted to call the tool in its first turn and then write a three-line summary. The content of
the tool message the model receives in its second turn is reported. CAMEL has no route that ends a turn on a tool's
result, so the agent's final answer must be the model's summary: any other answer fails the driver.
"""

from __future__ import annotations

import time
from typing import Any

from _common import run, text_parts
from camel.agents import ChatAgent  # pyright: ignore[reportMissingImports]
from camel.models import StubModel  # pyright: ignore[reportMissingImports]
from camel.toolkits import MCPToolkit  # pyright: ignore[reportMissingImports]
from camel.types import (  # pyright: ignore[reportMissingImports]
    ChatCompletion,
    ChatCompletionMessage,
    Choice,
    CompletionUsage,
    ModelType,
)

SUMMARY = "Revenue grew in FY2025.\nEquity and cash are up.\nNo line stands out."
"""What the scripted model writes after the tool call (the harness's summary)."""

CONTEXT_WINDOW = 128_000
FAILED = "Tool execution failed: "
"""How `ChatAgent` opens the tool message of a call that raised, in place of its result."""


class ScriptedModel(StubModel):  # pyright: ignore[reportUntypedBaseClass]
    """CAMEL's stub model, answering in two turns: a call of `tool_name`, then `SUMMARY`; it keeps every request."""

    def __init__(self, tool_name: str) -> None:
        super().__init__(ModelType.STUB)
        self.tool_name = tool_name
        self.requests: list[list[dict[str, Any]]] = []

    def _reply(self, messages: list[dict[str, Any]]) -> Any:
        self.requests.append([dict(message) for message in messages])
        if len(self.requests) == 1:
            call = {"id": "call-1", "type": "function", "function": {"name": self.tool_name, "arguments": "{}"}}
            message = ChatCompletionMessage(role="assistant", content=None, tool_calls=[call])
            reason = "tool_calls"
        else:
            message = ChatCompletionMessage(role="assistant", content=SUMMARY)
            reason = "stop"
        return ChatCompletion(
            id=f"scripted-{len(self.requests)}",
            model="stub",
            object="chat.completion",
            created=int(time.time()),
            choices=[Choice(finish_reason=reason, index=0, message=message, logprobs=None)],
            usage=CompletionUsage(completion_tokens=10, prompt_tokens=10, total_tokens=20),
        )

    def _run(self, messages: list[dict[str, Any]], response_format: Any = None, tools: Any = None) -> Any:
        return self._reply(messages)

    async def _arun(self, messages: list[dict[str, Any]], response_format: Any = None, tools: Any = None) -> Any:
        return self._reply(messages)


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    server = {"command": job["command"], "args": job["args"], "cwd": job.get("cwd")}
    model = ScriptedModel(tool_name)
    async with MCPToolkit(config_dict={"mcpServers": {"example-financial": server}}) as toolkit:
        agent = ChatAgent(
            "You answer questions about a company's accounts.",
            model=model,
            tools=toolkit.get_tools(),
            # The stub's own limit (4,096 tokens) would have the agent summarize the context before the model's second
            # turn; a model of today's context window reads the tool message as is.
            token_limit=CONTEXT_WINDOW,
        )
        response = await agent.astep("Show me the financial statements.")
    final = response.msgs[0].content if response.msgs else None
    if final != SUMMARY:
        raise RuntimeError(f"the agent's final answer is not the model's summary: {final!r}")
    tool_messages = [message for message in model.requests[-1] if message.get("role") == "tool"]
    if len(tool_messages) != 1:
        raise RuntimeError(f"expected one tool message in the model's second request, found {len(tool_messages)}")
    payload = tool_messages[0]["content"]
    if isinstance(payload, str) and payload.startswith(FAILED):  # the agent caught the call's exception
        return {"payload": payload, "parts": [{"kind": "error", "text": payload}]}
    return {"payload": payload, "parts": text_parts(payload)}


if __name__ == "__main__":
    run(_observe, "camel-ai", "mcp")
