"""Measures the user's final answer from LlamaIndex's own agent loop (`FunctionAgent`).

LlamaIndex's `MockFunctionCallingLLM` is scripted to call the job's tools of an `McpToolSpec` (`_common.script`: by
default the financial tool), then to write the three-line summary the job gives (a stand-in for a model that
summarizes). The final answer is ``str()`` of the run's `AgentOutput` (its response text), where LlamaIndex
applications read it; the outputs, the content of each tool output the run streamed. With ``helped``, the tools are
loaded through `mcp_rendering.integrations.llama_index.load_direct_answer_tools` and the agent is its
`DirectAnswerAgent` (a `FunctionAgent`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from _common import run, script, server_name
from llama_index.core.agent.workflow import FunctionAgent, ToolCallResult  # pyright: ignore[reportMissingImports]
from llama_index.core.base.llms.types import ToolCallBlock  # pyright: ignore[reportMissingImports]
from llama_index.core.llms import ChatMessage  # pyright: ignore[reportMissingImports]
from llama_index.core.llms.mock import MockFunctionCallingLLM  # pyright: ignore[reportMissingImports]
from llama_index.tools.mcp import BasicMCPClient, McpToolSpec  # pyright: ignore[reportMissingImports]


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    summary = job["options"]["summary"]
    turns = script(job, tool_name)
    steps: list[int] = []

    def scripted(messages: Sequence[Any], **kwargs: Any) -> Any:
        del messages, kwargs
        turn = len(steps)
        steps.append(turn)
        if turn >= len(turns):
            return ChatMessage(role="assistant", content=summary)
        calls = [
            ToolCallBlock(tool_call_id=f"call-{turn}-{index}", tool_name=call["name"], tool_kwargs=call["args"])
            for index, call in enumerate(turns[turn])
        ]
        return ChatMessage(role="assistant", blocks=calls)

    # The client takes no working directory: the example server is importable from any (the project is installed).
    spec = McpToolSpec(client=BasicMCPClient(job["command"], args=job["args"], timeout=60))
    llm = MockFunctionCallingLLM(response_generator=scripted)
    if job["helped"]:
        from mcp_rendering.integrations.llama_index import DirectAnswerAgent, load_direct_answer_tools

        agent = DirectAnswerAgent(tools=await load_direct_answer_tools(spec, server=server_name(job)), llm=llm)
    else:
        agent = FunctionAgent(tools=await spec.to_tool_list_async(), llm=llm)
    handler = agent.run(user_msg="Show the annual accounts.")
    outputs: list[str] = []
    async for event in handler.stream_events():
        if isinstance(event, ToolCallResult):
            outputs.append(str(event.tool_output.content))
    output = await handler
    return {"final": str(output), "outputs": outputs}


if __name__ == "__main__":
    run(_observe, "llama-index-tools-mcp", "llama-index-core", "mcp")
