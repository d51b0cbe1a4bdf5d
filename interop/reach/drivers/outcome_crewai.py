"""Measures the user's final answer from CrewAI's own crew (one agent, one task).

A scripted model (a `BaseLLM` that calls no service) calls the job's tools through native function calling
(`_common.script`: by default the financial tool), then writes the three-line summary the job gives (a stand-in
for a model that summarizes). The final answer is the crew's output (`CrewOutput.raw`), where CrewAI applications
read it; the outputs, the content of each tool message of the task. Without ``helped``, the tools come from
crewai-tools' `MCPServerAdapter`; with it, from mcpadapt's `MCPAdapt` with
`mcp_rendering.integrations.crewai.DirectAnswerToolAdapter`, whose `guardrail` the task takes.
"""

from __future__ import annotations

import json
import os
from typing import Any

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")  # no network at run time
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

from _common import run, script, server_name
from crewai import Agent, Crew, Task  # pyright: ignore[reportMissingImports]
from crewai.llms.base_llm import BaseLLM  # pyright: ignore[reportMissingImports]
from crewai_tools import MCPServerAdapter  # pyright: ignore[reportMissingImports]
from mcp import StdioServerParameters
from mcpadapt.core import MCPAdapt  # pyright: ignore[reportMissingImports]


class ScriptedModel(BaseLLM):  # pyright: ignore[reportUntypedBaseClass]
    """Calls the tools of each turn of `turns` in order; then writes `summary`."""

    turns: list[list[dict[str, Any]]]
    summary: str
    steps: int = 0

    def call(self, messages: Any, tools: Any = None, *args: Any, **kwargs: Any) -> Any:
        del messages, tools, args, kwargs
        turn = self.steps
        self.steps += 1
        if turn >= len(self.turns):
            return self.summary
        return [
            {
                "id": f"call-{turn}-{index}",
                "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(call["args"])},
            }
            for index, call in enumerate(self.turns[turn])
        ]

    def supports_function_calling(self) -> bool:
        return True


async def _crew(tools: list[Any], model: ScriptedModel, guardrail: Any = None) -> dict[str, Any]:
    agent = Agent(role="analyst", goal="Answer the question.", backstory="An analyst.", tools=tools, llm=model)
    task = Task(
        description="Show the annual accounts.", expected_output="The accounts.", agent=agent, guardrail=guardrail
    )
    output = await Crew(agents=[agent], tasks=[task]).kickoff_async()
    messages = [message for task_output in output.tasks_output for message in task_output.messages]
    outputs = [str(message.get("content")) for message in messages if message.get("role") == "tool"]
    return {"final": str(output.raw), "outputs": outputs}


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    params = StdioServerParameters(command=job["command"], args=job["args"], cwd=job.get("cwd"))
    model = ScriptedModel(model="scripted", turns=script(job, tool_name), summary=job["options"]["summary"])
    if job["helped"]:
        from mcp_rendering.integrations.crewai import DirectAnswerToolAdapter

        adapter = DirectAnswerToolAdapter(server=server_name(job))
        with MCPAdapt(params, adapter) as tools:
            return await _crew(list(tools), model, adapter.guardrail)
    with MCPServerAdapter(params) as tools:
        return await _crew(list(tools), model)


if __name__ == "__main__":
    run(_observe, "crewai", "crewai-tools", "mcpadapt", "mcp")
