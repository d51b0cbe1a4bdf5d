"""Measures the user's final answer from AutoGen AgentChat's own agent loop (`AssistantAgent.run`).

AutoGen's `ReplayChatCompletionClient` (no model, no network) calls the financial tool, then writes the three-line
summary the job gives (a stand-in for a model that summarizes), read by an agent that reflects on tool use (AutoGen's
default, ``reflect_on_tool_use=False``, would show the tool's text with no model step). The tools come from the
`McpWorkbench` (the default) or from `mcp_server_tools` (option ``adapters``). The final answer is the content of
the last message of the `TaskResult`. With ``helped``, the agent is the dedicated agent of
`mcp_rendering.integrations.autogen.direct_answer_tools` (AutoGen's route being agent-wide), in place of either.
"""

from __future__ import annotations

import json
from typing import Any

from _common import run
from autogen_agentchat.agents import AssistantAgent  # pyright: ignore[reportMissingImports]
from autogen_core import FunctionCall  # pyright: ignore[reportMissingImports]
from autogen_core.models import CreateResult, RequestUsage  # pyright: ignore[reportMissingImports]
from autogen_ext.models.replay import ReplayChatCompletionClient  # pyright: ignore[reportMissingImports]
from autogen_ext.tools.mcp import McpWorkbench, StdioServerParams, mcp_server_tools  # pyright: ignore[reportMissingImports]

MODEL_INFO: Any = {
    "vision": False,
    "function_calling": True,
    "json_output": False,
    "family": "unknown",
    "structured_output": False,
}


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    call = FunctionCall(id="call-1", name=tool_name, arguments=json.dumps({}))
    usage = RequestUsage(prompt_tokens=0, completion_tokens=0)
    first = CreateResult(finish_reason="function_calls", content=[call], usage=usage, cached=False)
    model = ReplayChatCompletionClient([first, job["options"]["summary"]], model_info=MODEL_INFO)
    params = StdioServerParams(command=job["command"], args=job["args"], cwd=job.get("cwd"), read_timeout_seconds=60)
    if job["helped"]:
        from mcp_rendering.integrations.autogen import direct_answer_tools

        tools = await direct_answer_tools(params, server="example-financial")
        agent = AssistantAgent("reach", model, **tools.agent_options())
        result = await agent.run(task="Show the annual accounts.")
    elif job["options"].get("adapters"):
        agent = AssistantAgent("reach", model, tools=await mcp_server_tools(params), reflect_on_tool_use=True)
        result = await agent.run(task="Show the annual accounts.")
    else:
        async with McpWorkbench(params) as workbench:
            agent = AssistantAgent("reach", model, workbench=workbench, reflect_on_tool_use=True)
            result = await agent.run(task="Show the annual accounts.")
    return {"final": str(result.messages[-1].content)}


if __name__ == "__main__":
    run(_observe, "autogen-agentchat", "autogen-ext", "autogen-core", "mcp")
