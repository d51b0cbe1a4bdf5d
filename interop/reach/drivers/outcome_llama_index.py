"""Measures the user's final answer from LlamaIndex's own agent loop (`FunctionAgent`).

LlamaIndex's `MockFunctionCallingLLM`, scripted, calls the financial tool of an `McpToolSpec`, then writes the
three-line summary the job gives (a stand-in for a model that summarizes). The final answer is ``str()`` of the
run's `AgentOutput` (its response text), where LlamaIndex applications read it. With ``helped``, the tools are
loaded through `mcp_rendering.integrations.llama_index.load_direct_answer_tools`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from _common import run
from llama_index.core.agent.workflow import FunctionAgent  # pyright: ignore[reportMissingImports]
from llama_index.core.base.llms.types import MessageRole, ToolCallBlock  # pyright: ignore[reportMissingImports]
from llama_index.core.llms import ChatMessage  # pyright: ignore[reportMissingImports]
from llama_index.core.llms.mock import MockFunctionCallingLLM  # pyright: ignore[reportMissingImports]
from llama_index.tools.mcp import BasicMCPClient, McpToolSpec  # pyright: ignore[reportMissingImports]


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    summary = job["options"]["summary"]

    def scripted(messages: Sequence[Any], **kwargs: Any) -> Any:
        del kwargs
        if any(message.role == MessageRole.TOOL for message in messages):
            return ChatMessage(role="assistant", content=summary)
        call = ToolCallBlock(tool_call_id="call-1", tool_name=tool_name, tool_kwargs={})
        return ChatMessage(role="assistant", blocks=[call])

    # The client takes no working directory: the example server is importable from any (the project is installed).
    spec = McpToolSpec(client=BasicMCPClient(job["command"], args=job["args"], timeout=60))
    if job["helped"]:
        from mcp_rendering.integrations.llama_index import load_direct_answer_tools

        tools = await load_direct_answer_tools(spec, server="example-financial")
    else:
        tools = await spec.to_tool_list_async()
    agent = FunctionAgent(tools=tools, llm=MockFunctionCallingLLM(response_generator=scripted))
    output = await agent.run(user_msg="Show the annual accounts.")
    return {"final": str(output)}


if __name__ == "__main__":
    run(_observe, "llama-index-tools-mcp", "llama-index-core", "mcp")
