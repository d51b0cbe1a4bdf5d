"""Measures the user's final answer from AutoGen AgentChat's own agent loop (`AssistantAgent.run`).

AutoGen's `ReplayChatCompletionClient` (no model, no network) calls the job's tools (`_common.script`: by default
the financial tool), then writes the three-line summary the job gives (a stand-in for a model that summarizes),
for an agent that reflects on tool use (AutoGen's default, ``reflect_on_tool_use=False``, would show the tool's text
with no model step). The tools come from `mcp_server_tools` (option ``adapters``; the adapter takes AutoGen's route
for these only: it refuses an `McpWorkbench`, which the reach configuration measures for the model's input only).
The final answer is the content of the last message of the `TaskResult`; the outputs, each tool execution result.
With ``helped``, the agent is `mcp_rendering.integrations.autogen.DirectAnswerAgent` on AutoGen's route
(``reflect_on_tool_use=False``), its workbench a `DirectAnswerWorkbench` of the tools loaded over the session
`recording_session` names for the server, given ``max_tool_iterations`` for as many model calls as the reflecting
agent may make.
"""

from __future__ import annotations

import json
from typing import Any

from _common import run, script, server_name
from autogen_agentchat.agents import AssistantAgent  # pyright: ignore[reportMissingImports]
from autogen_agentchat.messages import ToolCallExecutionEvent  # pyright: ignore[reportMissingImports]
from autogen_core import FunctionCall  # pyright: ignore[reportMissingImports]
from autogen_core.models import CreateResult, RequestUsage  # pyright: ignore[reportMissingImports]
from autogen_ext.models.replay import ReplayChatCompletionClient  # pyright: ignore[reportMissingImports]
from autogen_ext.tools.mcp import (  # pyright: ignore[reportMissingImports]
    McpWorkbench,
    StdioServerParams,
    create_mcp_server_session,
    mcp_server_tools,
)

MODEL_INFO: Any = {
    "vision": False,
    "function_calling": True,
    "json_output": False,
    "family": "unknown",
    "structured_output": False,
}


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    turns = script(job, tool_name)
    usage = RequestUsage(prompt_tokens=0, completion_tokens=0)
    replies: list[Any] = [
        CreateResult(
            finish_reason="function_calls",
            content=[
                FunctionCall(id=f"call-{index}-{n}", name=call["name"], arguments=json.dumps(call["args"]))
                for n, call in enumerate(turn)
            ],
            usage=usage,
            cached=False,
        )
        for index, turn in enumerate(turns)
    ]
    model = ReplayChatCompletionClient([*replies, job["options"]["summary"]], model_info=MODEL_INFO)
    params = StdioServerParams(command=job["command"], args=job["args"], cwd=job.get("cwd"), read_timeout_seconds=60)
    # An agent that reflects reads each turn's results before the next one (`max_tool_iterations`), then answers.
    reflecting: dict[str, Any] = {"reflect_on_tool_use": True, "max_tool_iterations": len(turns)}
    if job["options"].get("adapters") and job["helped"]:
        from mcp_rendering.integrations.autogen import recording_session

        # The tools over one session, which the adapter reads each call's raw result on.
        async with create_mcp_server_session(params) as session:
            await session.initialize()
            tools = await mcp_server_tools(params, session=recording_session(session, server=server_name(job)))
            result = await _helped(model, tools, len(turns))
    elif job["options"].get("adapters"):
        agent = AssistantAgent("reach", model, tools=await mcp_server_tools(params), **reflecting)
        result = await agent.run(task="Show the annual accounts.")
    elif job["helped"]:
        raise ValueError("the adapter takes no route over an McpWorkbench: measure the tools (option adapters)")
    else:
        async with McpWorkbench(params) as workbench:
            agent = AssistantAgent("reach", model, workbench=workbench, **reflecting)
            result = await agent.run(task="Show the annual accounts.")
    outputs = [
        str(execution.content)
        for message in result.messages
        if isinstance(message, ToolCallExecutionEvent)
        for execution in message.content
    ]
    return {"final": str(result.messages[-1].content), "outputs": outputs}


async def _helped(model: Any, tools: Any, turns: int) -> Any:
    """The run of AutoGen's agent with the adapter, on AutoGen's route, over `tools`."""
    from mcp_rendering.integrations.autogen import DirectAnswerAgent, DirectAnswerWorkbench

    async with DirectAnswerWorkbench(tools) as direct:
        # The same budget of model calls as the reflecting agent: one step per turn, and one for its answer.
        agent = DirectAnswerAgent("reach", model, workbench=direct, max_tool_iterations=turns + 1)
        return await agent.run(task="Show the annual accounts.")


if __name__ == "__main__":
    run(_observe, "autogen-agentchat", "autogen-ext", "autogen-core", "mcp")
